/*
 * Checkpoint advice: the closed form against hand-computed values and
 * against its own Monte Carlo simulation, where the optimum lies, duration
 * parsing, the MTBF from hand-built accounting records, and the JSON keys
 * scripts rely on.
 */
#include "advise.h"
#include "advise_print.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>
#include <math.h>

#include "cli.h"
#include "error.h"
#include "strbuf.h"

#include "banned.h"

#define MIN  60.0
#define HOUR 3600.0

static void assert_close(double got, double want, double rel)
{
	if (fabs(got - want) <= rel * fabs(want))
		return;
	fail_msg("got %.17g, want %.17g (relative tolerance %g)", got, want, rel);
}

/* Work 10h, checkpoint 3m, restart 6m, MTBF 8h: the example of the README. */
static const struct advise_params example = {10 * HOUR, 3 * MIN, 6 * MIN, 8 * HOUR};

static void test_advise_split(void **state)
{
	static const struct {
		double work, interval;
		uint64_t checkpoints;
		double last;
	} cases[] = {
	    {10 * HOUR, 3 * HOUR, 3, 1 * HOUR},           /* 3h 3h 3h | 1h */
	    {10 * HOUR, 2.5 * HOUR, 3, 2.5 * HOUR},       /* equal segments: the 4th ends the job */
	    {10 * HOUR, 10 * HOUR / 3, 2, 10 * HOUR / 3}, /* equal, with rounding in the division */
	    {10 * HOUR, 10 * HOUR, 0, 10 * HOUR}, /* the interval is the work: no checkpoint */
	    {10 * HOUR, 40 * HOUR, 0, 10 * HOUR},
	    {10 * HOUR, 0, 0, 10 * HOUR}, /* 0: no checkpoint */
	    {10 * HOUR, 9 * HOUR, 1, 1 * HOUR},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct advise_segments seg;

		advise_split(&seg, cases[i].work, cases[i].interval);
		if (seg.checkpoints != cases[i].checkpoints)
			fail_msg("case %zu: %llu checkpoints, want %llu", i,
			         (unsigned long long)seg.checkpoints,
			         (unsigned long long)cases[i].checkpoints);
		assert_close(seg.last_s, cases[i].last, 1e-9);
	}
}

static void test_advise_formula(void **state)
{
	struct advise_params p = example;

	(void)state;
	/* (M + R) (n exp((tau + C)/M) - n + exp(last/M) - 1), computed apart with Python. */
	assert_close(advise_expected(&p, 1 * HOUR), 40690.5560550192, 1e-12);
	assert_close(advise_expected(&p, 2.5 * HOUR), 43537.6363465793, 1e-12);
	assert_close(advise_expected(&p, 4 * HOUR), 46718.4464762024, 1e-12);
	assert_close(advise_expected(&p, 0), 72618.4006395873, 1e-12);
	/* At or beyond the work, an interval is no checkpoint at all. */
	assert_close(advise_expected(&p, 10 * HOUR), advise_expected(&p, 0), 1e-15);
	assert_close(advise_expected(&p, 50 * HOUR), advise_expected(&p, 0), 1e-15);

	/* Without failures (a huge MTBF) the job takes its work plus its checkpoints. */
	p.mtbf_s = 1e15;
	assert_close(advise_expected(&p, 1 * HOUR), 10 * HOUR + 9 * 3 * MIN, 1e-6);
	/* One segment, no restart cost: M (exp(W/M) - 1). */
	p = example;
	p.restart_s = 0;
	assert_close(advise_expected(&p, 0), 8 * HOUR * expm1(10.0 / 8), 1e-14);
	/* Hopeless jobs are infinite, not NaN. */
	p.work_s = 1e6 * HOUR;
	p.mtbf_s = 1;
	assert_true(isinf(advise_expected(&p, 0)));
}

static void test_advise_young_and_daly(void **state)
{
	(void)state;
	/* sqrt(2 x 180 x 28800) = 3219.94 s: 53m 40s. */
	assert_close(advise_young(3 * MIN, 8 * HOUR), 3219.937887599697, 1e-14);
	assert_close(advise_daly(3 * MIN, 8 * HOUR), 3101.0559215884473, 1e-13);
	/* Daly's estimate is M once the checkpoint costs 2M or more. */
	assert_close(advise_daly(3 * HOUR, 1 * HOUR), 1 * HOUR, 1e-15);
	/* When C << M, both agree. */
	assert_close(advise_daly(1, 1e6), advise_young(1, 1e6), 1e-3);
}

