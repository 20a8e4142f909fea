#include "helpers.h"

#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gate.h"
#include "plan.h"
#include "outcome.h"
#include "report.h"
#include "report_print.h"
#include "result.h"
#include "strbuf.h"

#include "banned.h"

/*
 * A small recorded sweep on fixture_plan2x3 (helpers.h): lr varies over two
 * settings, wd does not; three seeds. The values are exact in binary so that the expected text can
 * be worked out by hand: lr=0.1:  acc 0.5, 0.75, 1   -> mean 0.75, std 0.25;  loss 2, 4, 6 -> 4 ± 2
 *   lr=0.01: acc 0.25 three times -> 0.25 ± 0;           loss 1, 2, 3 -> 2 ± 1
 * The 95% CI half-width is t(0.975, 2) * std / sqrt(3), t = 4.30265273:
 * 0.621034 for std 0.25, 4.96828 for std 2, 2.48414 for std 1.
 */
static const char *const recorded[] = {
    "{\"acc\": 0.5, \"loss\": 2, \"ckpt\": \"a.pt\"}",
    "{\"acc\": 0.75, \"loss\": 4}",
    "{\"acc\": 1.0, \"loss\": 6}",
    "{\"acc\": 0.25, \"loss\": 1}",
    "{\"acc\": 0.25, \"loss\": 2}",
    "{\"acc\": 0.25, \"loss\": 3}",
};

#define MAX_TASKS 8

struct fixture {
	struct task_outcome o[MAX_TASKS];
	struct result res[MAX_TASKS];
	size_t ntasks;
	struct gate_result g;
	struct report r;
};

static void fixture_start(struct fixture *fx, const char *const *texts, size_t ntasks)
{
	assert_true(ntasks <= MAX_TASKS);
	memset(fx, 0, sizeof(*fx));
	fx->ntasks = ntasks;
	for (size_t i = 0; i < ntasks; i++) {
		fx->o[i].state = TS_COMPLETED;
		fx->o[i].array_job_id = 4242;
		fx->o[i].array_task_id = (uint32_t)i;
		result_init(&fx->res[i]);
		result_parse(&fx->res[i], texts[i], strlen(texts[i]));
	}
	gate_result_init(&fx->g);
	report_init(&fx->r);
	fx->r.name = "mnist";
	fx->r.id = 7;
	fx->r.logs = "/home/u/logs";
	fx->r.dir = "/home/u/.sweep/sweeps/7";
}

/* Seed 22 of lr=0.1 still pending; of lr=0.01, seed 22 killed for memory, seed 33 unknown. */
static void fixture_damage(struct fixture *fx)
{
	fx->o[1].state = TS_PENDING;
	fx->o[4].state = TS_FAILED;
	fx->o[4].signal = 9;
	fx->o[5].state = TS_MISSING;
	fx->o[5].array_job_id = 0;
	fx->o[5].array_task_id = 0;
}

static void fixture_check(struct fixture *fx, const struct plan *plan)
{
	gate_check(&fx->g, plan, fx->o, fx->res, NULL, 0);
	report_build(&fx->r, plan, &fx->g, fx->res);
}

static void fixture_release(struct fixture *fx)
{
	report_release(&fx->r);
	gate_result_release(&fx->g);
	for (size_t i = 0; i < fx->ntasks; i++)
		result_release(&fx->res[i]);
}

static char *capture(void (*print)(FILE *, const struct report *), const struct report *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	print(f, r);
	assert_int_equal(fclose(f), 0);
	return text;
}

static void assert_output(void (*print)(FILE *, const struct report *), const struct report *r,
                          const char *want)
{
	char *got = capture(print, r);

	if (strcmp(got, want))
		fail_msg("output differs; got:\n%s\nwant:\n%s", got, want);
	free(got);
}

static void assert_contains(const char *text, const char *part)
{
	if (!strstr(text, part))
		fail_msg("output lacks:\n%s\ngot:\n%s", part, text);
}

