#include "helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gate.h"
#include "plan.h"
#include "outcome.h"
#include "result.h"
#include "strbuf.h"

#include "banned.h"

/* One setting, one seed: one task, for the table of reasons. */
static const struct plan *fixture_plan1(void)
{
	static int64_t one_seed[] = {0};
	static struct plan plan;

	plan = *fixture_plan2x3();
	plan.nsettings = 1;
	plan.seeds = one_seed;
	plan.nseeds = 1;
	plan.ntasks = 1;
	return &plan;
}

static struct task_outcome ran(enum task_state state, int exit_code, int signal, uint32_t task)
{
	struct task_outcome o;

	memset(&o, 0, sizeof(o));
	o.state = state;
	o.exit_code = exit_code;
	o.signal = signal;
	o.array_job_id = state == TS_MISSING ? 0 : 4242;
	o.array_task_id = state == TS_MISSING ? 0 : task;
	o.job_id = 5000 + task;
	o.attempts = 1;
	return o;
}

static void parse(struct result *res, const char *json)
{
	result_init(res);
	result_parse(res, json, strlen(json));
}

static void test_gate_reasons(void **state)
{
	static const struct {
		enum task_state state;
		int exit_code, signal;
		const char *result; /* JSON text; NULL: no file */
		const char *reason; /* NULL: the task passes */
	} cases[] = {
	    {TS_COMPLETED, 0, 0, "{\"loss\": 0.3}", NULL},
	    {TS_OUT_OF_MEMORY, 0, 0, NULL, "out of memory"},
	    /* OverMemoryKill without cgroups: FAILED 0:9. */
	    {TS_FAILED, 0, 9, NULL, "out of memory"},
	    {TS_TIMEOUT, 0, 15, NULL, "time limit"},
	    {TS_NODE_FAIL, 0, 0, NULL, "node failure"},
	    {TS_PREEMPTED, 0, 0, NULL, "preempted"},
	    {TS_CANCELLED, 0, 15, NULL, "cancelled"},
	    {TS_FAILED, 2, 0, NULL, "exit code 2"},
	    {TS_FAILED, 0, 11, NULL, "killed by signal 11"},
	    {TS_FAILED, 0, 0, NULL, "failed without an exit code"},
	    {TS_COMPLETED, 1, 0, "{\"loss\": 0.3}", "exit code 1"},
	    {TS_COMPLETED, 0, 6, "{\"loss\": 0.3}", "killed by signal 6"},
	    {TS_PENDING, 0, 0, NULL, "still pending"},
	    {TS_HELD, 0, 0, NULL, "held"},
	    {TS_RUNNING, 0, 0, "{\"loss\": 0.3}", "still running"},
	    {TS_SUSPENDED, 0, 0, NULL, "suspended"},
	    {TS_REQUEUED, 0, 0, NULL, "requeued, waiting to run again"},
	    {TS_BOOT_FAIL, 0, 0, NULL, "node failed to boot"},
	    {TS_DEADLINE, 0, 0, NULL, "deadline reached"},
	    {TS_MISSING, 0, 0, NULL, "missing (no record in Slurm)"},
	    {TS_COMPLETED, 0, 0, NULL, "no result file"},
	    {TS_COMPLETED, 0, 0, "", "empty result file"},
	    {TS_COMPLETED, 0, 0, "{\"accuracy\": 0.9}", "metric 'loss' absent"},
	    {TS_COMPLETED, 0, 0, "{\"loss\": NaN}", "metric 'loss' is NaN, not a finite number"},
	    {TS_COMPLETED, 0, 0, "{\"loss\": -Infinity}",
	     "metric 'loss' is -Infinity, not a finite number"},
	    /* Past the largest double: the CSV and log readers' words, not "real number overflow".
	     */
	    {TS_COMPLETED, 0, 0, "{\"loss\": 1e999}",
	     "metric 'loss' is Infinity, not a finite number"},
	    {TS_COMPLETED, 0, 0, "{\"loss\": \"0.3\"}", "metric 'loss' is a string, not a number"},
	    {TS_COMPLETED, 0, 0, "{\"loss\": null}", "metric 'loss' is null, not a number"},
	    {TS_COMPLETED, 0, 0, "{\"loss\": 0.3,}",
	     "invalid result file: line 1 column 14: string or '}' expected"},
	    {TS_COMPLETED, 0, 0, "[0.3]", "invalid result file: an array, not an object"},
	};
	const char *metrics[] = {"loss"};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct task_outcome o = ran(cases[i].state, cases[i].exit_code, cases[i].signal, 0);
		struct gate_result g;
		struct result res;

		if (cases[i].result) {
			parse(&res, cases[i].result);
		} else {
			result_init(&res);
			res.status = RESULT_ABSENT;
		}
		gate_result_init(&g);
		gate_check(&g, fixture_plan1(), &o, &res, metrics, 1);
		if (!cases[i].reason) {
			assert_int_equal(g.nfailures, 0);
			assert_true(gate_complete(&g));
			assert_int_equal(g.passed[0], 1);
			assert_int_equal(g.npassed[0], 1);
		} else {
			assert_int_equal(g.nfailures, 1);
			assert_false(gate_complete(&g));
			assert_int_equal(g.passed[0], 0);
			assert_int_equal(g.npassed[0], 0);
			if (strcmp(g.failures[0].reason, cases[i].reason))
				fail_msg("case %zu (%s %d:%d): reason '%s', want '%s'", i,
				         task_state_name(cases[i].state), cases[i].exit_code,
				         cases[i].signal, g.failures[0].reason, cases[i].reason);
			assert_int_equal(g.failures[0].state, cases[i].state);
			assert_int_equal(g.failures[0].exit_code, cases[i].exit_code);
			assert_int_equal(g.failures[0].signal, cases[i].signal);
		}
		gate_result_release(&g);
		result_release(&res);
	}
}