/* MC and closed form agree within 4 standard errors; the SE is small. */
static void test_advise_mc_matches_closed_form(void **state)
{
	static const struct {
		struct advise_params p;
		double interval;
	} cases[] = {
	    {{10 * HOUR, 3 * MIN, 6 * MIN, 8 * HOUR}, 3219.94},    /* the example at Young's */
	    {{10 * HOUR, 3 * MIN, 6 * MIN, 8 * HOUR}, 0},          /* no checkpoint */
	    {{10 * HOUR, 3 * MIN, 6 * MIN, 8 * HOUR}, 2.5 * HOUR}, /* equal segments */
	    {{10 * HOUR, 3 * MIN, 6 * MIN, 8 * HOUR}, 3 * HOUR},   /* a short last one */
	    {{24 * HOUR, 10 * MIN, 0, 2 * HOUR}, 40 * MIN},        /* frequent failures, R = 0 */
	    {{5 * HOUR, 30 * MIN, 1 * HOUR, 1 * HOUR}, 20 * MIN},  /* C comparable to M */
	    {{2 * HOUR, 1 * MIN, 5 * MIN, 30 * MIN}, 0},           /* no checkpoint, e^4 attempts */
	    {{100 * HOUR, 1 * MIN, 2 * MIN, 50 * HOUR}, 2 * HOUR}, /* rare failures */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct advise_params *p = &cases[i].p;
		double want = advise_expected(p, cases[i].interval);
		struct advise_mc mc;

		advise_simulate(&mc, p, cases[i].interval, ADVISE_MC_RUNS, 42 + i);
		assert_true(mc.done);
		assert_true(mc.runs >= 1000);
		if (fabs(mc.mean_s - want) > 4 * mc.se_s)
			fail_msg("case %zu: MC %.1f +- %.1f, closed form %.1f (%.1f SE apart)", i,
			         mc.mean_s, mc.se_s, want, fabs(mc.mean_s - want) / mc.se_s);
		/* Enough runs that the estimate means something: SE under 1% of the mean. */
		assert_true(mc.se_s < 0.01 * want);
	}
}

static void test_advise_mc_is_seeded(void **state)
{
	struct advise_mc a, b, c;

	(void)state;
	advise_simulate(&a, &example, 3219.94, ADVISE_MC_RUNS, 7);
	advise_simulate(&b, &example, 3219.94, ADVISE_MC_RUNS, 7);
	advise_simulate(&c, &example, 3219.94, ADVISE_MC_RUNS, 8);
	assert_true(a.done && b.done && c.done);
	assert_int_equal(a.runs, ADVISE_MC_RUNS);
	assert_true(a.mean_s == b.mean_s && a.se_s == b.se_s);
	assert_true(a.mean_s != c.mean_s);
}

static void test_advise_mc_gives_up_on_hopeless_jobs(void **state)
{
	/* 100 days of work against an MTBF of an hour, no checkpoint: exp(2400) attempts. */
	struct advise_params p = {100 * 24 * HOUR, 1 * MIN, 0, 1 * HOUR};
	struct advise_mc mc;

	(void)state;
	advise_simulate(&mc, &p, 0, ADVISE_MC_RUNS, 1);
	assert_false(mc.done);
	assert_int_equal(mc.runs, 0);
	/* With checkpoints it is an ordinary job again (fewer runs within the budget). */
	advise_simulate(&mc, &p, advise_young(p.cost_s, p.mtbf_s), ADVISE_MC_RUNS, 1);
	assert_true(mc.done);
}

