/*
 * Right-sizing: clean sizes, the arithmetic in thousandths, per-CPU
 * requests, lower bounds from tasks that ran out of memory or time, the
 * messages when the data support no recommendation, and the printers.
 */
#include "rightsize.h"
#include "rightsize_print.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include <cmocka.h>
#include <jansson.h>

#include "plan.h"
#include "outcome.h"
#include "store.h"
#include "strbuf.h"

#include "banned.h"

#define MIB (1024ull * 1024ull)

/* A plan of two settings (mode=a, mode=b) with two seeds each. */
static char *params[] = {"mode"};
static char *values[] = {"a", "b"};
static int64_t seeds[] = {0, 1};
static unsigned char varies[] = {1};
static const struct plan plan2x2 = {
    .params = params,
    .nparams = 1,
    .values = values,
    .nsettings = 2,
    .seeds = seeds,
    .nseeds = 2,
    .ntasks = 4,
    .varies = varies,
};

/* A task that ran: requested mem_mb and limit_s, used rss_mb and elapsed_s. */
static struct task_outcome ran(enum task_state state, int signal, uint64_t mem_mb, uint64_t rss_mb,
                               uint64_t limit_s, uint64_t elapsed_s)
{
	struct task_outcome o;

	memset(&o, 0, sizeof(o));
	o.state = state;
	o.signal = signal;
	o.req_mem_mb = mem_mb;
	o.maxrss_bytes = rss_mb == ACCT_NO_VALUE ? ACCT_NO_VALUE : rss_mb * MIB;
	o.timelimit_s = limit_s;
	o.elapsed_s = elapsed_s;
	o.attempts = 1;
	o.ncpus = 1;
	o.total_cpu_us = ACCT_NO_VALUE;
	o.gpu_util = ACCT_NO_VALUE;
	o.gpu_mem_bytes = ACCT_NO_VALUE;
	return o;
}

static struct task_outcome not_ran(enum task_state state)
{
	struct task_outcome o = ran(state, 0, 0, ACCT_NO_VALUE, ACCT_NO_VALUE, 0);

	return o;
}

static struct rightsize_policy defaults(void)
{
	struct rightsize_policy p;

	rightsize_policy_init(&p);
	return p;
}

/* ---- clean sizes and arithmetic ---- */

static void test_rightsize_clean_mem(void **state)
{
	static const struct {
		uint64_t in, want;
	} cases[] = {
	    {0, 64},      {1, 64},        {64, 64},       {65, 128},      {120, 128},
	    {200, 256},   {1000, 1024},   {1024, 1024},   {1025, 1536},   {1536, 1536},
	    {1537, 2048}, {16384, 16384}, {16385, 17408}, {20000, 20480}, {UINT64_MAX, UINT64_MAX},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (rightsize_clean_mem_mb(cases[i].in) != cases[i].want)
			fail_msg("clean_mem(%llu) = %llu, want %llu",
			         (unsigned long long)cases[i].in,
			         (unsigned long long)rightsize_clean_mem_mb(cases[i].in),
			         (unsigned long long)cases[i].want);
	}
}

static void test_rightsize_clean_time(void **state)
{
	(void)state;
	assert_int_equal(rightsize_clean_time_min(0), 1);
	assert_int_equal(rightsize_clean_time_min(1), 1);
	assert_int_equal(rightsize_clean_time_min(60), 1);
	assert_int_equal(rightsize_clean_time_min(61), 2);
	assert_int_equal(rightsize_clean_time_min(3600), 60);
	assert_int_equal(rightsize_clean_time_min(3601), 61);
}

static void test_rightsize_scale_up(void **state)
{
	(void)state;
	/* In floating point, 50 x 1.2 is 60.000000000000007: one second too many. */
	assert_int_equal(rightsize_scale_up(50, 1.2), 60);
	assert_int_equal(rightsize_clean_time_min(rightsize_scale_up(50, 1.2)), 1);
	assert_int_equal(rightsize_scale_up(100, 1.2), 120);
	assert_int_equal(rightsize_scale_up(7, 1.5), 11);
	assert_int_equal(rightsize_scale_up(0, 2), 0);
	assert_true(rightsize_scale_up(UINT64_MAX / 2, 3) == UINT64_MAX);
	assert_int_equal(rightsize_raise(100, 2), 200);
	assert_int_equal(rightsize_raise(100, 1), 101);
	assert_int_equal(rightsize_raise(0, 2), 1);
}