static void test_report_table_complete(void **state)
{
	struct fixture fx;

	(void)state;
	fixture_start(&fx, recorded, 6);
	fixture_check(&fx, fixture_plan2x3());
	assert_true(gate_complete(&fx.g));
	assert_output(report_print_table, &fx.r,
	              "sweep 'mnist' (id 7): 2 settings x 3 seeds = 6 tasks, all completed\n"
	              "mean ± sample std over the seeds that passed (n), 95% CI of the mean "
	              "(Student's t)\n"
	              "\n"
	              "lr    acc                  acc 95% CI    loss                 loss 95% CI\n"
	              "0.1   0.75 ± 0.25 (n = 3)  [0.13, 1.37]  4.0 ± 2.0 (n = 3)    [-1.0, 9.0]\n"
	              "0.01  0.25 ± 0 (n = 3)     [0.25, 0.25]  2.00 ± 1.00 (n = 3)  [-0.48, "
	              "4.48]\n");
	fixture_release(&fx);
}

static void test_report_table_incomplete(void **state)
{
	struct fixture fx;

	(void)state;
	fixture_start(&fx, recorded, 6);
	fixture_damage(&fx);
	fixture_check(&fx, fixture_plan2x3());
	assert_false(gate_complete(&fx.g));
	/* No statistics: only what is missing, with where to look. */
	assert_output(
	    report_print_table, &fx.r,
	    "sweep 'mnist' (id 7): 3 of 6 tasks missing or failed\n"
	    "\n"
	    "INDEX  SETTING  SEED  STATE    EXIT  JOB     REASON                        LOG\n"
	    "1      lr=0.1   22    PENDING  -     4242_1  still pending                 -\n"
	    "4      lr=0.01  22    FAILED   0:9   4242_4  out of memory                 "
	    "/home/u/logs/mnist_4242_4.out\n"
	    "5      lr=0.01  33    MISSING  -     -       missing (no record in Slurm)  -\n");
	fixture_release(&fx);
}

static void test_report_table_allow_incomplete(void **state)
{
	struct fixture fx;

	(void)state;
	fixture_start(&fx, recorded, 6);
	fixture_damage(&fx);
	fx.r.allow_incomplete = true;
	fixture_check(&fx, fixture_plan2x3());
	/*
	 * lr=0.1 keeps acc 0.5, 1 (std sqrt(0.125) = 0.353553) and loss 2, 6;
	 * lr=0.01 keeps one seed: no std, no interval.
	 */
	assert_output(
	    report_print_table, &fx.r,
	    "sweep 'mnist' (id 7): 2 settings x 3 seeds = 6 tasks, 3 missing or failed "
	    "and excluded\n"
	    "mean ± sample std over the seeds that passed (n), 95% CI of the mean "
	    "(Student's t)\n"
	    "\n"
	    "lr    acc                       acc 95% CI     loss                    loss 95% CI\n"
	    "0.1   0.75 ± 0.35 (n = 2 of 3)  [-2.43, 3.93]  4.0 ± 2.8 (n = 2 of 3)  [-21.4, 29.4]\n"
	    "0.01  0.25 ± n/a (n = 1 of 3)   n/a            1 ± n/a (n = 1 of 3)    n/a\n"
	    "\n"
	    "excluded tasks (3):\n"
	    "INDEX  SETTING  SEED  STATE    EXIT  JOB     REASON                        LOG\n"
	    "1      lr=0.1   22    PENDING  -     4242_1  still pending                 -\n"
	    "4      lr=0.01  22    FAILED   0:9   4242_4  out of memory                 "
	    "/home/u/logs/mnist_4242_4.out\n"
	    "5      lr=0.01  33    MISSING  -     -       missing (no record in Slurm)  -\n");
	fixture_release(&fx);
}

static void test_report_table_result_hint(void **state)
{
	static const char *const texts[] = {"{\"acc\": 1}", "{\"acc\": 1}",  "{\"acc\": 1}",
	                                    "{\"acc\": 1}", "{\"loss\": 1}", "{\"acc\": 1}"};
	const char *metrics[] = {"acc"};
	struct fixture fx;
	char *out;

	(void)state;
	fixture_start(&fx, texts, 6);
	gate_check(&fx.g, fixture_plan2x3(), fx.o, fx.res, metrics, 1);
	report_build(&fx.r, fixture_plan2x3(), &fx.g, fx.res);
	out = capture(report_print_table, &fx.r);
	assert_contains(out, "COMPLETED  0     4242_4  metric 'acc' absent  "
	                     "/home/u/logs/mnist_4242_4.out\n");
	assert_contains(out, "(result files: /home/u/.sweep/sweeps/7/tasks/<index>/"
	                     "result.json)\n");
	free(out);
	/* A sweep of the grouped layout says where its files are. */
	fx.r.task_layout = TASKDIR_GROUPED;
	out = capture(report_print_table, &fx.r);
	assert_contains(out, "(result files: /home/u/.sweep/sweeps/7/tasks/<index / 1000>/"
	                     "<index>/result.json)\n");
	free(out);
	fixture_release(&fx);
}

