#include "helpers.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outcome.h"
#include "task_table.h"

#include "banned.h"

/* A FAILED run of index 4 that ran on a node with another task. */
static void failed_outcome(struct task_outcome *o)
{
	memset(o, 0, sizeof(*o));
	o->state = TS_FAILED;
	o->exit_code = 0;
	o->signal = 9;
	o->elapsed_s = 75;
	o->timelimit_s = 3600;
	o->req_mem_mb = 2048;
	o->maxrss_bytes = 1536ULL << 20;
	o->node_mem_bytes = 3ULL << 30;
	o->tasks_per_node = 2;
	o->ncpus = 4;
	o->array_job_id = 4242;
	o->array_task_id = 4;
	o->restarts = 1;
	o->restart_states = 1u << TS_NODE_FAIL;
	o->attempts = 2;
}

static void assert_cell(enum task_col c, const struct task_row *row, const char *want)
{
	char *got = task_table_cell(c, row);

	assert_string_equal(got, want);
	free(got);
}

static void test_task_table_every_column(void **state)
{
	struct task_outcome o;
	struct task_row row;

	(void)state;
	failed_outcome(&o);
	task_row_init(&row, 4, &o);
	row.setting = "lr=0.1 wd=0";
	row.seed = 22;
	row.reason = "out of memory";
	row.request = "--mem=4G";
	row.note = "out of memory: needed more";
	row.log = "/home/u/logs/mnist_4242_4.out";
	row.cause = "MemoryError";
	row.mem_eff = 0.75;
	row.time_eff = 75.0 / 3600;
	row.cpu_eff = 0.234;

	assert_cell(TT_INDEX, &row, "4");
	assert_cell(TT_SETTING, &row, "lr=0.1 wd=0");
	assert_cell(TT_SEED, &row, "22");
	assert_cell(TT_STATE, &row, "FAILED");
	assert_cell(TT_ATTEMPTS, &row, "2");
	assert_cell(TT_EXIT, &row, "0:9");
	assert_cell(TT_JOB, &row, "4242_4");
	assert_cell(TT_ELAPSED, &row, "00:01:15");
	assert_cell(TT_TIME, &row, "01:00:00");
	assert_cell(TT_TIME_EFF, &row, "2%");
	assert_cell(TT_MAXRSS, &row, "1.5G (x 2: 3G/node)");
	assert_cell(TT_MEM, &row, "2G");
	assert_cell(TT_MEM_EFF, &row, "75%");
	assert_cell(TT_CPUS, &row, "4");
	assert_cell(TT_CPU_EFF, &row, "23%");
	assert_cell(TT_RESTARTS, &row, "1 (NODE_FAIL)");
	assert_cell(TT_REASON, &row, "out of memory");
	assert_cell(TT_REQUEST, &row, "--mem=4G");
	assert_cell(TT_NOTE, &row, "out of memory: needed more");
	assert_cell(TT_LOG, &row, "/home/u/logs/mnist_4242_4.out");
	assert_cell(TT_CAUSE, &row, "MemoryError");
}

/* A row the caller says little of: every column but INDEX, SEED and STATE reads "-". */
static void test_task_table_empty_row(void **state)
{
	struct task_row row;

	(void)state;
	task_row_init(&row, 5, NULL);
	assert_cell(TT_INDEX, &row, "5");
	assert_cell(TT_SEED, &row, "0");
	assert_cell(TT_STATE, &row, "MISSING");
	for (int c = 0; c < TT_NCOLS; c++) {
		if (c == TT_INDEX || c == TT_SEED || c == TT_STATE)
			continue;
		assert_cell((enum task_col)c, &row, "-");
	}
	row.state_text = "NOT_SUBMITTED";
	assert_cell(TT_STATE, &row, "NOT_SUBMITTED");
}

/* A held task is shown as one not started yet: HELD, no exit, no run time, its reason. */
static void test_task_table_held_row(void **state)
{
	struct task_outcome o;
	struct task_row row;

	(void)state;
	failed_outcome(&o);
	o.state = TS_HELD;
	o.hold = ACCT_HOLD_USER;
	o.pending_reason = "held by the user";
	task_row_init(&row, 4, &o);
	row.reason = o.pending_reason;
	assert_cell(TT_STATE, &row, "HELD");
	assert_cell(TT_EXIT, &row, "-");
	assert_cell(TT_ELAPSED, &row, "-");
	assert_cell(TT_REASON, &row, "held by the user");
}

/* Outcome fields that say "not known" read "-", one MaxRSS alone has no node note. */
static void test_task_table_unknown_values(void **state)
{
	struct task_outcome o;
	struct task_row row;

	(void)state;
	failed_outcome(&o);
	o.state = TS_PENDING;
	o.timelimit_s = ACCT_NO_VALUE;
	o.maxrss_bytes = ACCT_NO_VALUE;
	o.req_mem_mb = 0;
	o.ncpus = 0;
	o.restarts = 0;
	task_row_init(&row, 1, &o);
	assert_cell(TT_EXIT, &row, "-");
	assert_cell(TT_ELAPSED, &row, "-");
	assert_cell(TT_TIME, &row, "-");
	assert_cell(TT_MAXRSS, &row, "-");
	assert_cell(TT_MEM, &row, "-");
	assert_cell(TT_CPUS, &row, "-");
	assert_cell(TT_RESTARTS, &row, "0");
	o.state = TS_RUNNING;
	o.maxrss_bytes = 512ULL << 20;
	o.tasks_per_node = 1;
	assert_cell(TT_ELAPSED, &row, "-"); /* row.state is a copy: still PENDING */
	task_row_init(&row, 1, &o);
	assert_cell(TT_ELAPSED, &row, "00:01:15");
	assert_cell(TT_MAXRSS, &row, "512M");
}

