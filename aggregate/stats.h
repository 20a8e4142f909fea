#ifndef SWEEP_STATS_H
#define SWEEP_STATS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Statistics over the seeds of one setting. Pure: no I/O, no allocation
 * (but for stats_format_at's buffer).
 *
 * The accumulator is Welford's, run on the values minus the first value
 * seen, so that values such as 1e9 + x keep the digits of x: the
 * variance never comes from the difference of two large sums. It runs on
 * the values divided by 2^scale, a power of two at least the largest
 * magnitude seen (as LAPACK's dnrm2 scales before squaring), so that no
 * square overflows (1e170, 1e308) or underflows (1e-300) for any finite
 * input. Dividing by a power of two is exact: ordinary values give the
 * same bits as the unscaled sums.
 */
struct stats_acc {
	size_t n;
	int scale;    /* the values are held divided by 2^scale */
	double shift; /* the first value added, divided by 2^scale */
	double mean;  /* mean of (x - shift), divided by 2^scale */
	double m2;    /* sum of squared deviations from the mean, divided by 2^(2 scale) */
};

void stats_init(struct stats_acc *acc);
/*
 * Adds one value; x must be finite (the gate keeps the others out). The
 * mean is then finite, and so is the std unless it is itself past the
 * largest double (values near +-DBL_MAX).
 */
void stats_add(struct stats_acc *acc, double x);

/*
 * What a printer shows for one metric of one setting. An undefined value
 * is NAN with its flag false; every printer shows it as such ("n/a", null,
 * an empty field), never as a number.
 */
struct stats_summary {
	size_t n;
	bool has_mean; /* n >= 1 */
	bool has_std;  /* n >= 2: the sample std and the interval exist */
	double mean;   /* NAN when !has_mean */
	double std;    /* sample standard deviation (divisor n - 1); NAN when !has_std */
	double ci95;   /* half-width of the 95% confidence interval of the mean:
	                  t(0.975, n - 1) * std / sqrt(n); NAN when !has_std;
	                  INFINITY only when the half-width itself is past the
	                  largest double (two values near +-1e308) */
};

void stats_summarize(struct stats_summary *out, const struct stats_acc *acc);

/*
 * Numbers as papers print them. stats_print_place gives the decimal place
 * (the power of ten of the last digit printed) for a setting's mean ± std:
 * the std's place at sig_digits significant digits, or, with sig_digits 0,
 * at 2 significant digits, 3 when the std starts with a 1 (0.0197847 ->
 * 0.0198, 7.41171e-05 -> 7.4e-05). The mean and the CI are printed at the
 * same place. Returns false when std is 0 or not finite (no place: the
 * caller prints the mean with its own precision).
 */
#define STATS_MAX_DIGITS 17
bool stats_print_place(int *out, double std, int sig_digits);

/*
 * Appends x rounded to decimal place (as stats_print_place gives): fixed
 * notation with -place decimals, or rounded to a multiple of 10^place when
 * place > 0; past STATS_FIXED_PLACES either way (a std of 7e169 or
 * 1e-300), exponent notation with the digits down to place ("5.0e+169").
 * Never "-0": a value that rounds to zero prints unsigned. A value that is
 * not finite prints as "inf", "-inf" or "nan".
 */
#define STATS_FIXED_PLACES 15
struct strbuf;
void stats_format_at(struct strbuf *out, double x, int place);

/*
 * Student's t distribution with df degrees of freedom (df > 0, need not be
 * an integer), from GSL (gsl_cdf_tdist_*). stats_t_cdf is P(T <= t),
 * stats_t_upper is P(T > t), computed directly so that small tails keep
 * their digits. stats_t_quantile is the inverse of the cdf: the t with
 * P(T <= t) = p, for 0 < p < 1. All return NAN for arguments outside their
 * domain.
 */
double stats_t_cdf(double t, double df);
double stats_t_upper(double t, double df);
double stats_t_quantile(double p, double df);

#endif