static void test_rightsize_parse_factor(void **state)
{
	static const struct {
		const char *in;
		bool strict;
		const char *why; /* NULL: accepted */
	} cases[] = {
	    {"1.2", false, NULL},
	    {"1", false, NULL},
	    {"2", true, NULL},
	    {"1.001", true, NULL},
	    {"1000", true, NULL},
	    {"1", true, "it must be more than 1 (at least 1.001)"},
	    {"1.0001", true, "it must be more than 1 (at least 1.001)"},
	    {"0.9", false, "it must be at least 1"},
	    {"", false, "expected a number such as 1.5"},
	    {"x", false, "expected a number such as 1.5"},
	    {"-2", false, "expected a number such as 1.5"},
	    {"2x", false, "expected a number such as 1.5"},
	    {"inf", false, "expected a number such as 1.5"},
	    {"nan", false, "expected a number such as 1.5"},
	    {"1e9", false, "it must be at most 1000"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *why = NULL;
		double v = 0;
		int ret = rightsize_parse_factor(&v, cases[i].in, 1.0, cases[i].strict, &why);

		if (!cases[i].why) {
			if (ret != 0)
				fail_msg("'%s' refused: %s", cases[i].in, why);
			continue;
		}
		if (ret != -1)
			fail_msg("'%s' accepted", cases[i].in);
		assert_string_equal(why, cases[i].why);
	}
}

/* ---- per task ---- */

static void test_rightsize_lower_bound_states(void **state)
{
	struct task_outcome o;

	(void)state;
	o = ran(TS_OUT_OF_MEMORY, 0, 100, 100, 60, 5);
	assert_true(rightsize_out_of_memory(&o));
	o = ran(TS_FAILED, 9, 100, 100, 60, 5); /* OverMemoryKill without cgroups */
	assert_true(rightsize_out_of_memory(&o));
	o = ran(TS_FAILED, 0, 100, 100, 60, 5);
	assert_false(rightsize_out_of_memory(&o));
	/* The kernel's OOM killer first: the command died of SIGKILL (137) over its request. */
	o = ran(TS_FAILED, 0, 100, 168, 60, 1);
	o.exit_code = 137;
	assert_true(rightsize_out_of_memory(&o));
	o = ran(TS_FAILED, 0, 100, 40, 60, 1); /* kill -9 well under its memory: not memory */
	o.exit_code = 137;
	assert_false(rightsize_out_of_memory(&o));
	/* 22.05 records the script's 137 as FAILED 9:0 (recorded in test_faults). */
	o = ran(TS_FAILED, 0, 100, 418, 60, 1);
	o.exit_code = 9;
	assert_true(rightsize_out_of_memory(&o));
	o = ran(TS_FAILED, 0, 100, 40, 60, 1); /* a program's own exit(9) under its memory */
	o.exit_code = 9;
	assert_false(rightsize_out_of_memory(&o));
	o = ran(TS_FAILED, 0, 100, ACCT_NO_VALUE, 60, 1);
	o.exit_code = 137;
	assert_false(rightsize_out_of_memory(&o));
	o = ran(TS_CANCELLED, 9, 100, 100, 60, 5); /* scancel: not memory */
	assert_false(rightsize_out_of_memory(&o));
	o = ran(TS_TIMEOUT, 0, 100, 10, 60, 61);
	assert_true(rightsize_out_of_time(&o));
	assert_false(rightsize_out_of_memory(&o));

	/* What it had: the larger of request and measure. */
	o = ran(TS_FAILED, 9, 100, 130, 60, 5);
	assert_int_equal(rightsize_mem_bound_mb(&o), 130);
	o = ran(TS_FAILED, 9, 100, 80, 60, 5);
	assert_int_equal(rightsize_mem_bound_mb(&o), 100);
	o = ran(TS_TIMEOUT, 0, 100, 10, 60, 65);
	assert_int_equal(rightsize_time_bound_s(&o), 65);
	o = ran(TS_TIMEOUT, 0, 100, 10, 60, 59);
	assert_int_equal(rightsize_time_bound_s(&o), 60);

	/* A task cancelled while pending measured nothing. */
	o = not_ran(TS_CANCELLED);
	assert_false(rightsize_ran(&o));
	o = ran(TS_CANCELLED, 0, 100, 20, 60, 30);
	assert_true(rightsize_ran(&o));
	o = not_ran(TS_RUNNING);
	assert_false(rightsize_ran(&o));
}

static void test_rightsize_task_efficiency(void **state)
{
	struct rightsize_task t;
	struct task_outcome o = ran(TS_COMPLETED, 0, 400, 100, 600, 150);

	(void)state;
	rightsize_task_eval(&t, &o);
	assert_float_equal(t.mem_eff, 0.25, 1e-9);
	assert_float_equal(t.time_eff, 0.25, 1e-9);

	o = ran(TS_COMPLETED, 0, 0, 100, ACCT_NO_VALUE, 150);
	rightsize_task_eval(&t, &o);
	assert_true(isnan(t.mem_eff));
	assert_true(isnan(t.time_eff));

	o = not_ran(TS_PENDING);
	rightsize_task_eval(&t, &o);
	assert_true(isnan(t.mem_eff));
}

/* A per-CPU request (MEM_PER_CPU) counts as per CPU times the task's CPUs. */
static void test_rightsize_per_cpu_memory(void **state)
{
	struct acct_set set;
	struct acct_rec *rec;
	struct array_rec arr = {77, 0, (char *)"0", 1, 0, 1, NULL};
	struct task_outcome o;
	struct rightsize_task t;
	struct rightsize_group g;
	struct rightsize_policy p = defaults();

	(void)state;
	acct_set_init(&set);
	rec = acct_set_add(&set);
	rec->array_job_id = 77;
	rec->array_task_id = 0;
	rec->job_id = 78;
	rec->state = TS_COMPLETED;
	rec->req_mem_mb = 256;
	rec->req_mem_per_cpu = true;
	rec->ncpus = 4;
	rec->maxrss_bytes = 512 * MIB;
	rec->timelimit_s = 600;
	rec->elapsed_s = 60;
	assert_int_equal(outcome_build(&o, 1, &arr, 1, &set), 0);
	assert_int_equal(o.req_mem_mb, 1024);
	rightsize_task_eval(&t, &o);
	assert_float_equal(t.mem_eff, 0.5, 1e-9);
	rightsize_group_build(&g, &o, 1, &p);
	assert_int_equal(g.req_mem_mb, 1024);
	assert_int_equal(g.mem_gap, RIGHTSIZE_OK);
	assert_int_equal(g.mem_mb, 640); /* 512 x 1.2 = 615 -> 640 */
	/* Every task asked per CPU: the per-CPU need too, 640M over 4 CPUs. */
	assert_true(g.per_cpu);
	assert_int_equal(g.cpus_per_node, 4);
	assert_int_equal(g.mem_per_cpu_mb, 192); /* 160 -> the next multiple of 64 */
	acct_set_release(&set);
}

/*
 * Several tasks per node: the node needed the sum of their peaks, taken as
 * MaxRSS x tasks per node (an upper bound, and said so).
 */
static void test_rightsize_per_node_memory(void **state)
{
	static const struct {
		uint64_t maxrss;
		uint32_t ntasks, nnodes;
		uint64_t need;
		uint32_t per;
	} rows[] = {
	    {100, 1, 1, 100, 1},
	    {100, 4, 1, 400, 4},
	    {100, 4, 2, 200, 2},
	    {100, 5, 2, 300, 3}, /* the busiest node: 3 */
	    {100, 0, 1, 100, 1},
	    {100, 4, 0, 100, 1}, /* unknown: one task */
	    {100, 0xfffffffe, 0xfffffffe, 100, 1},
	    {UINT64_MAX / 2, 4, 1, UINT64_MAX - 1, 4}, /* saturates */
	};
	struct acct_set set;
	struct acct_rec *rec;
	struct array_rec arr = {.job_id = 77, .spec = (char *)"0", .attempt = 1};
	struct task_outcome o;
	struct rightsize_group g;
	struct rightsize_policy p = defaults();
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		uint32_t per = 0;

		if (acct_node_need(rows[i].maxrss, rows[i].ntasks, rows[i].nnodes, &per) !=
		        rows[i].need ||
		    per != rows[i].per)
			fail_msg("row %zu", i);
	}

	/* 4 tasks of 300M each on one node under --mem=1G: the node needed 1200M. */
	acct_set_init(&set);
	rec = acct_set_add(&set);
	rec->array_job_id = 77;
	rec->array_task_id = 0;
	rec->job_id = 78;
	rec->state = TS_OUT_OF_MEMORY;
	rec->req_mem_mb = 1024;
	rec->ncpus = 4;
	rec->nnodes = 1;
	rec->maxrss_bytes = 300 * MIB;
	rec->node_mem_bytes = acct_node_need(rec->maxrss_bytes, 4, 1, &rec->tasks_per_node);
	rec->timelimit_s = 600;
	rec->elapsed_s = 60;
	assert_int_equal(outcome_build(&o, 1, &arr, 1, &set), 0);
	assert_int_equal(o.tasks_per_node, 4);
	assert_int_equal(rightsize_need_bytes(&o), 1200 * MIB);
	assert_int_equal(rightsize_mem_bound_mb(&o), 1200);
	rightsize_group_build(&g, &o, 1, &p);
	assert_int_equal(g.peak_rss, 1200 * MIB);
	assert_int_equal(g.mem_mb, 2560); /* 1200 x 2 = 2400 -> 2.5G */
	assert_false(g.per_cpu);
	assert_int_equal(g.mem_per_cpu_mb, 0);
	rightsize_explain_bounds(&sb, &g, &p, "; ");
	assert_non_null(strstr(sb.buf, "up to 4 tasks ran on one node: the memory a node needed "
	                               "is taken as MaxRSS x 4, an upper bound"));
	strbuf_release(&sb);
	acct_set_release(&set);
}