static void test_task_table_exit_formats(void **state)
{
	static const struct {
		enum task_state state;
		int code, sig;
		const char *want;
	} cases[] = {
	    {TS_COMPLETED, 0, 0, "0"},
	    {TS_FAILED, 1, 0, "1"},
	    {TS_FAILED, 137, 0, "137"},
	    {TS_FAILED, 0, 9, "0:9"},
	    {TS_OUT_OF_MEMORY, 0, 9, "0:9"},
	    {TS_CANCELLED, 0, 15, "0:15"},
	    /* The scheduler's own signal at the time limit: Slurm keeps none, local SIGTERM. */
	    {TS_TIMEOUT, 0, 0, "0"},
	    {TS_TIMEOUT, 0, SIGTERM, "0"},
	    {TS_TIMEOUT, 138, 0, "138"},
	    {TS_DEADLINE, 0, SIGTERM, "0"},
	    /* No final state, no exit code yet. */
	    {TS_MISSING, 0, 0, "-"},
	    {TS_PENDING, 0, 0, "-"},
	    {TS_RUNNING, 0, 0, "-"},
	    {TS_SUSPENDED, 0, 0, "-"},
	    {TS_REQUEUED, 0, 15, "-"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = task_table_exit_text(cases[i].state, cases[i].code, cases[i].sig);

		if (strcmp(got, cases[i].want))
			fail_msg("case %zu: %s %d:%d gave '%s', not '%s'", i,
			         task_state_name(cases[i].state), cases[i].code, cases[i].sig, got,
			         cases[i].want);
		free(got);
	}
}

/* The same TIMEOUT from either backend reads the same. */
static void test_task_table_exit_same_on_both_backends(void **state)
{
	struct task_outcome slurm, local;
	struct task_row a, b;
	char *x, *y;

	(void)state;
	failed_outcome(&slurm);
	slurm.state = TS_TIMEOUT;
	slurm.signal = 0;
	local = slurm;
	local.signal = SIGTERM;
	task_row_init(&a, 0, &slurm);
	task_row_init(&b, 0, &local);
	x = task_table_cell(TT_EXIT, &a);
	y = task_table_cell(TT_EXIT, &b);
	assert_string_equal(x, y);
	free(x);
	free(y);
}

static void test_task_table_headers_upper_case(void **state)
{
	(void)state;
	for (int c = 0; c < TT_NCOLS; c++) {
		const char *name = task_col_name((enum task_col)c);

		assert_non_null(name);
		for (const char *p = name; *p; p++)
			assert_true((*p >= 'A' && *p <= 'Z') || *p == ' ');
	}
	assert_string_equal(task_col_name(TT_EXIT), "EXIT");
	assert_string_equal(task_col_name(TT_MEM_EFF), "MEM EFF");
}

static char *print_table(const struct task_table *t)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	task_table_print(f, t);
	fclose(f);
	return text;
}

/* A table has the columns it picks, in its order; counts are right-aligned. */
static void test_task_table_column_selection(void **state)
{
	static const enum task_col cols[] = {TT_INDEX, TT_STATE, TT_EXIT, TT_ATTEMPTS, TT_REASON};
	struct task_outcome o[2];
	struct task_table t;
	char *text;

	(void)state;
	failed_outcome(&o[0]);
	failed_outcome(&o[1]);
	o[1].state = TS_COMPLETED;
	o[1].signal = 0;
	o[1].attempts = 12;
	task_table_init(&t, cols, sizeof(cols) / sizeof(cols[0]));
	for (size_t i = 0; i < 2; i++) {
		struct task_row row;

		task_row_init(&row, i * 10, &o[i]);
		row.reason = i ? NULL : "out of memory";
		task_table_add(&t, &row);
	}
	text = print_table(&t);
	assert_string_equal(text, "INDEX  STATE      EXIT  ATTEMPTS  REASON\n"
	                          "0      FAILED     0:9          2  out of memory\n"
	                          "10     COMPLETED  0           12  -\n");
	free(text);
	task_table_release(&t);
}

/* The same column reads the same in two tables that pick it in different places. */
static void test_task_table_same_cell_everywhere(void **state)
{
	static const enum task_col a[] = {TT_INDEX, TT_SETTING, TT_EXIT};
	static const enum task_col b[] = {TT_EXIT, TT_INDEX};
	struct task_outcome o;
	struct task_row row;
	struct task_table ta, tb;
	char *x, *y;

	(void)state;
	failed_outcome(&o);
	task_row_init(&row, 3, &o);
	row.setting = "lr=1";
	task_table_init(&ta, a, 3);
	task_table_init(&tb, b, 2);
	task_table_add(&ta, &row);
	task_table_add(&tb, &row);
	x = print_table(&ta);
	y = print_table(&tb);
	assert_string_equal(x, "INDEX  SETTING  EXIT\n"
	                       "3      lr=1     0:9\n");
	assert_string_equal(y, "EXIT  INDEX\n"
	                       "0:9   3\n");
	free(x);
	free(y);
	task_table_release(&ta);
	task_table_release(&tb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_task_table_every_column),
	    cmocka_unit_test(test_task_table_empty_row),
	    cmocka_unit_test(test_task_table_held_row),
	    cmocka_unit_test(test_task_table_unknown_values),
	    cmocka_unit_test(test_task_table_exit_formats),
	    cmocka_unit_test(test_task_table_exit_same_on_both_backends),
	    cmocka_unit_test(test_task_table_headers_upper_case),
	    cmocka_unit_test(test_task_table_column_selection),
	    cmocka_unit_test(test_task_table_same_cell_everywhere),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