/* The best interval in a fine grid of the closed form is near Young's when C << M. */
static void test_advise_optimum_near_young(void **state)
{
	static const struct advise_params cases[] = {
	    {1000 * 24 * HOUR, 1 * MIN, 5 * MIN, 24 * HOUR},
	    {1000 * 24 * HOUR, 3 * MIN, 0, 8 * HOUR},
	    {1000 * 24 * HOUR, 10, 1 * MIN, 4 * HOUR},
	    {36500 * 24 * HOUR, 0.001, 0, 1 * MIN}, /* ten billion segments */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct advise_params *p = &cases[i];
		double young = advise_young(p->cost_s, p->mtbf_s), best_tau = 0, best = INFINITY;
		uint64_t n;

		for (double f = 0.2; f <= 5; f += 0.001) {
			double e = advise_expected(p, f * young);

			if (e < best) {
				best = e;
				best_tau = f * young;
			}
		}
		/* Young's is first order in sqrt(C/M): within a few percent here. */
		if (fabs(best_tau / young - 1) > 0.05)
			fail_msg("case %zu: grid optimum %.1f s, Young %.1f s", i, best_tau, young);
		/* The exact search finds at least as good an interval as the grid (to rounding). */
		assert_true(advise_expected(p, advise_best_interval(p, &n)) <= best * (1 + 1e-10));
		assert_close(advise_best_interval(p, NULL), best_tau, 0.01);
	}
}

static void test_advise_best_interval(void **state)
{
	struct advise_params p = example;
	uint64_t n;
	double best = advise_best_interval(&p, &n), e = advise_expected(&p, best);

	(void)state;
	/* Equal segments: work / n. */
	assert_close(best * (double)n, p.work_s, 1e-12);
	for (double tau = 60; tau <= 12 * HOUR; tau += 1)
		if (advise_expected(&p, tau) < e * (1 - 1e-12))
			fail_msg("interval %.0f s beats the best %.1f s", tau, best);
	/* A job much shorter than the MTBF is best without any checkpoint. */
	p.work_s = 1 * MIN;
	assert_true(advise_best_interval(&p, &n) == 0);
	assert_int_equal(n, 1);
}

