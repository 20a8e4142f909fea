#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "compare.h"
#include "helpers.h"
#include "stats.h"

#include "banned.h"

#define MAXN 10

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

/*
 * Reference values computed independently with SciPy 1.10.1 (Debian 12's
 * python3-scipy): scipy.stats.ttest_ind(a, b, equal_var=False) for t and p,
 * and the Welch-Satterthwaite df from numpy.var(ddof=1).
 */
static const struct {
	const char *what;
	double a[MAXN];
	size_t na;
	double b[MAXN];
	size_t nb;
	double t, df, p;
} welch_cases[] = {
    {"unequal n, unequal variance",
     {0.91, 0.93, 0.92, 0.95, 0.90},
     5,
     {0.88, 0.93, 0.85, 0.90, 0.80, 0.87, 0.89},
     7,
     2.683387413451833,
     8.970599132082834,
     0.025136629133816642},
    {"equal n, close means",
     {1, 2, 3, 4, 5},
     5,
     {1.5, 2.5, 3.5, 4.5, 5.5},
     5,
     -0.5,
     8.0,
     0.6305360755569764},
    {"large difference",
     {10.1, 10.3, 10.2, 10.4},
     4,
     {9.0, 9.1, 8.9, 9.2},
     4,
     13.14534138012398,
     6.000000000000001,
     1.1960339186920822e-05},
    {"n = 2 against n = 6",
     {0.5, 0.7},
     2,
     {0.1, 0.2, 0.15, 0.12, 0.18, 0.11},
     6,
     4.505993892652665,
     1.054802176043573,
     0.12925953480233596},
    {"one side without variance",
     {3, 3, 3},
     3,
     {2.0, 2.5, 3.5, 2.8},
     4,
     0.9566892062149205,
     3.0,
     0.40930161707370455},
    {"identical samples", {0.1, 0.2, 0.3}, 3, {0.1, 0.2, 0.3}, 3, 0.0, 4.0, 1.0},
    {"tiny p",
     {100.0, 100.1, 100.2, 100.1, 100.0, 100.2, 100.1, 100.0},
     8,
     {90.0, 90.2, 90.1, 90.0, 90.2, 90.1, 90.0, 90.1},
     8,
     239.65787580610916,
     14.0,
     1.0691658854934907e-26},
};

static void test_compare_welch_against_scipy(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(welch_cases) / sizeof(welch_cases[0]); i++) {
		struct stats_summary a, b;
		struct welch w;

		summarize(&a, welch_cases[i].a, welch_cases[i].na);
		summarize(&b, welch_cases[i].b, welch_cases[i].nb);
		compare_welch(&w, &a, &b);
		if (!w.defined)
			fail_msg("%s: undefined", welch_cases[i].what);
		if (welch_cases[i].t == 0.0)
			assert_true(fabs(w.t) < 1e-12);
		else
			assert_close(w.t, welch_cases[i].t, 1e-9);
		assert_close(w.df, welch_cases[i].df, 1e-9);
		/* The sample sums round differently from numpy's: 1e-8 relative. */
		assert_close(w.p, welch_cases[i].p, 1e-8);
	}
}

/*
 * Welch's test at the edges of the doubles, from tests/data/stats/expected.py
 * (/usr/bin/python3): t and df exact with fractions.Fraction, rounded once;
 * equal stds and two values a side make df exactly 2, where the two-sided
 * p is 1 - |t| / sqrt(2 + t^2), computed with decimal. Before the stds were
 * scaled, the squares overflowed (1e308) or underflowed (1e-300) and the
 * means' difference overflowed (1.25e308 against -1.25e308).
 */
static void test_compare_welch_edges(void **state)
{
	static const struct {
		const char *what;
		double a[2], b[2];
		double t, p;
	} cases[] = {
	    {"stds near 1e308",
	     {1e308, 5e307},
	     {-5e307, -1e308},
	     4.242640687119285,
	     0.0513167019494862},
	    {"means' difference past DBL_MAX",
	     {1.5e308, 1e308},
	     {-1e308, -1.5e308},
	     7.0710678118654755,
	     0.01941932430907984},
	    {"1e-300 scale",
	     {3e-300, 1e-300},
	     {-1e-300, -3e-300},
	     2.82842712474619,
	     0.10557280900008413},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct stats_summary a, b;
		struct welch w;

		summarize(&a, cases[i].a, 2);
		summarize(&b, cases[i].b, 2);
		compare_welch(&w, &a, &b);
		if (!w.defined || !isfinite(w.t) || !isfinite(w.p))
			fail_msg("%s: t %g, df %g, p %g", cases[i].what, w.t, w.df, w.p);
		assert_close(w.t, cases[i].t, 1e-15);
		assert_close(w.df, 2.0, 1e-15);
		assert_close(w.p, cases[i].p, 1e-12);
	}
}