static void assert_json_number(const json_t *obj, const char *key, double want)
{
	const json_t *v = json_object_get(obj, key);

	assert_true(json_is_number(v));
	if (fabs(json_number_value(v) - want) > 1e-9 * fabs(want))
		fail_msg("%s = %.17g, want %.17g", key, json_number_value(v), want);
}

static json_t *load_json(const char *text)
{
	json_error_t err;
	json_t *root = json_loads(text, 0, &err);

	if (!root)
		fail_msg("not JSON: %d:%d: %s\n%s", err.line, err.column, err.text, text);
	return root;
}

static void test_report_json_complete(void **state)
{
	struct fixture fx;
	json_t *root, *set, *m;
	char *text;

	(void)state;
	fixture_start(&fx, recorded, 6);
	fixture_check(&fx, fixture_plan2x3());
	text = capture(report_print_json, &fx.r);
	root = load_json(text);
	assert_string_equal(json_string_value(json_object_get(root, "sweep")), "mnist");
	assert_int_equal(json_integer_value(json_object_get(root, "id")), 7);
	assert_true(json_is_true(json_object_get(root, "complete")));
	assert_int_equal(json_integer_value(json_object_get(root, "ntasks")), 6);
	assert_int_equal(json_array_size(json_object_get(root, "seeds")), 3);
	assert_string_equal(json_string_value(json_array_get(json_object_get(root, "metrics"), 1)),
	                    "loss");
	assert_int_equal(json_array_size(json_object_get(root, "failures")), 0);
	assert_int_equal(json_array_size(json_object_get(root, "settings")), 2);

	set = json_array_get(json_object_get(root, "settings"), 1);
	/* Every parameter, varying or not, as written in the sweep file. */
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(set, "params"), "lr")), "0.01");
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(set, "params"), "wd")), "0");
	assert_int_equal(json_integer_value(json_object_get(set, "n")), 3);
	assert_int_equal(json_integer_value(json_object_get(set, "n_planned")), 3);
	m = json_object_get(json_object_get(set, "metrics"), "loss");
	assert_json_number(m, "mean", 2.0);
	assert_json_number(m, "std", 1.0);
	assert_int_equal(json_integer_value(json_object_get(m, "n")), 3);
	assert_json_number(m, "ci95", 4.302652729749464 / sqrt(3.0));
	json_decref(root);
	free(text);
	fixture_release(&fx);
}

/*
 * The table shows the p the verdict uses: Holm's, not Welch's own, which
 * JSON and CSV give next to it under their own names.
 */
static void test_report_shows_holm_p(void **state)
{
	static const enum compare_goal goals[] = {GOAL_MAX, GOAL_NONE};
	struct fixture fx;
	struct compare_entry *e;
	json_t *root, *m;
	char *text;

	(void)state;
	fixture_start(&fx, recorded, 6);
	fixture_check(&fx, fixture_plan2x3());
	report_rank(&fx.r, goals);
	/* As if three settings were tested: Holm multiplies the smallest p by 3. */
	e = &fx.r.cmp[1 * fx.g.nmetrics + 0];
	assert_true(e->has_p);
	e->p = 6.5e-06;
	e->p_holm = 1.95e-05;
	e->significant = true;
	text = capture(report_print_table, &fx.r);
	assert_contains(text, "p_holm = 1.9e-05");
	assert_null(strstr(text, "6.5e-06"));
	free(text);
	text = capture(report_print_json, &fx.r);
	root = load_json(text);
	m = json_object_get(
	    json_object_get(json_array_get(json_object_get(root, "settings"), 1), "metrics"),
	    "acc");
	assert_json_number(m, "p_vs_best", 6.5e-06);
	assert_json_number(m, "p_vs_best_holm", 1.95e-05);
	json_decref(root);
	free(text);
	text = capture(report_print_csv, &fx.r);
	assert_contains(text, "acc_best,acc_p_vs_best,acc_p_vs_best_holm");
	assert_contains(text, "false,6.5e-06,1.95e-05");
	free(text);
	fixture_release(&fx);
}