/* ---- groups ---- */

static void test_rightsize_group_plain(void **state)
{
	struct task_outcome o[3] = {
	    ran(TS_COMPLETED, 0, 4096, 1000, 3600, 600),
	    ran(TS_COMPLETED, 0, 4096, 1500, 3600, 1200),
	    ran(TS_FAILED, 0, 4096, 200, 3600, 100), /* exit code: still a measure */
	};
	struct rightsize_policy p = defaults();
	struct rightsize_group g;
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	o[2].exit_code = 1;
	rightsize_group_build(&g, o, 3, &p);
	assert_int_equal(g.nran, 3);
	assert_int_equal(g.peak_rss, 1500 * MIB);
	assert_int_equal(g.longest_s, 1200);
	assert_int_equal(g.mem_gap, RIGHTSIZE_OK);
	assert_int_equal(g.mem_mb, 2048); /* 1500 x 1.2 = 1800 -> 2048 */
	assert_int_equal(g.time_min, 24); /* 1200 x 1.2 = 1440 s */
	assert_float_equal(g.mem_eff_min, 200.0 / 4096, 1e-9);
	assert_float_equal(g.mem_eff_max, 1500.0 / 4096, 1e-9);
	rightsize_explain_bounds(&sb, &g, &p, "; ");
	assert_string_equal(sb.buf, "");
	strbuf_release(&sb);
}

