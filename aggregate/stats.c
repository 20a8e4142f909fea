#include "stats.h"

#include <assert.h>
#include <math.h>

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
 * The continued fraction of the regularized incomplete beta function,
 * evaluated by the modified Lentz method (Numerical Recipes, 6.4). It
 * converges quickly for x < (a + 1) / (a + b + 2); the caller uses the
 * symmetry I_x(a, b) = 1 - I_{1-x}(b, a) on the other side.
 */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1.0, d, h;

	d = 1.0 - (a + b) * x / (a + 1.0);
	if (fabs(d) < tiny)
		d = tiny;
	d = 1.0 / d;
	h = d;
	for (int m = 1; m <= 10000; m++) {
		double aa, delta;

		aa = m * (b - m) * x / ((a - 1.0 + 2 * m) * (a + 2 * m));
		d = 1.0 + aa * d;
		d = fabs(d) < tiny ? 1.0 / tiny : 1.0 / d;
		c = 1.0 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		h *= d * c;

		aa = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 1.0 + 2 * m));
		d = 1.0 + aa * d;
		d = fabs(d) < tiny ? 1.0 / tiny : 1.0 / d;
		c = 1.0 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		delta = d * c;
		h *= delta;
		if (fabs(delta - 1.0) < 1e-16)
			break;
	}
	return h;
}

/* I_x(a, b), with y = 1 - x passed in so that neither loses digits. */
static double beta_reg(double a, double b, double x, double y)
{
	double front;

	if (x <= 0.0)
		return 0.0;
	if (y <= 0.0)
		return 1.0;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log(y));
	if (x < (a + 1.0) / (a + b + 2.0))
		return front * beta_cf(a, b, x) / a;
	return 1.0 - front * beta_cf(b, a, y) / b;
}

/* P(T > t) for t >= 0: half of I_{df/(df+t^2)}(df/2, 1/2). */
static double t_upper_tail(double t, double df)
{
	double t2 = t * t;

	return 0.5 * beta_reg(df / 2.0, 0.5, df / (df + t2), t2 / (df + t2));
}

double stats_t_cdf(double t, double df)
{
	double tail;

	if (isnan(t) || !(df > 0.0))
		return NAN;
	tail = t_upper_tail(fabs(t), df);
	return t >= 0.0 ? 1.0 - tail : tail;
}

double stats_t_quantile(double p, double df)
{
	double q, lo = 0.0, hi = 1.0;

	if (!(p > 0.0 && p < 1.0) || !(df > 0.0))
		return NAN;
	if (p == 0.5)
		return 0.0;
	/*
	 * Solve on the upper tail, where the small probabilities of the
	 * interesting quantiles keep their precision, by bisection: the tail
	 * is monotonic, so bisection cannot fail, and its cost (a hundred
	 * evaluations) is nothing next to reading the result files.
	 */
	q = p > 0.5 ? 1.0 - p : p;
	while (t_upper_tail(hi, df) > q) {
		lo = hi;
		hi *= 2.0;
		if (isinf(hi))
			return p > 0.5 ? INFINITY : -INFINITY;
	}
	for (int i = 0; i < 200 && hi - lo > 1e-15 * hi; i++) {
		double mid = lo + (hi - lo) / 2.0;

		if (t_upper_tail(mid, df) > q)
			lo = mid;
		else
			hi = mid;
	}
	return p > 0.5 ? lo + (hi - lo) / 2.0 : -(lo + (hi - lo) / 2.0);
}