static void test_advise_parse_duration(void **state)
{
	static const struct {
		const char *in;
		double seconds;
	} good[] = {
	    {"3m", 180},
	    {"90s", 90},
	    {"8h", 8 * HOUR},
	    {"2d", 2 * 86400},
	    {"1h30m", 5400},
	    {"1.5h", 5400},
	    {"0", 0},
	    {"0s", 0},
	    {".5m", 30},
	    {"1d2h3m4s", 93784},
	    {"36500d", 36500.0 * 86400},
	    {"0.25s", 0.25},
	};
	static const struct {
		const char *in, *why;
	} bad[] = {
	    {"", "empty duration"},
	    {"90", "a number needs a unit: s, m, h or d (as in 90s, 3m or 1.5h)"},
	    {"1.5", "a number needs a unit: s, m, h or d (as in 90s, 3m or 1.5h)"},
	    {"1h30", "the last number has no unit (s, m, h or d)"},
	    {"3M", "unknown unit: use d, h, m or s (lower case)"},
	    {"3y", "unknown unit: use d, h, m or s (lower case)"},
	    {"1e3s", "unknown unit: use d, h, m or s (lower case)"},
	    {"30m1h", "units go from the largest to the smallest, each once (as in 1h30m)"},
	    {"1h1h", "units go from the largest to the smallest, each once (as in 1h30m)"},
	    {"-3m", "a duration has no sign"},
	    {"+3m", "a duration has no sign"},
	    {"3 m", "unknown unit: use d, h, m or s (lower case)"},
	    {" 3m", "expected a number and a unit, as in 3m, 90s, 1.5h or 1h30m"},
	    {"h", "expected a number and a unit, as in 3m, 90s, 1.5h or 1h30m"},
	    {"1.h", "expected a number and a unit, as in 3m, 90s, 1.5h or 1h30m"},
	    {"1234567890123s", "expected a number and a unit, as in 3m, 90s, 1.5h or 1h30m"},
	    {"36600d", "longer than 100 years"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		double s = -1;
		const char *why = NULL;

		if (advise_parse_duration(&s, good[i].in, &why) < 0)
			fail_msg("'%s' refused: %s", good[i].in, why);
		if (fabs(s - good[i].seconds) > 1e-9)
			fail_msg("'%s': %.17g s, want %.17g", good[i].in, s, good[i].seconds);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		double s = -1;
		const char *why = NULL;

		if (advise_parse_duration(&s, bad[i].in, &why) == 0)
			fail_msg("'%s' accepted as %g s", bad[i].in, s);
		assert_non_null(why);
		if (strcmp(why, bad[i].why))
			fail_msg("'%s': \"%s\", want \"%s\"", bad[i].in, why, bad[i].why);
		assert_true(s == -1);
	}
}

static struct acct_rec *add_run(struct acct_set *set, uint32_t job, uint32_t task,
                                enum task_state st, int64_t start, uint64_t elapsed)
{
	struct acct_rec *rec = acct_set_add(set);

	rec->array_job_id = job;
	rec->array_task_id = task;
	rec->job_id = job + task + 1;
	rec->state = st;
	rec->submit_time = 1000;
	rec->start_time = start;
	rec->end_time = start ? start + (int64_t)elapsed : 0;
	rec->elapsed_s = elapsed;
	return rec;
}

static void test_advise_mtbf_from_records(void **state)
{
	struct acct_set set;
	struct advise_mtbf m;
	struct acct_rec *pending;

	(void)state;
	acct_set_init(&set);
	/* Task 0: a node failure after 2h, then a complete run of 3h (listed first). */
	add_run(&set, 500, 0, TS_COMPLETED, 20000, 3 * 3600);
	add_run(&set, 500, 0, TS_NODE_FAIL, 10000, 2 * 3600);
	/* Task 1: requeued after 1h, then 4h to completion. */
	add_run(&set, 500, 1, TS_REQUEUED, 10000, 1 * 3600);
	add_run(&set, 500, 1, TS_COMPLETED, 15000, 4 * 3600);
	/* Task 2: preempted after 30m, its next run still pending (it has not run yet). */
	add_run(&set, 500, 2, TS_PREEMPTED, 10000, 1800);
	add_run(&set, 500, 2, TS_PENDING, 0, 0);
	/* Task 3: hit its time limit after 5h: not an interruption. */
	add_run(&set, 500, 3, TS_TIMEOUT, 10000, 5 * 3600);
	/* Task 4: an earlier run that failed and was requeued counts; the last FAILED does not. */
	add_run(&set, 500, 4, TS_FAILED, 10000, 600);
	add_run(&set, 500, 4, TS_FAILED, 12000, 600);
	/* Task 0 of a resubmission (another array job) completed in 3h: not a requeue. */
	add_run(&set, 600, 0, TS_COMPLETED, 30000, 3 * 3600);
	/* The pending record of not-yet-started tasks is not a run. */
	pending = add_run(&set, 600, ACCT_NO_TASK, TS_PENDING, 0, 0);
	pending->pending_tasks = xstrdup("1-3");

	advise_estimate_mtbf(&m, &set);
	/* 3h + 2h + 1h + 4h + 30m + 5h + 10m + 10m + 3h = 18h 50m. */
	assert_close(m.run_s, 18 * 3600 + 50 * 60, 1e-15);
	assert_int_equal(m.runs, 9);
	assert_int_equal(m.interruptions, 4);
	assert_int_equal(m.by_state[TS_NODE_FAIL], 1);
	assert_int_equal(m.by_state[TS_REQUEUED], 1);
	assert_int_equal(m.by_state[TS_PREEMPTED], 1);
	assert_int_equal(m.by_state[TS_FAILED], 1);
	assert_int_equal(m.by_state[TS_TIMEOUT], 0);
	assert_int_equal(m.timeouts, 1);
	assert_true(m.has_estimate);
	assert_close(m.mtbf_s, (18 * 3600 + 50 * 60) / 4.0, 1e-15);
	acct_set_release(&set);
}

static void test_advise_mtbf_no_interruptions(void **state)
{
	struct acct_set set;
	struct advise_mtbf m;

	(void)state;
	acct_set_init(&set);
	add_run(&set, 700, 0, TS_COMPLETED, 100, 3600);
	add_run(&set, 700, 1, TS_COMPLETED, 100, 7200);
	add_run(&set, 700, 2, TS_RUNNING, 100, 1800);
	add_run(&set, 700, 3, TS_TIMEOUT, 100, 3600);
	advise_estimate_mtbf(&m, &set);
	assert_int_equal(m.interruptions, 0);
	assert_int_equal(m.runs, 4);
	assert_close(m.run_s, 4.5 * 3600, 1e-15);
	assert_false(m.has_estimate);
	assert_true(m.mtbf_s == 0);
	acct_set_release(&set);

	/* And no records at all. */
	acct_set_init(&set);
	advise_estimate_mtbf(&m, &set);
	assert_int_equal(m.runs, 0);
	assert_false(m.has_estimate);
	acct_set_release(&set);
}

/* Prints r as JSON and parses it back; the caller json_decref()s. */
static json_t *json_of(const struct advise_report *r)
{
	FILE *f = tmpfile();
	json_error_t err;
	json_t *root;

	assert_non_null(f);
	advise_print_json(f, r);
	rewind(f);
	root = json_loadf(f, 0, &err);
	if (!root)
		fail_msg("the JSON does not parse: %s (line %d)", err.text, err.line);
	fclose(f);
	return root;
}

/*
 * The text table: headings in one row, OVERHEAD right-aligned (every row's
 * '%' under the heading's last letter), no line ending in a blank.
 */
static void test_advise_text_table(void **state)
{
	struct advise_report r;
	char *buf = NULL, *line, *save = NULL;
	size_t len = 0, end = 0, rows = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	advise_report_init(&r);
	r.params = example;
	advise_build(&r);
	advise_print_text(f, &r);
	fclose(f);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t n = strlen(line);
		const char *pct;

		if (n && line[n - 1] == ' ')
			fail_msg("a line ends in a blank: '%s'", line);
		if (!strncmp(line, "INTERVAL  x YOUNG  CHECKPOINTS  EXPECTED  ", 42)) {
			end = (size_t)(strstr(line, "OVERHEAD") - line) + strlen("OVERHEAD");
			continue;
		}
		if (!end || !(pct = strchr(line, '%')))
			continue;
		assert_int_equal((size_t)(pct - line) + 1, end);
		rows++;
	}
	assert_int_equal(rows, 9);
	free(buf);
	advise_report_release(&r);
}

