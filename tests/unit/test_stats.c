#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>

#include "stats.h"
#include "strbuf.h"

#include <string.h>

#include "banned.h"

#define PI 3.14159265358979323846

static void assert_close(double got, double want, double rel)
{
	if (fabs(got - want) <= rel * fabs(want))
		return;
	fail_msg("got %.17g, want %.17g (relative tolerance %g)", got, want, rel);
}

static void summarize(struct stats_summary *out, const double *x, size_t n)
{
	struct stats_acc acc;

	stats_init(&acc);
	for (size_t i = 0; i < n; i++)
		stats_add(&acc, x[i]);
	stats_summarize(out, &acc);
}

static void test_stats_known_sample(void **state)
{
	/* Sum 40, mean 5; squared deviations 9+1+1+1+0+0+4+16 = 32; var 32/7. */
	static const double x[] = {2, 4, 4, 4, 5, 5, 7, 9};
	struct stats_summary s;

	(void)state;
	summarize(&s, x, 8);
	assert_int_equal(s.n, 8);
	assert_true(s.has_mean && s.has_std);
	assert_close(s.mean, 5.0, 1e-15);
	assert_close(s.std, 2.1380899352993950, 1e-14);
	/* t(0.975, 7) = 2.3646242510 from the tables; ci = t * std / sqrt(8). */
	assert_close(s.ci95, 2.3646242510 * 2.1380899352993950 / 2.8284271247461903, 1e-9);
}

static void test_stats_two_values(void **state)
{
	static const double x[] = {0.25, 0.75};
	struct stats_summary s;

	(void)state;
	summarize(&s, x, 2);
	assert_close(s.mean, 0.5, 1e-15);
	/* Deviations +-0.25: var = 0.125 / 1, std = sqrt(0.125). */
	assert_close(s.std, 0.35355339059327379, 1e-15);
	/* t(0.975, 1) = tan(0.475 pi) = 12.706204736174707. */
	assert_close(s.ci95, 12.706204736174707 * 0.35355339059327379 / 1.4142135623730951, 1e-12);
}

static void test_stats_one_sample_has_no_std(void **state)
{
	static const double x[] = {0.93};
	struct stats_summary s;

	(void)state;
	summarize(&s, x, 1);
	assert_int_equal(s.n, 1);
	assert_true(s.has_mean);
	assert_false(s.has_std);
	assert_true(s.mean == 0.93);
	assert_true(isnan(s.std));
	assert_true(isnan(s.ci95));
}

static void test_stats_no_sample(void **state)
{
	struct stats_summary s;

	(void)state;
	summarize(&s, NULL, 0);
	assert_int_equal(s.n, 0);
	assert_false(s.has_mean);
	assert_false(s.has_std);
	assert_true(isnan(s.mean));
	assert_true(isnan(s.std));
	assert_true(isnan(s.ci95));
}

static void test_stats_equal_values(void **state)
{
	static const double x[] = {0.1, 0.1, 0.1, 0.1, 0.1};
	struct stats_summary s;

	(void)state;
	summarize(&s, x, 5);
	assert_true(s.has_std);
	assert_true(s.mean == 0.1);
	assert_true(s.std == 0.0);
	assert_true(s.ci95 == 0.0);
}

static void test_stats_catastrophic_cancellation(void **state)
{
	/*
	 * 1e9 + {4, 7, 13, 16}: mean 1e9 + 10, squared deviations 36+9+9+36 =
	 * 90, var 30. The textbook sum-of-squares formula loses every digit here
	 * (sum x^2 is about 4e18, where doubles step by 512).
	 */
	static const double x[] = {1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16};
	/* 1e15 + {1, 2, 3}: mean 1e15 + 2, var 1. */
	static const double y[] = {1e15 + 1, 1e15 + 2, 1e15 + 3};
	struct stats_summary s;

	(void)state;
	summarize(&s, x, 4);
	assert_true(s.mean == 1e9 + 10);
	assert_close(s.std, sqrt(30.0), 1e-12);
	summarize(&s, y, 3);
	assert_true(s.mean == 1e15 + 2);
	assert_close(s.std, 1.0, 1e-12);
}

/*
 * Finite values of any size: the figures are those of
 * tests/data/stats/expected.py (run it with /usr/bin/python3), computed
 * exactly with fractions.Fraction and rounded once, checked against
 * statistics.mean and statistics.stdev; t(0.975, n - 1) for the CI in
 * closed form for n = 2 and 3, from scipy.stats.t.ppf beyond. Before the values were scaled,
 * {1e170, 10} gave an infinite std, {1e308, -1e308} a NaN mean and 1e-300 a std of 0.
 */
