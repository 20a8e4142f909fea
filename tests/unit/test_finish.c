/*
 * What a follow-up decides: which failures another run heals, which tasks a
 * retry round runs (and with what: the resubmission plan itself), and the
 * decision round by round until the last follow-up notifies.
 */
#include "finish.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "outcome.h"
#include "resubmit.h"

#include "banned.h"

#define MIB (1024ull * 1024ull)

static struct task_outcome task(enum task_state state, int exit_code, int signal)
{
	struct task_outcome o;

	memset(&o, 0, sizeof(o));
	o.state = state;
	o.exit_code = exit_code;
	o.signal = signal;
	o.req_mem_mb = state == TS_MISSING ? 0 : 100;
	o.timelimit_s = state == TS_MISSING ? ACCT_NO_VALUE : 60;
	o.maxrss_bytes = ACCT_NO_VALUE;
	o.elapsed_s = state == TS_MISSING ? 0 : 5;
	o.attempts = state == TS_MISSING ? 0 : 1;
	return o;
}

static void test_finish_fixable(void **state)
{
	static const struct {
		enum task_state state;
		int exit_code, signal;
		bool fixable;
	} cases[] = {
	    {TS_MISSING, 0, 0, true},       {TS_TIMEOUT, 0, 15, true},
	    {TS_OUT_OF_MEMORY, 0, 9, true}, {TS_FAILED, 0, 9, true}, /* OverMemoryKill */
	    {TS_CANCELLED, 0, 9, true},     {TS_NODE_FAIL, 0, 0, true},
	    {TS_PREEMPTED, 0, 0, true},     {TS_BOOT_FAIL, 0, 0, true},
	    {TS_DEADLINE, 0, 0, true},      {TS_FAILED, 1, 0, false}, /* the program's own exit */
	    {TS_FAILED, 0, 11, false},                                /* it crashed */
	    {TS_COMPLETED, 3, 0, false}, /* a runner that calls a non-zero exit COMPLETED */
	    {TS_COMPLETED, 0, 0, false},    {TS_RUNNING, 0, 0, false},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct task_outcome o = task(cases[i].state, cases[i].exit_code, cases[i].signal);

		if (finish_fixable(&o) != cases[i].fixable)
			fail_msg("case %zu (%s %d:%d): expected %s", i, task_state_name(o.state),
			         o.exit_code, o.signal,
			         cases[i].fixable ? "fixable" : "not fixable");
	}
}

/* 0 ok, 1 OOM, 2 exit 1, 3 timeout, 4 ok without its metric, 5 running, 6 missing. */
static void seven(struct task_outcome *o)
{
	o[0] = task(TS_COMPLETED, 0, 0);
	o[1] = task(TS_FAILED, 0, 9);
	o[1].maxrss_bytes = 99 * MIB;
	o[2] = task(TS_FAILED, 1, 0);
	o[3] = task(TS_TIMEOUT, 0, 15);
	o[3].elapsed_s = 60;
	o[4] = task(TS_COMPLETED, 0, 0);
	o[5] = task(TS_RUNNING, 0, 0);
	o[6] = task(TS_MISSING, 0, 0);
}

static void test_finish_select(void **state)
{
	struct task_outcome o[7];
	unsigned char only[7], metric_failed[7] = {0, 0, 0, 0, 1, 0, 0};

	(void)state;
	seven(o);
	/* Only what another run heals: OOM, timeout, missing. */
	assert_int_equal(finish_select(only, o, 7, false, metric_failed), 3);
	assert_memory_equal(only, ((unsigned char[]){0, 1, 0, 1, 0, 0, 1}), 7);
	/* retry_on_exit: the exit and the missing metric too; never a running task. */
	assert_int_equal(finish_select(only, o, 7, true, metric_failed), 5);
	assert_memory_equal(only, ((unsigned char[]){0, 1, 1, 1, 1, 0, 1}), 7);
	assert_int_equal(finish_select(only, o, 7, true, NULL), 4);
}