static void test_compare_welch_symmetric(void **state)
{
	struct stats_summary a, b;
	struct welch ab, ba;

	(void)state;
	summarize(&a, welch_cases[0].a, welch_cases[0].na);
	summarize(&b, welch_cases[0].b, welch_cases[0].nb);
	compare_welch(&ab, &a, &b);
	compare_welch(&ba, &b, &a);
	assert_true(ab.t == -ba.t);
	assert_true(ab.p == ba.p);
	assert_true(ab.df == ba.df);
}

static void test_compare_welch_undefined(void **state)
{
	static const double one[] = {0.9}, two[] = {0.8, 0.85}, flat[] = {0.5, 0.5, 0.5},
	                    flat2[] = {0.7, 0.7};
	struct stats_summary a, b, c, d, none;
	struct welch w;

	(void)state;
	summarize(&a, one, 1);
	summarize(&b, two, 2);
	summarize(&c, flat, 3);
	summarize(&d, flat2, 2);
	summarize(&none, NULL, 0);
	compare_welch(&w, &a, &b); /* n = 1 */
	assert_false(w.defined);
	assert_true(isnan(w.p) && isnan(w.t) && isnan(w.df));
	compare_welch(&w, &b, &none); /* n = 0 */
	assert_false(w.defined);
	compare_welch(&w, &c, &d); /* zero variance on both sides */
	assert_false(w.defined);
	assert_true(isnan(w.p));
	compare_welch(&w, &c, &b); /* zero on one side only is defined */
	assert_true(w.defined);
}

static void test_compare_holm(void **state)
{
	/*
	 * By hand: sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 = 0.02,
	 * 0.03, 0.06, 0.04; the running maximum makes the last 0.06.
	 */
	static const double p[] = {0.01, 0.04, NAN, 0.03, 0.005};
	static const double want[] = {0.03, 0.06, NAN, 0.06, 0.02};
	/* Capped at 1: 0.4 x 3 = 1.2. */
	static const double q[] = {0.4, 0.5, 0.6}, wantq[] = {1, 1, 1};
	double adj[5];

	(void)state;
	compare_holm(adj, p, 5);
	for (size_t i = 0; i < 5; i++) {
		if (isnan(want[i]))
			assert_true(isnan(adj[i]));
		else
			assert_close(adj[i], want[i], 1e-12);
	}
	compare_holm(adj, q, 3);
	for (size_t i = 0; i < 3; i++)
		assert_close(adj[i], wantq[i], 0);
	/* In place, and an empty family. */
	memcpy(adj, p, sizeof(p));
	compare_holm(adj, adj, 5);
	assert_close(adj[1], 0.06, 1e-12);
	compare_holm(adj, NULL, 0);
}

/* Three settings of five seeds: a clearly best, b close to it, c far below. */
static void test_compare_metric_marks(void **state)
{
	static const double a[] = {0.91, 0.92, 0.93, 0.92, 0.91};
	static const double b[] = {0.90, 0.93, 0.92, 0.91, 0.92};
	static const double c[] = {0.70, 0.72, 0.71, 0.69, 0.73};
	struct stats_summary st[3];
	struct compare_entry e[3];
	struct welch wb, wc;

	(void)state;
	summarize(&st[0], a, 5);
	summarize(&st[1], b, 5);
	summarize(&st[2], c, 5);
	assert_int_equal(compare_metric(e, st, 3, 1, GOAL_MAX), 0);
	assert_true(e[0].best && !e[1].best && !e[2].best);
	assert_false(e[0].has_p);
	assert_true(isnan(e[0].p));
	compare_welch(&wb, &st[1], &st[0]);
	compare_welch(&wc, &st[2], &st[0]);
	assert_true(e[1].has_p && e[2].has_p);
	assert_true(e[1].p == wb.p && e[2].p == wc.p);
	/* Holm over two: the smaller doubled, the larger as is (or the max). */
	assert_close(e[2].p_holm, 2 * wc.p, 1e-12);
	assert_close(e[1].p_holm, fmax(wb.p, 2 * wc.p), 1e-12);
	assert_false(e[1].significant);
	assert_true(e[2].significant);

	/* The other goal: c is best, a and b both far from it. */
	assert_int_equal(compare_metric(e, st, 3, 1, GOAL_MIN), 2);
	assert_true(e[2].best && !e[0].best);
	assert_true(e[0].significant && e[1].significant);

	/* No goal: nothing best, nothing compared. */
	assert_int_equal(compare_metric(e, st, 3, 1, GOAL_NONE), 3);
	for (size_t s = 0; s < 3; s++)
		assert_true(!e[s].best && !e[s].has_p && !e[s].significant);
}