static void test_stats_edges(void **state)
{
	static const struct {
		const char *what;
		double x[5];
		size_t n;
		double mean, std, ci95; /* ci95 INFINITY: the half-width is past DBL_MAX */
	} cases[] = {
	    {"huge and ten",
	     {1e170, 10},
	     2,
	     5e+169,
	     7.071067811865476e+169,
	     6.353102368087349e+170},
	    {"opposite 1e308", {1e308, -1e308}, 2, 0.0, 1.4142135623730951e+308, INFINITY},
	    {"1e-300 scale",
	     {1e-300, 2e-300, 3e-300, 4e-300},
	     4,
	     2.5e-300,
	     1.2909944487358057e-300,
	     2.0542602567608794e-300},
	    {"huge and tiny",
	     {1e300, 1e-300, 3e300, -1e-300, 2e300},
	     5,
	     1.2e+300,
	     1.3038404810405299e+300,
	     1.6189317847087063e+300},
	    {"ordinary", {0.4, 0.5, 0.6}, 3, 0.5, 0.09999999999999998, 0.24841377117503302},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct stats_summary s;

		summarize(&s, cases[i].x, cases[i].n);
		if (!isfinite(s.mean) || !isfinite(s.std))
			fail_msg("%s: mean %g, std %g", cases[i].what, s.mean, s.std);
		/* Within two units in the last place of the exact figure. */
		assert_close(s.mean, cases[i].mean, 4.5e-16);
		assert_close(s.std, cases[i].std, 4.5e-16);
		if (isinf(cases[i].ci95))
			assert_true(s.ci95 == INFINITY);
		else
			assert_close(s.ci95, cases[i].ci95, 1e-12);
	}
}

/* A 0 never sets the scale: 1e-300 after it keeps its digits. */
static void test_stats_zero_then_tiny(void **state)
{
	static const double x[] = {0, 1e-300, 2e-300};
	struct stats_summary s;

	(void)state;
	summarize(&s, x, 3);
	/* statistics.mean([0.0, 1e-300, 2e-300]), statistics.stdev(...). */
	assert_close(s.mean, 1e-300, 4.5e-16);
	assert_close(s.std, 1e-300, 4.5e-16);
}

static void test_stats_t_quantile_table(void **state)
{
	/* Two-sided 95% critical values from the standard tables. */
	static const struct {
		double df, t;
	} cases[] = {
	    {1, 12.7062}, {2, 4.3027},  {3, 3.1824},  {4, 2.7764},   {5, 2.5706},   {10, 2.2281},
	    {20, 2.0860}, {30, 2.0423}, {60, 2.0003}, {100, 1.9840}, {120, 1.9799}, {1000, 1.9623},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double t = stats_t_quantile(0.975, cases[i].df);

		if (fabs(t - cases[i].t) > 0.5e-4)
			fail_msg("t(0.975, %g) = %.6f, want %.4f", cases[i].df, t, cases[i].t);
	}
	/* Other levels, also to the tables' four decimals: t(0.995, 10), t(0.95, 5). */
	assert_true(fabs(stats_t_quantile(0.995, 10) - 3.1693) <= 0.5e-4);
	assert_true(fabs(stats_t_quantile(0.95, 5) - 2.0150) <= 0.5e-4);
	/* Large df tends to the normal quantile 1.959964. */
	assert_close(stats_t_quantile(0.975, 1e7), 1.959964, 1e-6);
}

static void test_stats_t_quantile_closed_forms(void **state)
{
	static const double ps[] = {0.6, 0.75, 0.9, 0.975, 0.995, 0.9995};

	(void)state;
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		double p = ps[i];

		/* df 1 is the Cauchy distribution: tan(pi (p - 1/2)). */
		assert_close(stats_t_quantile(p, 1), tan(PI * (p - 0.5)), 1e-10);
		/* df 2: (2p - 1) / sqrt(2 p (1 - p)). */
		assert_close(stats_t_quantile(p, 2), (2 * p - 1) / sqrt(2 * p * (1 - p)), 1e-10);
	}
}

static void test_stats_t_quantile_inverts_cdf(void **state)
{
	static const double ps[] = {0.001, 0.025, 0.3, 0.7, 0.975, 0.999};

	(void)state;
	for (double df = 1; df <= 1000; df = df < 10 ? df + 1 : df * 1.7) {
		for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
			double t = stats_t_quantile(ps[i], df);

			assert_close(stats_t_cdf(t, df), ps[i], 1e-10);
			/* Symmetry: t(1 - p) = -t(p). */
			assert_close(stats_t_quantile(1 - ps[i], df), -t, 1e-10);
		}
	}
}

static void test_stats_t_domain(void **state)
{
	(void)state;
	assert_true(stats_t_quantile(0.5, 7) == 0.0);
	assert_true(isnan(stats_t_quantile(0.0, 3)));
	assert_true(isnan(stats_t_quantile(1.0, 3)));
	assert_true(isnan(stats_t_quantile(0.975, 0)));
	assert_true(isnan(stats_t_quantile(NAN, 3)));
	assert_true(isnan(stats_t_cdf(1.0, -1)));
	assert_true(stats_t_cdf(0.0, 4) == 0.5);
	assert_close(stats_t_cdf(1.0, 1), 0.75, 1e-14);
	assert_close(stats_t_upper(1.0, 1), 0.25, 1e-14);
	assert_true(isnan(stats_t_upper(NAN, 3)));
}