static void test_rightsize_group_lower_bounds(void **state)
{
	struct task_outcome o[3] = {
	    ran(TS_COMPLETED, 0, 100, 40, 60, 4),
	    ran(TS_FAILED, 9, 100, 101, 60, 3),  /* killed for memory */
	    ran(TS_TIMEOUT, 0, 100, 10, 60, 65), /* killed for time */
	};
	struct rightsize_policy p = defaults();
	struct rightsize_group g;
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	rightsize_group_build(&g, o, 3, &p);
	assert_int_equal(g.noom, 1);
	assert_int_equal(g.ntimeout, 1);
	assert_int_equal(g.mem_bound_mb, 101);
	assert_int_equal(g.time_bound_s, 65);
	/* More than they had: 101 x 2 = 202 -> 256M; 65 s x 2 = 130 s -> 3 min. */
	assert_int_equal(g.mem_mb, 256);
	assert_int_equal(g.time_min, 3);
	assert_true(g.mem_mb > g.mem_bound_mb && g.time_min * 60 > g.time_bound_s);
	rightsize_explain_bounds(&sb, &g, &p, "; ");
	assert_string_equal(sb.buf,
	                    "1 task ran out of memory with 101M: it needed more, so --mem is at "
	                    "least 2 x that; 1 task hit the time limit after 00:01:05: it needed "
	                    "more, so --time is at least 2 x that");
	strbuf_release(&sb);

	/* Even with factors barely above 1, the recommendation exceeds what they had. */
	p.mem_factor = 1.001;
	p.time_factor = 1.001;
	p.headroom = 1;
	o[1] = ran(TS_OUT_OF_MEMORY, 0, 1024, ACCT_NO_VALUE, 60, 3);
	o[2] = ran(TS_TIMEOUT, 0, 100, 10, 120, 120);
	rightsize_group_build(&g, o, 3, &p);
	assert_int_equal(g.mem_bound_mb, 1024);
	assert_true(g.mem_mb > 1024);
	assert_true(g.time_min * 60 > 120);
}