/*
 * acc=max: lr=0.1 (0.75 ± 0.25) is best; lr=0.01 (0.25 ± 0, n 3) against
 * it: t^2 = 0.25 / (0.0625 / 3) = 12 on df = 2 exactly (only one side has
 * variance), where P(|T| > t) = 1 - t / sqrt(2 + t^2) = 1 - sqrt(6/7) =
 * 0.0741799, not significant. loss=min: lr=0.01 is best.
 */
static void test_report_ranked(void **state)
{
	static const enum compare_goal goals[] = {GOAL_MAX, GOAL_MIN};
	static const enum compare_goal only_loss[] = {GOAL_NONE, GOAL_MIN};
	struct fixture fx;
	json_t *root, *set, *m;
	char *text;

	(void)state;
	fixture_start(&fx, recorded, 6);
	fixture_check(&fx, fixture_plan2x3());
	assert_false(report_ranked(&fx.r));
	report_rank(&fx.r, goals);
	assert_true(report_ranked(&fx.r));
	text = capture(report_print_table, &fx.r);
	assert_contains(text,
	                "lr    acc                  acc 95% CI    acc vs best            loss");
	assert_contains(
	    text, "0.1   0.75 ± 0.25 (n = 3)  [0.13, 1.37]  best                   4.0 ± 2.0");
	assert_contains(
	    text, "0.01  0.25 ± 0 (n = 3)     [0.25, 0.25]  p_holm = 0.074 (n.s.)  2.00 ± 1.00");
	assert_contains(text,
	                "acc: best = highest mean (lr=0.1); p_holm: Welch's two-sided t-test "
	                "against it, adjusted by Holm's method over 1 setting (--json, --csv: "
	                "also the unadjusted p); n.s.: not significant at 0.05\n");
	assert_contains(text, "loss: best = lowest mean (lr=0.01);");
	free(text);

	text = capture(report_print_json, &fx.r);
	root = load_json(text);
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(root, "goals"), "acc")), "max");
	set = json_array_get(json_object_get(root, "settings"), 1);
	m = json_object_get(json_object_get(set, "metrics"), "acc");
	assert_true(json_is_false(json_object_get(m, "best")));
	assert_json_number(m, "p_vs_best", 1 - sqrt(6.0 / 7.0));
	assert_json_number(m, "p_vs_best_holm", 1 - sqrt(6.0 / 7.0));
	assert_true(json_is_false(json_object_get(m, "significant")));
	m = json_object_get(json_object_get(set, "metrics"), "loss");
	assert_true(json_is_true(json_object_get(m, "best")));
	assert_true(json_is_null(json_object_get(m, "p_vs_best")));
	assert_true(json_is_null(json_object_get(m, "significant")));
	json_decref(root);
	free(text);

	/* A metric without a goal: no column, and false and nulls in JSON. */
	report_rank(&fx.r, only_loss);
	text = capture(report_print_table, &fx.r);
	assert_null(strstr(text, "acc vs best"));
	assert_contains(text, "loss vs best");
	free(text);
	text = capture(report_print_json, &fx.r);
	root = load_json(text);
	set = json_array_get(json_object_get(root, "settings"), 0);
	m = json_object_get(json_object_get(set, "metrics"), "acc");
	assert_true(json_is_false(json_object_get(m, "best")));
	assert_true(json_is_null(json_object_get(m, "p_vs_best")));
	json_decref(root);
	free(text);

	text = capture(report_print_csv, &fx.r);
	assert_contains(text, "loss_mean,loss_std,loss_ci95,loss_best,loss_p_vs_best,"
	                      "loss_p_vs_best_holm,excluded\n");
	assert_contains(text, ",true,,,\n");
	free(text);
	fixture_release(&fx);
}

/*
 * report_order: best first by the first metric with a goal, and --top's
 * cut, in the table, JSON and CSV; the note that the best is optimistic.
 * loss=min puts lr=0.01 (mean 2) before lr=0.1 (mean 4), against plan order.
 */