/* A held task is not run yet: the gate says so, with what holds it. */
static void test_gate_held_reason(void **state)
{
	struct task_outcome o = ran(TS_HELD, 0, 0, 0);
	const char *metrics[] = {"loss"};
	struct gate_result g;
	struct result res;

	(void)state;
	o.hold = ACCT_HOLD_USER;
	o.pending_reason = "held by the user";
	result_init(&res);
	res.status = RESULT_ABSENT;
	gate_result_init(&g);
	gate_check(&g, fixture_plan1(), &o, &res, metrics, 1);
	assert_int_equal(g.nfailures, 1);
	assert_false(gate_complete(&g));
	assert_string_equal(g.failures[0].reason, "held (held by the user)");
	gate_result_release(&g);
	result_release(&res);
}

static void test_gate_unreadable_result(void **state)
{
	struct task_outcome o = ran(TS_COMPLETED, 0, 0, 0);
	struct gate_result g;
	struct result res;

	(void)state;
	result_init(&res);
	res.status = RESULT_UNREADABLE;
	res.detail = xstrdup("Permission denied");
	gate_result_init(&g);
	gate_check(&g, fixture_plan1(), &o, &res, NULL, 0);
	assert_int_equal(g.nfailures, 1);
	assert_string_equal(g.failures[0].reason, "unreadable result file: Permission denied");
	gate_result_release(&g);
	result_release(&res);
}

static void test_gate_failure_fields(void **state)
{
	struct task_outcome o[6];
	struct result res[6];
	struct gate_result g;

	(void)state;
	for (uint32_t i = 0; i < 6; i++) {
		o[i] = ran(TS_COMPLETED, 0, 0, i);
		parse(&res[i], "{\"loss\": 1}");
	}
	o[4] = ran(TS_FAILED, 0, 9, 4);
	o[5] = ran(TS_MISSING, 0, 0, 5);
	gate_result_init(&g);
	gate_check(&g, fixture_plan2x3(), o, res, NULL, 0);
	assert_int_equal(g.ntasks, 6);
	assert_int_equal(g.nsettings, 2);
	assert_int_equal(g.nseeds, 3);
	assert_int_equal(g.npassed[0], 3);
	assert_int_equal(g.npassed[1], 1);
	assert_int_equal(g.nfailures, 2);
	/* index 4 = setting 1, seed position 1. */
	assert_int_equal(g.failures[0].index, 4);
	assert_int_equal(g.failures[0].setting, 1);
	assert_int_equal(g.failures[0].seed, 22);
	assert_int_equal(g.failures[0].state, TS_FAILED);
	assert_int_equal(g.failures[0].signal, 9);
	assert_int_equal(g.failures[0].array_job_id, 4242);
	assert_int_equal(g.failures[0].array_task_id, 4);
	assert_string_equal(g.failures[0].reason, "out of memory");
	assert_int_equal(g.failures[1].index, 5);
	assert_int_equal(g.failures[1].setting, 1);
	assert_int_equal(g.failures[1].seed, 33);
	assert_int_equal(g.failures[1].array_job_id, 0);
	assert_string_equal(g.failures[1].reason, "missing (no record in Slurm)");
	gate_result_release(&g);
	for (size_t i = 0; i < 6; i++)
		result_release(&res[i]);
}