static void test_advise_json_keys(void **state)
{
	static const char *const top[] = {
	    "work_s",  "cost_s", "restart_s",          "mtbf_s", "mtbf_source", "interruptions",
	    "young_s", "daly_s", "optimum_interval_s", "seed",   "rows"};
	static const char *const row_keys[] = {"interval_s",  "factor",     "label",
	                                       "checkpoints", "expected_s", "mc_mean_s",
	                                       "mc_se_s",     "mc_runs",    "overhead"};
	struct advise_report r;
	json_t *root, *rows, *row;
	size_t i;
	int young_rows = 0, none_rows = 0;

	(void)state;
	advise_report_init(&r);
	r.params = example;
	advise_build(&r);
	root = json_of(&r);
	for (i = 0; i < sizeof(top) / sizeof(top[0]); i++)
		if (!json_object_get(root, top[i]))
			fail_msg("no key '%s'", top[i]);
	assert_string_equal(json_string_value(json_object_get(root, "mtbf_source")), "given");
	assert_true(json_is_null(json_object_get(root, "interruptions")));
	assert_close(json_real_value(json_object_get(root, "young_s")), 3219.937887599697, 1e-12);
	assert_close(json_real_value(json_object_get(root, "mtbf_s")), 8 * HOUR, 1e-15);
	assert_close(json_real_value(json_object_get(root, "optimum_interval_s")), r.best_s, 1e-12);
	rows = json_object_get(root, "rows");
	assert_true(json_is_array(rows));
	/* 7 multiples of Young's, the best for the job, no checkpoint. */
	assert_int_equal(json_array_size(rows), 9);
	for (i = 0; i < json_array_size(rows); i++) {
		const char *label;

		row = json_array_get(rows, i);
		label = json_string_value(json_object_get(row, "label"));
		for (size_t k = 0; k < sizeof(row_keys) / sizeof(row_keys[0]); k++)
			if (!json_object_get(row, row_keys[k]))
				fail_msg("row %zu has no key '%s'", i, row_keys[k]);
		assert_true(json_is_number(json_object_get(row, "expected_s")));
		assert_true(json_is_number(json_object_get(row, "mc_mean_s")));
		assert_true(json_is_number(json_object_get(row, "mc_se_s")));
		if (label && !strcmp(label, "Young")) {
			young_rows++;
			assert_close(json_real_value(json_object_get(row, "interval_s")),
			             3219.937887599697, 1e-12);
		}
		if (label && !strcmp(label, "none")) {
			none_rows++;
			assert_true(json_is_null(json_object_get(row, "interval_s")));
			assert_close(json_real_value(json_object_get(row, "expected_s")),
			             72618.4006395873, 1e-12);
		}
	}
	assert_int_equal(young_rows, 1);
	assert_int_equal(none_rows, 1);
	json_decref(root);
	advise_report_release(&r);
}