static void test_report_order_and_top(void **state)
{
	static const enum compare_goal by_loss[] = {GOAL_NONE, GOAL_MIN};
	static const enum compare_goal by_acc[] = {GOAL_MAX, GOAL_MIN};
	static const enum compare_goal none[] = {GOAL_NONE, GOAL_NONE};
	struct fixture fx;
	json_t *root, *sets;
	char *text;

	(void)state;
	fixture_start(&fx, recorded, 6);
	fixture_check(&fx, fixture_plan2x3());
	report_rank(&fx.r, none);
	report_order(&fx.r, 1);
	assert_int_equal(report_nshown(&fx.r), 2); /* no goal: nothing ordered */
	assert_int_equal(report_shown(&fx.r, 0), 0);

	report_rank(&fx.r, by_loss);
	report_order(&fx.r, 0);
	assert_int_equal(report_nshown(&fx.r), 2);
	assert_int_equal(report_shown(&fx.r, 0), 1);
	assert_int_equal(report_shown(&fx.r, 1), 0);
	text = capture(report_print_table, &fx.r);
	assert_true(strstr(text, "\n0.01 ") < strstr(text, "\n0.1 "));
	assert_contains(text, "settings best first\n");
	assert_contains(text, "the best mean, chosen among 2 settings on the same seeds, is "
	                      "optimistic (the winner's curse)");
	assert_contains(text, "seeds this sweep did not use: sweep confirm 7 --top K\n");
	free(text);
	/* A confirm sweep says where its settings come from instead. */
	fx.r.provenance = "selected on seeds 0-4 of sweep 12; estimated on seeds 5-9";
	text = capture(report_print_table, &fx.r);
	assert_contains(text, "selected on seeds 0-4 of sweep 12; estimated on seeds 5-9: each mean "
	                      "is an honest estimate of its setting (which of them is best is "
	                      "chosen on these seeds again)\n");
	assert_null(strstr(text, "winner's curse"));
	free(text);
	text = capture(report_print_json, &fx.r);
	assert_contains(text, "\"provenance\": \"selected on seeds 0-4 of sweep 12; estimated on "
	                      "seeds 5-9\"");
	free(text);
	fx.r.provenance = NULL;

	report_rank(&fx.r, by_acc);
	report_order(&fx.r, 1);
	assert_int_equal(report_nshown(&fx.r), 1);
	assert_int_equal(report_shown(&fx.r, 0), 0);
	text = capture(report_print_table, &fx.r);
	assert_null(strstr(text, "\n0.01 "));
	assert_contains(text, "showing the best 1 of 2 settings, best first\n");
	free(text);
	text = capture(report_print_json, &fx.r);
	root = load_json(text);
	sets = json_object_get(root, "settings");
	assert_int_equal(json_array_size(sets), 1);
	assert_string_equal(json_string_value(json_object_get(
	                        json_object_get(json_array_get(sets, 0), "params"), "lr")),
	                    "0.1");
	json_decref(root);
	free(text);
	text = capture(report_print_csv, &fx.r);
	assert_null(strstr(text, "\n0.01,"));
	assert_contains(text, "\n0.1,");
	free(text);
	fixture_release(&fx);
}

static void test_report_json_incomplete(void **state)
{
	struct fixture fx;
	json_t *root, *set, *m, *failure;
	char *text;

	(void)state;
	fixture_start(&fx, recorded, 6);
	fixture_damage(&fx);
	fixture_check(&fx, fixture_plan2x3());

	/* Without --allow-incomplete: no settings at all, only the failures. */
	text = capture(report_print_json, &fx.r);
	root = load_json(text);
	assert_true(json_is_false(json_object_get(root, "complete")));
	assert_null(json_object_get(root, "settings"));
	assert_int_equal(json_array_size(json_object_get(root, "failures")), 3);
	failure = json_array_get(json_object_get(root, "failures"), 1);
	assert_int_equal(json_integer_value(json_object_get(failure, "index")), 4);
	assert_int_equal(json_integer_value(json_object_get(failure, "seed")), 22);
	assert_string_equal(json_string_value(json_object_get(failure, "state")), "FAILED");
	assert_int_equal(json_integer_value(json_object_get(failure, "exit_code")), 0);
	assert_int_equal(json_integer_value(json_object_get(failure, "signal")), 9);
	assert_string_equal(json_string_value(json_object_get(failure, "reason")), "out of memory");
	assert_string_equal(json_string_value(json_object_get(failure, "log")),
	                    "/home/u/logs/mnist_4242_4.out");
	failure = json_array_get(json_object_get(root, "failures"), 2);
	assert_true(json_is_null(json_object_get(failure, "exit_code")));
	assert_true(json_is_null(json_object_get(failure, "log")));
	assert_true(json_is_null(json_object_get(failure, "array_job_id")));
	json_decref(root);
	free(text);

	/* With it: the one-seed setting has a mean and null where nothing is defined. */
	fx.r.allow_incomplete = true;
	text = capture(report_print_json, &fx.r);
	root = load_json(text);
	set = json_array_get(json_object_get(root, "settings"), 1);
	assert_int_equal(json_integer_value(json_object_get(set, "n")), 1);
	assert_int_equal(json_integer_value(json_object_get(set, "n_planned")), 3);
	m = json_object_get(json_object_get(set, "metrics"), "acc");
	assert_json_number(m, "mean", 0.25);
	assert_true(json_is_null(json_object_get(m, "std")));
	assert_true(json_is_null(json_object_get(m, "ci95")));
	assert_int_equal(json_integer_value(json_object_get(m, "n")), 1);
	assert_int_equal(json_array_size(json_object_get(root, "failures")), 3);
	json_decref(root);
	free(text);
	fixture_release(&fx);
}