static void test_gate_discovers_metrics(void **state)
{
	static const char *const texts[] = {
	    "{\"loss\": 0.3, \"acc\": 0.9, \"ckpt\": \"a.pt\", \"zeta\": 1}",
	    "{\"acc\": 0.8, \"loss\": 0.4, \"zeta\": 2}",
	    /* A failed run's keys do not count, nor do they make others fail. */
	    "{\"acc\": 0.8, \"loss\": 0.4, \"zeta\": 2, \"only_failed\": 1}",
	    /* A NaN still names a metric (and fails its task). */
	    "{\"acc\": 0.7, \"loss\": NaN, \"zeta\": 3, \"beta\": 5}",
	    "{\"acc\": 0.7, \"loss\": 0.5, \"zeta\": 3, \"beta\": 6}",
	    "{\"acc\": 0.7, \"loss\": 0.5, \"zeta\": 3, \"beta\": 7}",
	};
	struct task_outcome o[6];
	struct result res[6];
	struct gate_result g;

	(void)state;
	for (uint32_t i = 0; i < 6; i++) {
		o[i] = ran(TS_COMPLETED, 0, 0, i);
		parse(&res[i], texts[i]);
	}
	o[2] = ran(TS_FAILED, 1, 0, 2);
	gate_result_init(&g);
	gate_check(&g, fixture_plan2x3(), o, res, NULL, 0);
	/* The union of numeric keys of passed runs, sorted; strings left out. */
	assert_int_equal(g.nmetrics, 4);
	assert_string_equal(g.metrics[0], "acc");
	assert_string_equal(g.metrics[1], "beta");
	assert_string_equal(g.metrics[2], "loss");
	assert_string_equal(g.metrics[3], "zeta");
	assert_int_equal(g.nfailures, 4);
	assert_string_equal(g.failures[0].reason, "metric 'beta' absent");
	assert_string_equal(g.failures[1].reason, "metric 'beta' absent");
	assert_string_equal(g.failures[2].reason, "exit code 1");
	assert_int_equal(g.failures[3].index, 3);
	assert_string_equal(g.failures[3].reason, "metric 'loss' is NaN, not a finite number");
	assert_int_equal(g.npassed[0], 0);
	assert_int_equal(g.npassed[1], 2);
	gate_result_release(&g);
	for (size_t i = 0; i < 6; i++)
		result_release(&res[i]);
}

/*
 * A series file (JSON Lines, CSV: the last line or row) counts its step: the
 * step key is the curves' x axis, never a metric ("step 19 ± 0" in the table).
 * In a JSON object it is the user's own key, a metric as any other.
 */
static void test_gate_step_is_no_metric(void **state)
{
	static const struct {
		const char *text;
		enum result_format format;
	} rows[] = {
	    {"{\"step\": 18, \"loss\": 0.5}\n{\"step\": 19, \"loss\": 0.4}\n", RESULT_JSONL},
	    {"step,loss\n18,0.5\n19,0.3\n", RESULT_CSV},
	};
	struct task_outcome o[2];
	struct result res[2];
	struct gate_result g;
	const struct plan *plan = fixture_plan1();
	struct plan two = *plan;

	(void)state;
	two.nseeds = 2;
	two.ntasks = 2;
	two.seeds = (int64_t[]){0, 1};
	for (uint32_t i = 0; i < 2; i++) {
		o[i] = ran(TS_COMPLETED, 0, 0, i);
		result_init(&res[i]);
		result_parse_format(&res[i], rows[i].text, strlen(rows[i].text), rows[i].format,
		                    NULL);
		assert_int_equal(res[i].status, RESULT_OK);
		/* Still read: a curve or a message may want it. */
		assert_non_null(result_find(&res[i], "step"));
	}
	gate_result_init(&g);
	gate_check(&g, &two, o, res, NULL, 0);
	assert_int_equal(g.nmetrics, 1);
	assert_string_equal(g.metrics[0], "loss");
	assert_int_equal(g.npassed[0], 2);
	gate_result_release(&g);
	result_release(&res[0]);

	/* A JSON object's "step" is a metric. */
	parse(&res[0], "{\"step\": 3, \"loss\": 0.1}");
	result_release(&res[1]);
	parse(&res[1], "{\"step\": 3, \"loss\": 0.2}");
	gate_result_init(&g);
	gate_check(&g, &two, o, res, NULL, 0);
	assert_int_equal(g.nmetrics, 2);
	gate_result_release(&g);
	for (size_t i = 0; i < 2; i++)
		result_release(&res[i]);
}