static void test_compare_metric_ties_and_gaps(void **state)
{
	static const double a[] = {1, 2, 3}, b[] = {3, 2, 1}, c[] = {0, 1}, one[] = {5};
	/* Interleaved with another metric: stride 2. */
	struct stats_summary st[8];
	struct compare_entry e[4];

	(void)state;
	summarize(&st[0], a, 3);
	summarize(&st[2], c, 2);
	summarize(&st[4], b, 3);
	summarize(&st[6], NULL, 0);
	for (size_t s = 1; s < 8; s += 2)
		summarize(&st[s], one, 1);
	/* a and b tie at mean 2: both best, the first the reference. */
	assert_int_equal(compare_metric(e, st, 4, 2, GOAL_MAX), 0);
	assert_true(e[0].best && e[2].best);
	assert_false(e[1].best || e[3].best);
	assert_false(e[2].has_p);
	assert_true(e[1].has_p);
	assert_false(e[3].has_p); /* no seed passed: no mean, no p */
	/* The other metric: one seed each, every mean 5: all best, none compared. */
	assert_int_equal(compare_metric(e, st + 1, 4, 2, GOAL_MIN), 0);
	for (size_t s = 0; s < 4; s++)
		assert_true(e[s].best && !e[s].has_p);
	/* Nothing with a mean: no best. */
	assert_int_equal(compare_metric(e, st + 6, 1, 2, GOAL_MAX), 1);
	assert_false(e[0].best);
}

static void test_compare_goal_names(void **state)
{
	enum compare_goal g = GOAL_NONE;

	(void)state;
	assert_int_equal(compare_goal_parse(&g, "max"), 0);
	assert_int_equal(g, GOAL_MAX);
	assert_int_equal(compare_goal_parse(&g, "min"), 0);
	assert_int_equal(g, GOAL_MIN);
	assert_int_equal(compare_goal_parse(&g, "maximum"), -1);
	assert_int_equal(compare_goal_parse(&g, ""), -1);
	assert_string_equal(compare_goal_name(GOAL_MAX), "max");
	assert_string_equal(compare_goal_name(GOAL_NONE), "none");
}

/* A goal for a metric that is not reported is an error naming those that are. */
static void test_compare_goals_check(void **state)
{
	char *metrics[] = {"acc", "loss"};
	struct compare_goals g;

	(void)state;
	compare_goals_init(&g);
	assert_int_equal(compare_goals_parse(&g, "acc=max,loss=min"), 0);
	assert_int_equal(compare_goals_check(&g, metrics, 2), 0);
	assert_int_equal(compare_goals_parse(&g, "nosuch=max"), 0);
	capture_errors();
	assert_true(compare_goals_check(&g, metrics, 2) < 0);
	assert_string_equal(captured.buf, "error: --goal 'nosuch': no metric 'nosuch' is "
	                                  "reported; the metrics are 'acc', 'loss'");
	strbuf_reset(&captured);
	assert_true(compare_goals_check(&g, NULL, 0) < 0);
	assert_string_equal(captured.buf,
	                    "error: --goal 'acc': no metric 'acc' is reported; there are no metrics");
	release_captured();
	compare_goals_release(&g);
}

static void test_compare_goals_parse(void **state)
{
	static const struct {
		const char *text, *message;
	} bad[] = {
	    {"accuracy",
	     "error: bad goal 'accuracy' in 'accuracy': write METRIC=max or METRIC=min"},
	    {"=max", "error: bad goal '=max' in '=max': write METRIC=max or METRIC=min"},
	    {"loss=min,", "error: bad goal '' in 'loss=min,': write METRIC=max or METRIC=min"},
	    {"acc=high", "error: bad goal 'acc=high' in 'acc=high': the goal is max or min, not "
	                 "'high'"},
	    {"", "error: bad goal '' in '': write METRIC=max or METRIC=min"},
	};
	struct compare_goals g;

	(void)state;
	compare_goals_init(&g);
	assert_int_equal(compare_goals_parse(&g, "accuracy=max,loss=min"), 0);
	assert_int_equal(g.n, 2);
	assert_int_equal(compare_goals_get(&g, "accuracy"), GOAL_MAX);
	assert_int_equal(compare_goals_get(&g, "loss"), GOAL_MIN);
	assert_int_equal(compare_goals_get(&g, "time"), GOAL_NONE);
	/* A later goal for the same metric replaces the earlier. */
	assert_int_equal(compare_goals_parse(&g, "loss=max"), 0);
	assert_int_equal(g.n, 2);
	assert_int_equal(compare_goals_get(&g, "loss"), GOAL_MAX);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		capture_errors();
		assert_true(compare_goals_parse(&g, bad[i].text) < 0);
		assert_string_equal(captured.buf, bad[i].message);
	}
	release_captured();
	compare_goals_release(&g);
	compare_goals_release(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_compare_welch_against_scipy),
	    cmocka_unit_test(test_compare_welch_edges),
	    cmocka_unit_test(test_compare_welch_symmetric),
	    cmocka_unit_test(test_compare_welch_undefined),
	    cmocka_unit_test(test_compare_holm),
	    cmocka_unit_test(test_compare_metric_marks),
	    cmocka_unit_test(test_compare_metric_ties_and_gaps),
	    cmocka_unit_test(test_compare_goal_names),
	    cmocka_unit_test(test_compare_goals_parse),
	    cmocka_unit_test(test_compare_goals_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