static void test_report_csv_complete(void **state)
{
	struct fixture fx;

	(void)state;
	fixture_start(&fx, recorded, 6);
	fixture_check(&fx, fixture_plan2x3());
	/* Full precision (the shortest text that reads back the same double). */
	assert_output(report_print_csv, &fx.r,
	              "lr,wd,n,n_planned,acc_mean,acc_std,acc_ci95,loss_mean,loss_std,loss_ci95,"
	              "excluded\n"
	              "0.1,0,3,3,0.75,0.25,0.6210344279375826,4,2,4.9682754235006605,\n"
	              "0.01,0,3,3,0.25,0,0,2,1,2.4841377117503303,\n");
	fixture_release(&fx);
}

static void test_report_csv_incomplete(void **state)
{
	struct fixture fx;

	(void)state;
	fixture_start(&fx, recorded, 6);
	fixture_damage(&fx);
	fixture_check(&fx, fixture_plan2x3());
	assert_output(report_print_csv, &fx.r,
	              "lr,wd,seed,index,state,exit_code,signal,reason,log\n"
	              "0.1,0,22,1,PENDING,,,still pending,\n"
	              "0.01,0,22,4,FAILED,0,9,out of memory,/home/u/logs/mnist_4242_4.out\n"
	              "0.01,0,33,5,MISSING,,,missing (no record in Slurm),\n");
	fx.r.allow_incomplete = true;
	assert_output(report_print_csv, &fx.r,
	              "lr,wd,n,n_planned,acc_mean,acc_std,acc_ci95,loss_mean,loss_std,loss_ci95,"
	              "excluded\n"
	              "0.1,0,2,3,0.75,0.3535533905932738,3.1765511840436744,4,2.8284271247461903,"
	              "25.412409472349395,seed 22: still pending\n"
	              "0.01,0,1,3,0.25,,,1,,,seed 22: out of memory; seed 33: missing (no record "
	              "in Slurm)\n");
	fixture_release(&fx);
}

static void test_report_csv_quoting(void **state)
{
	static char *qparams[] = {"model, size", "note"};
	static char *qvalues[] = {"resnet,50", "say \"hi\"", "plain", "two\nlines"};
	static int64_t qseeds[] = {0};
	static const struct plan qplan = {
	    .params = qparams,
	    .nparams = 2,
	    .values = qvalues,
	    .nsettings = 2,
	    .seeds = qseeds,
	    .nseeds = 1,
	    .ntasks = 2,
	    .varies = NULL,
	};
	static const char *const texts[] = {"{\"a,b\": 1}", "{\"a,b\": 2}"};
	struct fixture fx;

	(void)state;
	fixture_start(&fx, texts, 2);
	fx.o[1].state = TS_REQUEUED;
	fx.r.allow_incomplete = true;
	fixture_check(&fx, &qplan);
	assert_output(report_print_csv, &fx.r,
	              "\"model, size\",note,n,n_planned,\"a,b_mean\",\"a,b_std\",\"a,b_ci95\","
	              "excluded\n"
	              "\"resnet,50\",\"say \"\"hi\"\"\",1,1,1,,,\n"
	              "plain,\"two\nlines\",0,1,,,,\"seed 0: requeued, waiting to run again\"\n");
	fixture_release(&fx);
}