static void test_gate_requested_metrics(void **state)
{
	const char *metrics[] = {"loss", "acc", "loss", "f1"};
	struct task_outcome o = ran(TS_COMPLETED, 0, 0, 0);
	struct gate_result g;
	struct result res;

	(void)state;
	parse(&res, "{\"acc\": 0.9, \"loss\": 0.2, \"other\": 1}");
	gate_result_init(&g);
	gate_check(&g, fixture_plan1(), &o, &res, metrics, 4);
	/* In the order asked, once each; keys not asked for are not checked. */
	assert_int_equal(g.nmetrics, 3);
	assert_string_equal(g.metrics[0], "loss");
	assert_string_equal(g.metrics[1], "acc");
	assert_string_equal(g.metrics[2], "f1");
	assert_int_equal(g.nfailures, 1);
	assert_string_equal(g.failures[0].reason, "metric 'f1' absent");
	gate_result_release(&g);

	/* Every problem of one result is named, not just the first. */
	result_parse(&res, "{\"acc\": true}", 13);
	gate_check(&g, fixture_plan1(), &o, &res, metrics, 4);
	assert_string_equal(g.failures[0].reason, "metric 'loss' absent; metric 'acc' is a "
	                                          "boolean, not a number; metric 'f1' absent");
	gate_result_release(&g);
	result_release(&res);
}

static void test_gate_no_metrics_anywhere(void **state)
{
	struct task_outcome o[6];
	struct result res[6];
	struct gate_result g;

	(void)state;
	for (uint32_t i = 0; i < 6; i++) {
		o[i] = ran(TS_COMPLETED, 0, 0, i);
		parse(&res[i], "{\"note\": \"done\"}");
	}
	gate_result_init(&g);
	gate_check(&g, fixture_plan2x3(), o, res, NULL, 0);
	assert_int_equal(g.nmetrics, 0);
	assert_true(gate_complete(&g));
	assert_int_equal(g.npassed[0], 3);
	assert_int_equal(g.npassed[1], 3);
	/* Checking again into the same result replaces what it held. */
	o[0] = ran(TS_TIMEOUT, 0, 0, 0);
	gate_check(&g, fixture_plan2x3(), o, res, NULL, 0);
	assert_int_equal(g.nfailures, 1);
	assert_string_equal(g.failures[0].reason, "time limit");
	gate_result_release(&g);
	for (size_t i = 0; i < 6; i++)
		result_release(&res[i]);
}

static void test_gate_run_failed(void **state)
{
	struct task_outcome o = ran(TS_COMPLETED, 0, 0, 0);
	struct strbuf why = STRBUF_INIT;

	(void)state;
	assert_false(gate_run_failed(&why, &o));
	assert_int_equal(why.len, 0);
	o = ran(TS_TIMEOUT, 0, 0, 0);
	assert_true(gate_run_failed(&why, &o));
	assert_string_equal(why.buf, "time limit");
	strbuf_release(&why);
}

/*
 * Metrics from the log: a pattern that did not match fails the task with its
 * reason, and the metric is one even when no task has a value for it.
 */
static void test_gate_log_metrics(void **state)
{
	struct task_outcome oc[6];
	struct result res[6];
	struct result_log_spec spec;
	const char *name = "acc", *pattern = "acc: ([^ ]+)";
	struct gate_result g;

	(void)state;
	assert_int_equal(result_log_spec_init(&spec, &name, &pattern, 1), 0);
	for (size_t i = 0; i < 6; i++) {
		const char *log = i == 4   ? "epoch 1\n"
		                  : i == 5 ? "acc: nan?\nacc: n/a\n"
		                           : "acc: 0.5\n";

		oc[i] = ran(TS_COMPLETED, 0, 0, (uint32_t)i);
		result_init_empty(&res[i]);
		result_scan_log(&res[i], log, strlen(log), "LOG", &spec);
	}
	gate_result_init(&g);
	gate_check(&g, fixture_plan2x3(), oc, res, NULL, 0);
	assert_int_equal(g.nmetrics, 1);
	assert_string_equal(g.metrics[0], "acc");
	assert_int_equal(g.nfailures, 2);
	assert_string_equal(g.failures[0].reason, "pattern for 'acc' not found in LOG");
	assert_string_equal(g.failures[1].reason, "metric 'acc' in LOG is 'n/a', not a number");
	gate_result_release(&g);

	/* Every task without the line: still the metric, and every task fails. */
	for (size_t i = 0; i < 6; i++) {
		result_release(&res[i]);
		result_init_empty(&res[i]);
		result_scan_log(&res[i], "x\n", 2, "LOG", &spec);
	}
	gate_check(&g, fixture_plan2x3(), oc, res, NULL, 0);
	assert_int_equal(g.nmetrics, 1);
	assert_int_equal(g.nfailures, 6);
	gate_result_release(&g);
	for (size_t i = 0; i < 6; i++)
		result_release(&res[i]);
	result_log_spec_release(&spec);
}