/* A retry round is a resubmission of the selected tasks: more of what each lacked. */
static void test_finish_round_plan(void **state)
{
	struct task_outcome o[7];
	unsigned char only[7];
	struct resubmit_policy p = {0};
	struct resubmit_plan plan;
	const char *why = NULL;

	(void)state;
	seven(o);
	finish_select(only, o, 7, false, NULL);
	p.mem_factor = 2;
	p.time_factor = 2;
	p.script_mem_mb = 100;
	p.script_time_min = 1;
	p.only = only;
	resubmit_plan_init(&plan);
	assert_int_equal(resubmit_plan_build(&plan, o, 7, &p, &why), 0);
	assert_int_equal(plan.ntasks, 3);
	assert_int_equal(plan.tasks[0].index, 1);
	assert_true(plan.tasks[0].mem_raised);
	assert_int_equal(plan.tasks[0].mem_mb, 256); /* 2 x 100M, rounded to a clean size */
	assert_int_equal(plan.tasks[1].index, 3);
	assert_true(plan.tasks[1].time_raised);
	assert_int_equal(plan.tasks[1].time_min, 2);
	assert_int_equal(plan.tasks[2].index, 6);
	assert_int_equal(plan.nleft, 1);      /* the exit 1: not for more resources */
	assert_int_equal(plan.nactive, 1);    /* still running */
	assert_int_equal(plan.ncompleted, 2); /* 0, and 4 (its metric is the gate's business) */
	assert_int_equal(plan.narrays, 3);    /* three different requests */
	resubmit_plan_release(&plan);

	/* Round 2: the OOM task again, after round 1 gave it 256M: it now gets 512M. */
	o[1].attempts = 2;
	o[1].req_mem_mb = 256;
	o[1].maxrss_bytes = 250 * MIB;
	only[3] = only[6] = 0;
	assert_int_equal(resubmit_plan_build(&plan, o, 7, &p, &why), 0);
	assert_int_equal(plan.ntasks, 1);
	assert_int_equal(plan.tasks[0].mem_mb, 512);
	assert_string_equal(plan.arrays[0].spec, "1");
	resubmit_plan_release(&plan);
}

static void test_finish_decide_rounds(void **state)
{
	static const struct {
		unsigned retries, done;
		size_t nselected;
		bool stopped, more;
		enum finish_action action;
		bool next_is_last;
	} cases[] = {
	    /* retries: 2, failures every round: retry, retry (the next is the last), notify. */
	    {2, 0, 3, false, false, FINISH_RETRY, false},
	    {2, 1, 1, false, false, FINISH_RETRY, true},
	    {2, 2, 1, false, false, FINISH_LAST, false},
	    /* Nothing to heal: the first follow-up is the last. */
	    {2, 0, 0, false, false, FINISH_LAST, false},
	    /* notify only. */
	    {0, 0, 5, false, false, FINISH_LAST, false},
	    /* Stopped by fail_fast (or cancelled): no retry, whatever is left. */
	    {2, 0, 3, true, false, FINISH_LAST, false},
	    {3, 0, 3, true, true, FINISH_LAST, false},
	    /* Chunks still to submit (rolling submission): those first, retries after. */
	    {2, 0, 3, false, true, FINISH_CONTINUE, false},
	    {1, 0, 1, false, false, FINISH_RETRY, true},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct finish_input in = {cases[i].retries, cases[i].done, cases[i].nselected,
		                          cases[i].stopped, cases[i].more};
		struct finish_decision d;

		finish_decide(&d, &in);
		if (d.action != cases[i].action || d.next_is_last != cases[i].next_is_last)
			fail_msg("case %zu: %s%s, expected %s%s", i, finish_action_name(d.action),
			         d.next_is_last ? " (next is last)" : "",
			         finish_action_name(cases[i].action),
			         cases[i].next_is_last ? " (next is last)" : "");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_finish_fixable),
	    cmocka_unit_test(test_finish_select),
	    cmocka_unit_test(test_finish_round_plan),
	    cmocka_unit_test(test_finish_decide_rounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