static void test_report_digits_follow_the_spread(void **state)
{
	/* 1e9 + {4, 7, 13, 16}: mean 1e9 + 10, std sqrt(30) = 5.47723. */
	static char *one[] = {"x"};
	static char *ovalues[] = {"1"};
	static int64_t four[] = {1, 2, 3, 4};
	static const struct plan plan1x4 = {
	    .params = one,
	    .nparams = 1,
	    .values = ovalues,
	    .nsettings = 1,
	    .seeds = four,
	    .nseeds = 4,
	    .ntasks = 4,
	    .varies = NULL,
	};
	static const char *const texts[] = {"{\"t\": 1000000004}", "{\"t\": 1000000007}",
	                                    "{\"t\": 1000000013}", "{\"t\": 1000000016}"};
	struct fixture fx;

	(void)state;
	fixture_start(&fx, texts, 4);
	fixture_check(&fx, &plan1x4);
	/* No parameter varies: the setting is named by all of them. */
	assert_output(report_print_table, &fx.r,
	              "sweep 'mnist' (id 7): 1 setting x 4 seeds = 4 tasks, all completed\n"
	              "mean ± sample std over the seeds that passed (n), 95% CI of the mean "
	              "(Student's t)\n"
	              "\n"
	              "x  t                           t 95% CI\n"
	              "1  1000000010.0 ± 5.5 (n = 4)  [1000000001.3, 1000000018.7]\n");
	fixture_release(&fx);
}

/*
 * Finite values of any size print as numbers: {1e170, 10} has mean 5e169
 * and std 7.07e169, {1e308, -1e308} mean 0 and std 1.41e308
 * (statistics.mean and statistics.stdev, tests/data/stats/expected.py);
 * the latter's CI half-width, 12.7 * 1e308, is past the largest double.
 * Before the values were scaled, the std was inf and the mean -inf or nan.
 */
static void test_report_huge_values(void **state)
{
	static char *one[] = {"x"};
	static char *ovalues[] = {"1"};
	static int64_t two[] = {1, 2};
	static const struct plan plan1x2 = {
	    .params = one,
	    .nparams = 1,
	    .values = ovalues,
	    .nsettings = 1,
	    .seeds = two,
	    .nseeds = 2,
	    .ntasks = 2,
	    .varies = NULL,
	};
	static const char *const huge[] = {"{\"t\": 1e170}", "{\"t\": 10}"};
	static const char *const opposite[] = {"{\"t\": 1e308}", "{\"t\": -1e308}"};
	/* statistics.mean and stdev: 3.333e307 and 1.155e308; 1, 2, 3: 2 ± 1. */
	static const char *const mixed[] = {"{\"t\": 1e308}", "{\"t\": 1e308}", "{\"t\": -1e308}",
	                                    "{\"t\": 1}",     "{\"t\": 2}",     "{\"t\": 3}"};
	struct fixture fx;
	json_t *root, *m;
	char *out;

	(void)state;
	fixture_start(&fx, huge, 2);
	fixture_check(&fx, &plan1x2);
	out = capture(report_print_table, &fx.r);
	assert_contains(out, "\n1  5.0e+169 ± 7.1e+169 (n = 2)  [-5.85e+170, 6.85e+170]\n");
	free(out);
	assert_output(report_print_csv, &fx.r,
	              "x,n,n_planned,t_mean,t_std,t_ci95,excluded\n"
	              "1,2,2,5e+169,7.071067811865476e+169,6.353102368087349e+170,\n");
	fixture_release(&fx);

	fixture_start(&fx, opposite, 2);
	fixture_check(&fx, &plan1x2);
	out = capture(report_print_table, &fx.r);
	assert_contains(out, "\n1  0 ± 1.41e+308 (n = 2)  [-inf, inf]\n");
	free(out);
	/* The CI past the doubles is no number: empty in CSV, null in JSON. */
	assert_output(report_print_csv, &fx.r,
	              "x,n,n_planned,t_mean,t_std,t_ci95,excluded\n"
	              "1,2,2,0,1.4142135623730951e+308,,\n");
	out = capture(report_print_json, &fx.r);
	root = load_json(out);
	m = json_object_get(
	    json_object_get(json_array_get(json_object_get(root, "settings"), 0), "metrics"), "t");
	assert_json_number(m, "mean", 0.0);
	assert_json_number(m, "std", 1.4142135623730951e+308);
	assert_true(json_is_null(json_object_get(m, "ci95")));
	json_decref(root);
	free(out);
	fixture_release(&fx);

	/*
	 * Next to a setting with a finite std, an infinite mean reached
	 * (int)floor(log10(inf)) when the digits were chosen: undefined, which
	 * the sanitizer build (float-cast-overflow) stops on.
	 */
	fixture_start(&fx, mixed, 6);
	fixture_check(&fx, fixture_plan2x3());
	out = capture(report_print_table, &fx.r);
	assert_contains(out, "\n0.1   3.3e+307 ± 1.15e+308 (n = 3)  [-inf, inf]\n");
	assert_contains(out, "\n0.01  2.00 ± 1.00 (n = 3)           [-0.48, 4.48]\n");
	free(out);
	fixture_release(&fx);
}