/*
 * THE pass test (gate_passed), as every command asks it: the run alone
 * (res NULL), then with the result read from a file under a size limit of
 * 20 bytes; gate_check and gate_failure_of_result agree with it.
 */
/* The failures in words, as list and resubmit say them. */
static void test_gate_failures_text(void **state)
{
	struct gate_failure f[3];
	struct gate_result g;
	char *text;

	(void)state;
	memset(&g, 0, sizeof(g));
	memset(f, 0, sizeof(f));
	g.failures = f;
	f[0].state = TS_FAILED;
	f[0].exit_code = 1;
	f[1].state = TS_COMPLETED;
	f[2].state = TS_COMPLETED;
	g.nfailures = 1;
	text = gate_failures_text(&g);
	assert_string_equal(text, "1 failed");
	free(text);
	g.failures = f + 1;
	g.nfailures = 2;
	text = gate_failures_text(&g);
	assert_string_equal(text, "2 completed, no metric");
	free(text);
	g.failures = f;
	g.nfailures = 3;
	text = gate_failures_text(&g);
	assert_string_equal(text, "1 failed, 2 completed, no metric");
	free(text);
}

static void test_gate_passed(void **state)
{
	static const char small[] = "{\"loss\": 0.25}";         /* 14 bytes */
	static const char large[] = "{\"loss\": 0.25}        "; /* 22 bytes */
	static const struct {
		const char *what;
		enum task_state state;
		int exit_code, signal;
		const char *file; /* the result file's text; NULL: none */
		bool run_passed, passed;
	} cases[] = {
	    {"completed", TS_COMPLETED, 0, 0, small, true, true},
	    {"failed exit", TS_FAILED, 2, 0, small, false, false},
	    {"exit code on a completed run", TS_COMPLETED, 1, 0, small, false, false},
	    {"signal on a completed run", TS_COMPLETED, 0, 9, small, false, false},
	    {"signal on a failed run", TS_FAILED, 0, 11, small, false, false},
	    {"time limit", TS_TIMEOUT, 0, 0, small, false, false},
	    {"still running", TS_RUNNING, 0, 0, small, false, false},
	    {"missing result", TS_COMPLETED, 0, 0, NULL, true, false},
	    {"oversize result", TS_COMPLETED, 0, 0, large, true, false},
	};
	char *dir = make_tmpdir();
	char *path = xstrfmt("%s/result.json", dir);

	(void)state;
	result_set_max_bytes(20);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct task_outcome o = ran(cases[i].state, cases[i].exit_code, cases[i].signal, 0);
		struct gate_result g;
		struct result res;

		unlink(path);
		if (cases[i].file) {
			FILE *f = fopen(path, "w");

			assert_non_null(f);
			fputs(cases[i].file, f);
			assert_int_equal(fclose(f), 0);
		}
		result_init(&res);
		result_read(&res, path);
		if (gate_passed(&o, NULL) != cases[i].run_passed ||
		    gate_passed(&o, &res) != cases[i].passed)
			fail_msg("%s: run %d, task %d", cases[i].what, gate_passed(&o, NULL),
			         gate_passed(&o, &res));
		gate_result_init(&g);
		gate_check(&g, fixture_plan1(), &o, &res, NULL, 0);
		if (g.passed[0] != cases[i].passed ||
		    (!cases[i].passed &&
		     gate_failure_of_result(&g.failures[0]) != cases[i].run_passed))
			fail_msg("%s: the gate disagrees", cases[i].what);
		gate_result_release(&g);
		result_release(&res);
	}
	result_set_max_bytes(RESULT_MAX_BYTES);
	unlink(path);
	free(path);
	remove_tree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_gate_reasons),
	    cmocka_unit_test(test_gate_held_reason),
	    cmocka_unit_test(test_gate_unreadable_result),
	    cmocka_unit_test(test_gate_failure_fields),
	    cmocka_unit_test(test_gate_discovers_metrics),
	    cmocka_unit_test(test_gate_step_is_no_metric),
	    cmocka_unit_test(test_gate_requested_metrics),
	    cmocka_unit_test(test_gate_no_metrics_anywhere),
	    cmocka_unit_test(test_gate_run_failed),
	    cmocka_unit_test(test_gate_passed),
	    cmocka_unit_test(test_gate_failures_text),
	    cmocka_unit_test(test_gate_log_metrics),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