static void test_rightsize_group_several_bounds(void **state)
{
	struct task_outcome o[2] = {
	    ran(TS_OUT_OF_MEMORY, 0, 100, ACCT_NO_VALUE, 60, 3),
	    ran(TS_FAILED, 9, 200, 150, 60, 3),
	};
	struct rightsize_policy p = defaults();
	struct rightsize_group g;
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	rightsize_group_build(&g, o, 2, &p);
	assert_int_equal(g.mem_bound_mb, 200);
	assert_int_equal(g.mem_mb, 448); /* 200 x 2 = 400 -> 448 */
	rightsize_explain_bounds(&sb, &g, &p, "; ");
	assert_string_equal(sb.buf, "2 tasks ran out of memory with up to 200M: they needed "
	                            "more, so --mem is at least 2 x that");
	strbuf_release(&sb);
}

static void test_rightsize_no_data(void **state)
{
	static const struct {
		const char *what;
		struct task_outcome o[2];
		enum rightsize_gap mem, time;
		const char *mem_why, *time_why;
	} cases[] = {
	    {"still running",
	     {{.state = TS_RUNNING}, {.state = TS_COMPLETED, .maxrss_bytes = MIB, .elapsed_s = 5}},
	     RIGHTSIZE_ACTIVE,
	     RIGHTSIZE_ACTIVE,
	     "1 task is still pending or running: ask again when it has ended",
	     "1 task is still pending or running: ask again when it has ended"},
	    {"two pending",
	     {{.state = TS_PENDING}, {.state = TS_REQUEUED}},
	     RIGHTSIZE_ACTIVE,
	     RIGHTSIZE_ACTIVE,
	     "2 tasks are still pending or running: ask again when they have ended",
	     "2 tasks are still pending or running: ask again when they have ended"},
	    {"no record",
	     {{.state = TS_MISSING}, {.state = TS_MISSING}},
	     RIGHTSIZE_NO_RECORD,
	     RIGHTSIZE_NO_RECORD,
	     "no task has a record in Slurm accounting: nothing was measured",
	     "no task has a record in Slurm accounting: nothing was measured"},
	    {"cancelled before running",
	     {{.state = TS_CANCELLED, .maxrss_bytes = ACCT_NO_VALUE}, {.state = TS_MISSING}},
	     RIGHTSIZE_NO_FINISHED,
	     RIGHTSIZE_NO_FINISHED,
	     "no task has run to its end: nothing was measured",
	     "no task has run to its end: nothing was measured"},
	    {"no MaxRSS",
	     {{.state = TS_COMPLETED, .maxrss_bytes = ACCT_NO_VALUE, .elapsed_s = 0},
	      {.state = TS_COMPLETED, .maxrss_bytes = ACCT_NO_VALUE, .elapsed_s = 1}},
	     RIGHTSIZE_NO_MAXRSS,
	     RIGHTSIZE_OK,
	     "no task that ran has a MaxRSS (tasks shorter than the accounting sampling "
	     "interval, JobAcctGatherFrequency, leave none): --mem cannot be sized from them",
	     ""},
	};
	struct rightsize_policy p = defaults();

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct task_outcome o[2];
		struct rightsize_group g;
		struct strbuf sb = STRBUF_INIT;

		memcpy(o, cases[i].o, sizeof(o));
		for (int k = 0; k < 2; k++)
			if (o[k].state == TS_RUNNING || o[k].state == TS_PENDING ||
			    o[k].state == TS_REQUEUED || o[k].state == TS_MISSING)
				o[k].maxrss_bytes = ACCT_NO_VALUE;
		rightsize_group_build(&g, o, 2, &p);
		if (g.mem_gap != cases[i].mem || g.time_gap != cases[i].time)
			fail_msg("%s: gaps %d %d", cases[i].what, g.mem_gap, g.time_gap);
		rightsize_explain(&sb, &g, g.mem_gap);
		assert_string_equal(sb.buf, cases[i].mem_why);
		strbuf_reset(&sb);
		rightsize_explain(&sb, &g, g.time_gap);
		assert_string_equal(sb.buf, cases[i].time_why);
		strbuf_release(&sb);
		if (g.mem_gap != RIGHTSIZE_OK)
			assert_int_equal(g.mem_mb, 0);
	}
}