static void test_report_digits_tell_settings_apart(void **state)
{
	/* One seed each, so no std: the gap between the means sets the digits. */
	static char *one[] = {"x"};
	static char *xvalues[] = {"a", "b"};
	static int64_t seed[] = {0};
	static unsigned char vary[] = {1};
	static const struct plan plan2x1 = {
	    .params = one,
	    .nparams = 1,
	    .values = xvalues,
	    .nsettings = 2,
	    .seeds = seed,
	    .nseeds = 1,
	    .ntasks = 2,
	    .varies = vary,
	};
	static const char *const texts[] = {"{\"t\": 1000000001}", "{\"t\": 1000000002.5}"};
	struct fixture fx;
	char *out;

	(void)state;
	fixture_start(&fx, texts, 2);
	fixture_check(&fx, &plan2x1);
	out = capture(report_print_table, &fx.r);
	assert_contains(out, "\na  1000000001 ± n/a (n = 1)    n/a\n");
	assert_contains(out, "\nb  1000000002.5 ± n/a (n = 1)  n/a\n");
	free(out);
	fixture_release(&fx);
}

static void test_report_no_metrics(void **state)
{
	static const char *const texts[] = {"{}", "{}", "{}", "{}", "{}", "{}"};
	struct fixture fx;
	char *out;

	(void)state;
	fixture_start(&fx, texts, 6);
	fx.o[0].state = TS_CANCELLED;
	fx.r.allow_incomplete = true;
	fixture_check(&fx, fixture_plan2x3());
	out = capture(report_print_table, &fx.r);
	assert_contains(out, "no result file holds a numeric metric\n");
	assert_contains(out, "\nlr    n\n0.1   2 of 3\n0.01  3\n");
	free(out);
	fixture_release(&fx);
}

static void test_report_log_path(void **state)
{
	struct gate_failure f;
	struct report r;
	char *path;

	(void)state;
	report_init(&r);
	r.name = "mnist";
	r.logs = "/l";
	memset(&f, 0, sizeof(f));
	f.state = TS_TIMEOUT;
	f.array_job_id = 10;
	f.array_task_id = 3;
	path = report_log_path(&r, &f);
	assert_string_equal(path, "/l/mnist_10_3.out");
	free(path);
	/* No log yet, or no record to name it by. */
	f.state = TS_PENDING;
	assert_null(report_log_path(&r, &f));
	f.state = TS_MISSING;
	f.array_job_id = 0;
	assert_null(report_log_path(&r, &f));
	report_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_report_table_complete),
	    cmocka_unit_test(test_report_table_incomplete),
	    cmocka_unit_test(test_report_table_allow_incomplete),
	    cmocka_unit_test(test_report_table_result_hint),
	    cmocka_unit_test(test_report_json_complete),
	    cmocka_unit_test(test_report_json_incomplete),
	    cmocka_unit_test(test_report_ranked),
	    cmocka_unit_test(test_report_order_and_top),
	    cmocka_unit_test(test_report_shows_holm_p),
	    cmocka_unit_test(test_report_csv_complete),
	    cmocka_unit_test(test_report_csv_incomplete),
	    cmocka_unit_test(test_report_csv_quoting),
	    cmocka_unit_test(test_report_digits_follow_the_spread),
	    cmocka_unit_test(test_report_huge_values),
	    cmocka_unit_test(test_report_digits_tell_settings_apart),
	    cmocka_unit_test(test_report_no_metrics),
	    cmocka_unit_test(test_report_log_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