/*
 * Numbers as papers print them: the std to 2 significant digits (3 when it
 * starts with a 1), the mean and the CI bounds to the same place.
 */
static void test_stats_print_rounding(void **state)
{
	static const struct {
		double mean, std;
		int digits;       /* --digits; 0 = the rule */
		const char *want; /* "mean ± std", or NULL: no place (std 0 or undefined) */
	} rows[] = {
	    {0.90823, 0.0197847, 0, "0.9082 ± 0.0198"},
	    {0.761716, 7.41171e-05, 0, "0.761716 ± 0.000074"},
	    {0.90812, 0.02513, 0, "0.908 ± 0.025"},
	    {0.5, 0.0996, 0, "0.50 ± 0.10"}, /* rounds up to a new digit */
	    {0.5, 0.0196, 0, "0.5000 ± 0.0196"},
	    {0.5, 0.01996, 0, "0.5000 ± 0.0200"},       /* starts with a 1 before rounding */
	    {-3.14159, 0.271, 0, "-3.14 ± 0.27"},       /* negative means */
	    {-0.001, 0.25, 0, "0.00 ± 0.25"},           /* never "-0.00" */
	    {1234567.0, 12345.0, 0, "1234600 ± 12300"}, /* 1e6 scale: to the hundreds */
	    {2345678.9, 45678.9, 0, "2346000 ± 46000"},
	    {1e6 + 0.5, 0.3, 0, "1000000.50 ± 0.30"},
	    {42.0, 1.0, 0, "42.00 ± 1.00"},
	    {42.0, 9.96, 0, "42 ± 10"},
	    {0.761716, 7.41171e-05, 4, "0.76171600 ± 0.00007412"}, /* --digits 4 */
	    {0.761716, 7.41171e-05, 1, "0.76172 ± 0.00007"},
	    /* The last bit does not decide: both stds start with a 1 at 15 digits. */
	    {0.5, 0.09999999999999998, 0, "0.500 ± 0.100"},
	    {0.5, 0.10000000000000009, 0, "0.500 ± 0.100"},
	    {0.5, 0.19999999999999996, 0, "0.50 ± 0.20"}, /* and 0.2 with a 2 */
	    {0.5, 0.20000000000000004, 0, "0.50 ± 0.20"},
	    /* Past 15 places either way: exponent notation, to the same place. */
	    {5e169, 7.071067811865476e169, 0, "5.0e+169 ± 7.1e+169"},
	    {9.96e169, 7.071067811865476e169, 0, "1.00e+170 ± 7.1e+169"},
	    {10.0, 7.071067811865476e169, 0, "0 ± 7.1e+169"},
	    {-4e167, 7.071067811865476e169, 0, "0 ± 7.1e+169"}, /* never "-0" */
	    {6e167, 7.071067811865476e169, 0, "1e+168 ± 7.1e+169"},
	    {0.0, 1.4142135623730951e308, 0, "0 ± 1.41e+308"},
	    {2.5e-300, 1.2909944487358057e-300, 0, "2.50e-300 ± 1.29e-300"},
	    {1e16, 3e15, 0, "10000000000000000 ± 3000000000000000"}, /* place 14: still fixed */
	    {5.0, 0.0, 0, NULL},                                     /* std 0 */
	    {5.0, NAN, 0, NULL},                                     /* n = 1: no std */
	    {5.0, -1.0, 0, NULL}, /* cannot happen; no place either */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct strbuf sb = STRBUF_INIT;
		int place;

		if (!stats_print_place(&place, rows[i].std, rows[i].digits)) {
			if (rows[i].want)
				fail_msg("row %zu: no place", i);
			continue;
		}
		if (!rows[i].want)
			fail_msg("row %zu: a place (%d) for std %g", i, place, rows[i].std);
		stats_format_at(&sb, rows[i].mean, place);
		strbuf_addstr(&sb, " ± ");
		stats_format_at(&sb, rows[i].std, place);
		if (strcmp(sb.buf, rows[i].want))
			fail_msg("row %zu: want '%s', got '%s'", i, rows[i].want, sb.buf);
		strbuf_release(&sb);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_stats_known_sample),
	    cmocka_unit_test(test_stats_two_values),
	    cmocka_unit_test(test_stats_one_sample_has_no_std),
	    cmocka_unit_test(test_stats_no_sample),
	    cmocka_unit_test(test_stats_equal_values),
	    cmocka_unit_test(test_stats_catastrophic_cancellation),
	    cmocka_unit_test(test_stats_edges),
	    cmocka_unit_test(test_stats_zero_then_tiny),
	    cmocka_unit_test(test_stats_t_quantile_table),
	    cmocka_unit_test(test_stats_t_quantile_closed_forms),
	    cmocka_unit_test(test_stats_t_quantile_inverts_cdf),
	    cmocka_unit_test(test_stats_t_domain),
	    cmocka_unit_test(test_stats_print_rounding),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