/* An out-of-memory task alone still sizes --mem, from its lower bound. */
static void test_rightsize_bound_without_maxrss(void **state)
{
	struct task_outcome o = ran(TS_OUT_OF_MEMORY, 0, 100, ACCT_NO_VALUE, 60, 1);
	struct rightsize_policy p = defaults();
	struct rightsize_group g;

	(void)state;
	rightsize_group_build(&g, &o, 1, &p);
	assert_int_equal(g.mem_gap, RIGHTSIZE_OK);
	assert_int_equal(g.mem_mb, 256);
	assert_int_equal(g.nno_rss, 1);
}

/* ---- the whole sweep and the printers ---- */

static void sweep_outcomes(struct task_outcome *o)
{
	o[0] = ran(TS_COMPLETED, 0, 100, 40, 60, 4); /* mode=a */
	o[1] = ran(TS_COMPLETED, 0, 100, 30, 60, 5);
	o[2] = ran(TS_FAILED, 9, 100, 101, 60, 3); /* mode=b */
	o[3] = ran(TS_TIMEOUT, 0, 100, 10, 60, 65);
	o[3].attempts = 2;
}

static void test_rightsize_build(void **state)
{
	struct task_outcome o[4];
	struct rightsize r;
	struct rightsize_policy p = defaults();

	(void)state;
	sweep_outcomes(o);
	rightsize_init(&r);
	rightsize_build(&r, &plan2x2, o, &p);
	assert_int_equal(r.nsettings, 2);
	assert_int_equal(r.settings[0].ntasks, 2);
	assert_int_equal(r.settings[0].mem_mb, 64);  /* 40 x 1.2 = 48 */
	assert_int_equal(r.settings[0].time_min, 1); /* 5 x 1.2 = 6 s */
	assert_int_equal(r.settings[1].mem_mb, 256);
	assert_int_equal(r.settings[1].time_min, 3);
	assert_int_equal(r.sweep.mem_mb, 256);
	assert_int_equal(r.sweep.time_min, 3);
	assert_true(rightsize_complete(&r));
	assert_float_equal(r.tasks[0].mem_eff, 0.4, 1e-9);
	rightsize_release(&r);
	rightsize_release(&r); /* released twice is harmless */
}

static char *print_to_string(const struct rightsize *r, bool json, bool tasks);

/*
 * CPU efficiency = TotalCPU / (elapsed x CPUs): two tasks of 4 CPUs, 100 s
 * each, that used 60 s and 100 s of CPU: 160 / 800 = 20%; the busiest kept
 * one CPU busy, so --cpus-per-task = ceil(1 x 1.2) = 2.
 */
