#include "stats.h"

#include <assert.h>
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
	acc->shift = 0.0;
	acc->mean = 0.0;
	acc->m2 = 0.0;
}

void stats_add(struct stats_acc *acc, double x)
{
	double d, delta;

	assert(isfinite(x));
	if (acc->n == 0)
		acc->shift = x;
	d = x - acc->shift;
	acc->n++;
	delta = d - acc->mean;
	acc->mean += delta / (double)acc->n;
	acc->m2 += delta * (d - acc->mean);
}

void stats_summarize(struct stats_summary *out, const struct stats_acc *acc)
{
	double n = (double)acc->n;

	out->n = acc->n;
	out->has_mean = acc->n >= 1;
	out->has_std = acc->n >= 2;
	out->mean = out->has_mean ? acc->shift + acc->mean : NAN;
	out->std = NAN;
	out->ci95 = NAN;
	if (!out->has_std)
		return;
	/* Rounding can leave m2 a hair below zero when every value is equal. */
	out->std = acc->m2 > 0.0 ? sqrt(acc->m2 / (n - 1.0)) : 0.0;
	out->ci95 = stats_t_quantile(0.975, n - 1.0) * out->std / sqrt(n);
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

bool stats_print_place(int *out, double std, int sig_digits)
{
	char buf[64];
	int sig, exponent;
	char *e;

	if (!(std > 0.0) || !isfinite(std))
		return false;
	/* The digits as printf rounds them, so that 0.0996 gives 0.10, not 0.100. */
	snprintf(buf, sizeof(buf), "%.16e", std);
	sig = sig_digits > 0 ? sig_digits : buf[0] == '1' ? 3 : 2;
	if (sig > STATS_MAX_DIGITS)
		sig = STATS_MAX_DIGITS;
	snprintf(buf, sizeof(buf), "%.*e", sig - 1, std);
	e = strchr(buf, 'e');
	if (!e)
		return false;
	exponent = (int)strtol(e + 1, NULL, 10);
	*out = exponent - (sig - 1);
	return true;
}

void stats_format_at(struct strbuf *out, double x, int place)
{
	size_t start = out->len;
	bool zero = true;

	if (place < 0) {
		strbuf_addf(out, "%.*f", -place, x);
	} else {
		double unit = pow(10.0, place);

		strbuf_addf(out, "%.0f", round(x / unit) * unit);
	}
	for (size_t i = start; i < out->len; i++)
		if (out->buf[i] >= '1' && out->buf[i] <= '9')
			zero = false;
	if (zero && out->buf[start] == '-') {
		memmove(out->buf + start, out->buf + start + 1, out->len - start);
		out->len--;
	}
}