/* --from on a sweep without interruptions: a bound, no estimate, no table. */
static void test_advise_json_without_estimate(void **state)
{
	struct advise_report r;
	struct advise_mtbf m = {0};
	json_t *root;

	(void)state;
	m.runs = 12;
	m.run_s = 40 * HOUR;
	advise_report_init(&r);
	r.params = example;
	r.params.mtbf_s = 0;
	r.observed = &m;
	r.sweep = "lr";
	r.sweep_id = 3;
	advise_build(&r);
	assert_false(r.has_table);
	root = json_of(&r);
	assert_string_equal(json_string_value(json_object_get(root, "mtbf_source")), "sweep");
	assert_true(json_is_null(json_object_get(root, "mtbf_s")));
	assert_true(json_is_null(json_object_get(root, "young_s")));
	assert_true(json_is_null(json_object_get(root, "optimum_interval_s")));
	assert_int_equal(json_integer_value(json_object_get(root, "interruptions")), 0);
	assert_close(json_real_value(json_object_get(root, "mtbf_at_least_s")), 40 * HOUR, 1e-15);
	assert_int_equal(json_array_size(json_object_get(root, "rows")), 0);
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(root, "sweep"), "name")), "lr");
	json_decref(root);
	advise_report_release(&r);
}

static struct strbuf advise_errors = STRBUF_INIT;

static void keep_error(const char *kind, const char *msg)
{
	strbuf_addf(&advise_errors, "%s: %s\n", kind, msg);
}

/* A tiny --mtbf made every row "forever": it is refused, with the unit (issue 16.9). */
static void test_advise_tiny_mtbf_refused(void **state)
{
	char *argv[] = {"advise", "checkpoint", "--cost", "30s", "--mtbf", "0.0000001s", NULL};
	FILE *saved = stderr;

	(void)state;
	error_set_handler(keep_error);
	stderr = fopen("/dev/null", "w"); /* the usage text */
	assert_int_equal(cmd_advise(6, argv), EXIT_USAGE);
	fclose(stderr);
	stderr = saved;
	error_set_handler(NULL);
	assert_string_equal(advise_errors.buf,
	                    "error: --mtbf '0.0000001s' is less than 1s: give the mean time "
	                    "between interruptions of a running job, as in 12h or 3d\n");
	strbuf_release(&advise_errors);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_advise_split),
	    cmocka_unit_test(test_advise_formula),
	    cmocka_unit_test(test_advise_young_and_daly),
	    cmocka_unit_test(test_advise_mc_matches_closed_form),
	    cmocka_unit_test(test_advise_mc_is_seeded),
	    cmocka_unit_test(test_advise_mc_gives_up_on_hopeless_jobs),
	    cmocka_unit_test(test_advise_optimum_near_young),
	    cmocka_unit_test(test_advise_best_interval),
	    cmocka_unit_test(test_advise_parse_duration),
	    cmocka_unit_test(test_advise_mtbf_from_records),
	    cmocka_unit_test(test_advise_mtbf_no_interruptions),
	    cmocka_unit_test(test_advise_text_table),
	    cmocka_unit_test(test_advise_json_keys),
	    cmocka_unit_test(test_advise_json_without_estimate),
	    cmocka_unit_test(test_advise_tiny_mtbf_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
