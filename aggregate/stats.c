#include "stats.h"

#include <assert.h>
#include <float.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

#include "banned.h"

void stats_init(struct stats_acc *acc)
{
	acc->n = 0;
	acc->scale = 0;
	acc->shift = 0.0;
	acc->mean = 0.0;
	acc->m2 = 0.0;
}

/*
 * The power of two that brings x into [0.5, 1); for 0, one below that of
 * the smallest double, so that a 0 never raises the scale.
 */
#define ZERO_EXPONENT (DBL_MIN_EXP - DBL_MANT_DIG)

static int binary_exponent(double x)
{
	int e = 0;

	if (x == 0.0)
		return ZERO_EXPONENT;
	frexp(x, &e);
	return e;
}

/*
 * A value larger than all before it raises the scale. Every term is
 * multiplied by a power of two, which is exact; terms that become too small
 * to hold are below the rounding of the largest value anyway.
 */
static void raise_scale(struct stats_acc *acc, int scale)
{
	int by = acc->scale - scale;

	acc->shift = ldexp(acc->shift, by);
	acc->mean = ldexp(acc->mean, by);
	acc->m2 = ldexp(acc->m2, 2 * by);
	acc->scale = scale;
}

void stats_add(struct stats_acc *acc, double x)
{
	double d, delta;
	int e;

	assert(isfinite(x));
	e = binary_exponent(x);
	if (acc->n == 0)
		acc->scale = e;
	else if (e > acc->scale)
		raise_scale(acc, e);
	x = ldexp(x, -acc->scale);
	if (acc->n == 0)
		acc->shift = x;
	/* |x| and |shift| are below 1, so d and delta stay below 4 and m2 is finite. */
	d = x - acc->shift;
	acc->n++;
	delta = d - acc->mean;
	acc->mean += delta / (double)acc->n;
	acc->m2 += delta * (d - acc->mean);
}

/*
 * t * std / sqrt(n), as it always was; where that overflows, the order that
 * overflows only when the half-width itself is past the largest double.
 */
static double ci_half_width(double std, double n)
{
	double t = stats_t_quantile(0.975, n - 1.0);
	double ci = t * std / sqrt(n);

	return isfinite(ci) ? ci : t * (std / sqrt(n));
}

void stats_summarize(struct stats_summary *out, const struct stats_acc *acc)
{
	double n = (double)acc->n;

	out->n = acc->n;
	out->has_mean = acc->n >= 1;
	out->has_std = acc->n >= 2;
	out->mean = out->has_mean ? ldexp(acc->shift + acc->mean, acc->scale) : NAN;
	out->std = NAN;
	out->ci95 = NAN;
	if (!out->has_std)
		return;
	/* Rounding can leave m2 a hair below zero when every value is equal. */
	out->std = acc->m2 > 0.0 ? ldexp(sqrt(acc->m2 / (n - 1.0)), acc->scale) : 0.0;
	out->ci95 = ci_half_width(out->std, n);
}

/*
 * The t distribution comes from GSL: a well-kept library whose cdf
 * functions are tested against published tables, rather than our own
 * incomplete beta. They signal nothing through gsl_error for arguments in
 * the domains checked here.
 */
double stats_t_cdf(double t, double df)
{
	if (isnan(t) || !(df > 0.0))
		return NAN;
	return gsl_cdf_tdist_P(t, df);
}

double stats_t_upper(double t, double df)
{
	if (isnan(t) || !(df > 0.0))
		return NAN;
	return gsl_cdf_tdist_Q(t, df);
}

double stats_t_quantile(double p, double df)
{
	if (!(p > 0.0 && p < 1.0) || !(df > 0.0))
		return NAN;
	if (p == 0.5)
		return 0.0;
	return gsl_cdf_tdist_Pinv(p, df);
}

/* The power of ten of x's first digit as printf rounds it to digits significant digits. */
static int decimal_exponent(double x, int digits)
{
	char buf[64];
	char *e;

	snprintf(buf, sizeof(buf), "%.*e", digits - 1, x);
	e = strchr(buf, 'e');
	return e ? (int)strtol(e + 1, NULL, 10) : 0;
}

bool stats_print_place(int *out, double std, int sig_digits)
{
	char buf[64];
	int sig;

	if (!(std > 0.0) || !isfinite(std))
		return false;
	/*
	 * The first digit as printf rounds the std to DBL_DIG digits, all that
	 * a double holds for sure: 0.0996 gives 0.10, not 0.100, and the last
	 * bit never decides (0.09999999999999998 and 0.10000000000000009 both
	 * start with a 1).
	 */
	snprintf(buf, sizeof(buf), "%.*e", DBL_DIG - 1, std);
	sig = sig_digits > 0 ? sig_digits : buf[0] == '1' ? 3 : 2;
	if (sig > STATS_MAX_DIGITS)
		sig = STATS_MAX_DIGITS;
	*out = decimal_exponent(std, sig) - (sig - 1);
	return true;
}

/*
 * x to place in exponent notation: as many digits as reach place (at most
 * a double's 17), 0 when x is below half a unit of it.
 */
static void format_exponent(struct strbuf *out, double x, int place)
{
	int e = decimal_exponent(x, DBL_DECIMAL_DIG), prec;

	if (x == 0.0 || e < place - 1) {
		strbuf_addch(out, '0');
		return;
	}
	if (e == place - 1) {
		/* Rounds to one unit of place, or to nothing. */
		if (fabs(x) >= 5.0 * pow(10.0, place - 1))
			strbuf_addf(out, "%se%+03d", x < 0 ? "-1" : "1", place);
		else
			strbuf_addch(out, '0');
		return;
	}
	prec = e - place;
	if (prec >= DBL_DECIMAL_DIG)
		prec = DBL_DECIMAL_DIG - 1;
	if (decimal_exponent(x, prec + 1) == e) {
		strbuf_addf(out, "%.*e", prec, x);
		return;
	}
	/* Rounding carried into a new digit: 9.96e169 to place 168 is 1.00e+170. */
	strbuf_addstr(out, x < 0 ? "-1." : "1.");
	for (int i = 0; i <= prec; i++)
		strbuf_addch(out, '0');
	strbuf_addf(out, "e%+03d", e + 1);
}

void stats_format_at(struct strbuf *out, double x, int place)
{
	size_t start = out->len;
	bool zero = true;

	if (!isfinite(x)) {
		strbuf_addstr(out, isnan(x) ? "nan" : x < 0 ? "-inf" : "inf");
		return;
	} else if (place > STATS_FIXED_PLACES || place < -STATS_FIXED_PLACES) {
		format_exponent(out, x, place);
	} else if (place < 0) {
		strbuf_addf(out, "%.*f", -place, x);
	} else {
		double unit = pow(10.0, place);

		strbuf_addf(out, "%.0f", round(x / unit) * unit);
	}
	for (size_t i = start; i < out->len && out->buf[i] != 'e'; i++)
		if (out->buf[i] >= '1' && out->buf[i] <= '9')
			zero = false;
	if (zero && out->buf[start] == '-') {
		memmove(out->buf + start, out->buf + start + 1, out->len - start);
		out->len--;
	}
}