static void test_rightsize_cpu_and_gpu(void **state)
{
	struct task_outcome o[4];
	struct rightsize r;
	struct rightsize_policy p = defaults();
	struct rightsize_task t;
	json_t *root, *rec;
	char *out;

	(void)state;
	for (size_t i = 0; i < 4; i++) {
		o[i] = ran(TS_COMPLETED, 0, 1000, 100, 600, 100);
		o[i].ncpus = 4;
	}
	o[0].total_cpu_us = 60000000;
	o[1].total_cpu_us = 100000000;
	o[2].total_cpu_us = 380000000; /* setting b: 3.8 of 4 busy */
	o[3].total_cpu_us = ACCT_NO_VALUE;
	rightsize_task_eval(&t, &o[0]);
	assert_float_equal(t.cpu_eff, 0.15, 1e-12);
	rightsize_task_eval(&t, &o[3]);
	assert_true(isnan(t.cpu_eff));
	rightsize_init(&r);
	rightsize_build(&r, &plan2x2, o, &p);
	assert_float_equal(r.settings[0].cpu_eff, 0.2, 1e-12);
	assert_float_equal(r.settings[0].cores_busy, 1.0, 1e-12);
	assert_int_equal(r.settings[0].cpus, 2);
	/* b: busy, no advice; its task without TotalCPU is left out. */
	assert_float_equal(r.settings[1].cpu_eff, 0.95, 1e-12);
	assert_int_equal(r.settings[1].ncpu_known, 1);
	assert_int_equal(r.settings[1].cpus, 0);
	/* The sweep: 540 / 1200 = 45% used; the busiest kept 3.8 busy: 5 > 4, no advice. */
	assert_float_equal(r.sweep.cpu_eff, 0.45, 1e-12);
	assert_int_equal(r.sweep.cpus, 0);
	out = print_to_string(&r, false, false);
	assert_non_null(strstr(out, "20% of 4"));
	assert_non_null(strstr(out, "CPU: 45% of the allocated CPUs used"));
	assert_non_null(strstr(out, "GPU: utilisation and memory not recorded by this cluster\n"));
	assert_null(strstr(out, "--cpus-per-task"));
	free(out);
	rightsize_release(&r);

	/* Setting a alone as the sweep's: advice in both forms, and GPU figures. */
	o[2] = o[0];
	o[3] = o[1];
	o[1].gpu_util = 35;
	o[1].gpu_mem_bytes = 3ull << 30;
	rightsize_build(&r, &plan2x2, o, &p);
	r.gpu_recorded = true;
	out = print_to_string(&r, false, false);
	assert_non_null(strstr(out, "most sits idle, ask --cpus-per-task=2\n"));
	assert_non_null(strstr(out, "  #SBATCH --cpus-per-task=2\n"));
	assert_non_null(strstr(out, "    cpus_per_task: 2\n"));
	assert_non_null(strstr(out, "GPU: peak utilisation 35%, peak memory 3G"));
	free(out);
	out = print_to_string(&r, true, false);
	root = json_loads(out, 0, NULL);
	assert_non_null(root);
	rec = json_object_get(root, "recommendation");
	assert_float_equal(json_real_value(json_object_get(rec, "cpu_efficiency")), 0.2, 1e-6);
	assert_int_equal(json_integer_value(json_object_get(rec, "cpus_per_task")), 2);
	assert_int_equal(json_integer_value(json_object_get(rec, "gpu_util_percent")), 35);
	assert_true(json_is_true(json_object_get(rec, "gpu_recorded")));
	assert_float_equal(
	    json_real_value(json_object_get(json_array_get(json_object_get(root, "tasks"), 0),
	                                    "cpu_efficiency")),
	    0.15, 1e-6);
	json_decref(root);
	free(out);
	rightsize_release(&r);

	/* One CPU: nothing to take away, whatever the efficiency. */
	for (size_t i = 0; i < 4; i++)
		o[i].ncpus = 1;
	rightsize_build(&r, &plan2x2, o, &p);
	assert_int_equal(r.sweep.cpus, 0);
	rightsize_release(&r);
}

static char *print_to_string(const struct rightsize *r, bool json, bool tasks)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	if (json)
		rightsize_print_json(f, r);
	else
		rightsize_print_table(f, r, tasks);
	fclose(f);
	return buf;
}

static void test_rightsize_print_table(void **state)
{
	struct task_outcome o[4];
	struct rightsize r;
	struct rightsize_policy p = defaults();
	char *out;

	(void)state;
	sweep_outcomes(o);
	rightsize_init(&r);
	rightsize_build(&r, &plan2x2, o, &p);
	r.name = "rs";
	r.id = 7;
	out = print_to_string(&r, false, true);
	assert_non_null(strstr(out, "sweep 7 'rs': 4 tasks in 2 settings\n"));
	assert_non_null(strstr(out, "#SBATCH --mem=256M\n"));
	assert_non_null(strstr(out, "#SBATCH --time=00:03:00\n"));
	assert_non_null(strstr(out, "  slurm:\n    mem: 256M\n    time: \"00:03:00\"\n"));
	assert_non_null(strstr(out, "1 out of memory, 1 over time"));
	assert_non_null(strstr(out, "1 task ran out of memory with 101M"));
	assert_non_null(strstr(out, "out of memory: needed more"));
	assert_non_null(strstr(out, "time limit: needed more"));
	free(out);

	/* Still running: says so, and recommends nothing. */
	o[3] = not_ran(TS_RUNNING);
	rightsize_release(&r);
	rightsize_build(&r, &plan2x2, o, &p);
	r.name = "rs";
	assert_false(rightsize_complete(&r));
	out = print_to_string(&r, false, false);
	assert_non_null(strstr(out, "no recommendation: 1 task is still pending or running: "
	                            "ask again when it has ended.\n"));
	assert_null(strstr(out, "#SBATCH"));
	free(out);
	rightsize_release(&r);
}

static void test_rightsize_print_json(void **state)
{
	struct task_outcome o[4];
	struct rightsize r;
	struct rightsize_policy p = defaults();
	json_error_t err;
	json_t *root, *rec, *tasks, *settings;
	char *out;

	(void)state;
	sweep_outcomes(o);
	o[0].maxrss_bytes = ACCT_NO_VALUE;
	o[1].maxrss_bytes = ACCT_NO_VALUE;
	rightsize_init(&r);
	rightsize_build(&r, &plan2x2, o, &p);
	r.name = "rs";
	r.id = 7;
	out = print_to_string(&r, true, false);
	root = json_loads(out, 0, &err);
	if (!root)
		fail_msg("not JSON: %s\n%s", err.text, out);
	rec = json_object_get(root, "recommendation");
	assert_string_equal(json_string_value(json_object_get(rec, "mem")), "256M");
	assert_int_equal(json_integer_value(json_object_get(rec, "mem_mb")), 256);
	assert_string_equal(json_string_value(json_object_get(rec, "time")), "00:03:00");
	assert_int_equal(json_integer_value(json_object_get(rec, "time_min")), 3);
	assert_true(json_is_null(json_object_get(rec, "mem_why_not")));
	assert_non_null(json_string_value(json_object_get(rec, "lower_bounds")));
	settings = json_object_get(root, "settings");
	assert_int_equal(json_array_size(settings), 2);
	/* Setting a: no MaxRSS at all. */
	assert_true(json_is_null(json_object_get(json_array_get(settings, 0), "mem")));
	assert_non_null(
	    strstr(json_string_value(json_object_get(json_array_get(settings, 0), "mem_why_not")),
	           "JobAcctGatherFrequency"));
	assert_string_equal(json_string_value(json_object_get(
	                        json_object_get(json_array_get(settings, 1), "params"), "mode")),
	                    "b");
	tasks = json_object_get(root, "tasks");
	assert_int_equal(json_array_size(tasks), 4);
	assert_string_equal(
	    json_string_value(json_object_get(json_array_get(tasks, 2), "lower_bound")), "memory");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(tasks, 3), "attempts")),
	                 2);
	assert_true(json_is_null(json_object_get(json_array_get(tasks, 0), "mem_efficiency")));
	json_decref(root);
	free(out);
	rightsize_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rightsize_clean_mem),
	    cmocka_unit_test(test_rightsize_clean_time),
	    cmocka_unit_test(test_rightsize_scale_up),
	    cmocka_unit_test(test_rightsize_parse_factor),
	    cmocka_unit_test(test_rightsize_lower_bound_states),
	    cmocka_unit_test(test_rightsize_task_efficiency),
	    cmocka_unit_test(test_rightsize_per_cpu_memory),
	    cmocka_unit_test(test_rightsize_per_node_memory),
	    cmocka_unit_test(test_rightsize_group_plain),
	    cmocka_unit_test(test_rightsize_group_lower_bounds),
	    cmocka_unit_test(test_rightsize_group_several_bounds),
	    cmocka_unit_test(test_rightsize_no_data),
	    cmocka_unit_test(test_rightsize_bound_without_maxrss),
	    cmocka_unit_test(test_rightsize_build),
	    cmocka_unit_test(test_rightsize_cpu_and_gpu),
	    cmocka_unit_test(test_rightsize_print_table),
	    cmocka_unit_test(test_rightsize_print_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
