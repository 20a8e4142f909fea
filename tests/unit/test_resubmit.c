/*
 * The resubmission plan: which tasks run again, with which request, in
 * which array jobs (sparse --array values, chunks and offsets); the
 * script's own #SBATCH request; and that outcomes follow the latest
 * attempt, which is what makes a resubmission count.
 */
#include "resubmit.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "array.h"
#include "outcome.h"
#include "script.h"
#include "store.h"
#include "strbuf.h"

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
	o.elapsed_s = state == TS_MISSING || state == TS_PENDING ? 0 : 5;
	o.attempts = state == TS_MISSING ? 0 : 1;
	return o;
}

static struct resubmit_policy policy(uint32_t max_array, unsigned throttle)
{
	struct resubmit_policy p = {0};

	p.mem_factor = 2;
	p.time_factor = 2;
	p.script_mem_mb = 100;
	p.script_time_min = 1;
	p.max_array = max_array;
	p.throttle = throttle;
	return p;
}

/* ---- selection ---- */

static void test_resubmit_selection(void **state)
{
	static const struct {
		enum task_state state;
		int exit_code, signal;
		bool wanted, active;
	} cases[] = {
	    {TS_MISSING, 0, 0, true, false},       {TS_PENDING, 0, 0, false, true},
	    {TS_RUNNING, 0, 0, false, true},       {TS_SUSPENDED, 0, 0, false, true},
	    {TS_REQUEUED, 0, 0, false, true},      {TS_COMPLETED, 0, 0, false, false},
	    {TS_COMPLETED, 2, 0, true, false},     {TS_FAILED, 3, 0, true, false},
	    {TS_FAILED, 0, 9, true, false},        {TS_TIMEOUT, 0, 0, true, false},
	    {TS_OUT_OF_MEMORY, 0, 0, true, false}, {TS_CANCELLED, 0, 0, true, false},
	    {TS_NODE_FAIL, 0, 0, true, false},     {TS_PREEMPTED, 0, 0, true, false},
	    {TS_BOOT_FAIL, 0, 0, true, false},     {TS_DEADLINE, 0, 0, true, false},
	    /* Held: not final and not failed, as pending. */
	    {TS_HELD, 0, 0, false, true},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct task_outcome o = task(cases[i].state, cases[i].exit_code, cases[i].signal);

		if (resubmit_wanted(&o) != cases[i].wanted ||
		    resubmit_active(&o) != cases[i].active)
			fail_msg("%s %d:%d: wanted %d active %d", task_state_name(cases[i].state),
			         cases[i].exit_code, cases[i].signal, resubmit_wanted(&o),
			         resubmit_active(&o));
	}
}

static void test_resubmit_plan(void **state)
{
	struct task_outcome o[10];
	struct resubmit_policy p = policy(0, 5);
	struct resubmit_plan rp;
	const char *why = NULL;
	static const size_t want[] = {1, 2, 3, 5, 7, 8};

	(void)state;
	o[0] = task(TS_COMPLETED, 0, 0);
	o[1] = task(TS_FAILED, 3, 0);
	o[2] = task(TS_FAILED, 0, 9); /* OverMemoryKill */
	o[2].maxrss_bytes = 168 * MIB;
	o[3] = task(TS_TIMEOUT, 0, 0);
	o[3].elapsed_s = 65;
	o[4] = task(TS_RUNNING, 0, 0);
	o[5] = task(TS_MISSING, 0, 0);
	o[6] = task(TS_PENDING, 0, 0);
	o[7] = task(TS_NODE_FAIL, 0, 0);
	o[8] = task(TS_CANCELLED, 0, 0);
	o[9] = task(TS_COMPLETED, 0, 0);

	resubmit_plan_init(&rp);
	assert_int_equal(resubmit_plan_build(&rp, o, 10, &p, &why), 0);
	assert_int_equal(rp.ntasks, sizeof(want) / sizeof(want[0]));
	for (size_t k = 0; k < rp.ntasks; k++)
		assert_int_equal(rp.tasks[k].index, want[k]);
	assert_int_equal(rp.nactive, 2);
	assert_int_equal(rp.ncompleted, 2);
	assert_int_equal(rp.nunsettled, 0);

	/* Out of memory: 168M measured over 100M asked -> 336M -> 384M. */
	assert_true(rp.tasks[1].mem_raised);
	assert_int_equal(rp.tasks[1].mem_mb, 384);
	assert_int_equal(rp.tasks[1].time_min, 0);
	/* Over time: 65 s -> 130 s -> 3 minutes. */
	assert_true(rp.tasks[2].time_raised);
	assert_int_equal(rp.tasks[2].time_min, 3);
	assert_int_equal(rp.tasks[2].mem_mb, 0);
	/* The others keep the script's request. */
	assert_int_equal(rp.tasks[0].mem_mb, 0);
	assert_int_equal(rp.tasks[0].time_min, 0);

	/* Grouped by override: none (1,5,7,8), time (3), memory (2). */
	assert_int_equal(rp.narrays, 3);
	assert_string_equal(rp.arrays[0].spec, "1,5,7-8%5");
	assert_int_equal(rp.arrays[0].mem_mb, 0);
	assert_int_equal(rp.arrays[0].time_min, 0);
	assert_string_equal(rp.arrays[1].spec, "3%5");
	assert_int_equal(rp.arrays[1].time_min, 3);
	assert_string_equal(rp.arrays[2].spec, "2%5");
	assert_int_equal(rp.arrays[2].mem_mb, 384);
	resubmit_plan_release(&rp);
	resubmit_plan_release(&rp);
}

/* Indices beyond MaxArraySize go to their chunk, as task index - offset. */
static void test_resubmit_plan_chunks(void **state)
{
	struct task_outcome o[130];
	struct resubmit_policy p = policy(50, 0);
	struct resubmit_plan rp;
	const char *why = NULL;

	(void)state;
	for (size_t i = 0; i < 130; i++)
		o[i] = task(TS_COMPLETED, 0, 0);
	o[3] = task(TS_FAILED, 1, 0);
	o[49] = task(TS_FAILED, 1, 0);
	o[50] = task(TS_FAILED, 1, 0);
	o[51] = task(TS_FAILED, 1, 0);
	o[127] = task(TS_FAILED, 1, 0);
	o[128] = task(TS_OUT_OF_MEMORY, 0, 0);
	resubmit_plan_init(&rp);
	assert_int_equal(resubmit_plan_build(&rp, o, 130, &p, &why), 0);
	assert_int_equal(rp.narrays, 4);
	assert_int_equal(rp.arrays[0].offset, 0);
	assert_string_equal(rp.arrays[0].spec, "3,49");
	assert_int_equal(rp.arrays[1].offset, 50);
	assert_string_equal(rp.arrays[1].spec, "0-1");
	assert_int_equal(rp.arrays[2].offset, 100);
	assert_string_equal(rp.arrays[2].spec, "27");
	assert_int_equal(rp.arrays[3].offset, 100);
	assert_string_equal(rp.arrays[3].spec, "28");
	assert_int_equal(rp.arrays[3].mem_mb, 256);
	for (size_t a = 0; a < rp.narrays; a++)
		for (size_t k = 0; k < rp.arrays[a].ntasks; k++)
			assert_true(rp.arrays[a].tasks[k] < 50);
	resubmit_plan_release(&rp);
}

/*
 * Packed: only the tasks that run again are packed, pack per array task,
 * grouped by overrides; at most max_array array tasks per array job.
 */
static void test_resubmit_plan_packed(void **state)
{
	struct task_outcome o[130];
	struct resubmit_policy p = policy(2, 3);
	struct resubmit_plan rp;
	const char *why = NULL;

	(void)state;
	p.pack = 2;
	for (size_t i = 0; i < 130; i++)
		o[i] = task(TS_COMPLETED, 0, 0);
	o[3] = task(TS_FAILED, 1, 0);
	o[49] = task(TS_FAILED, 1, 0);
	o[50] = task(TS_MISSING, 0, 0);
	o[51] = task(TS_FAILED, 1, 0);
	o[127] = task(TS_FAILED, 1, 0);
	o[128] = task(TS_OUT_OF_MEMORY, 0, 0);
	resubmit_plan_init(&rp);
	assert_int_equal(resubmit_plan_build(&rp, o, 130, &p, &why), 0);
	assert_int_equal(rp.ntasks, 6);
	assert_int_equal(rp.narrays, 3);
	/* 3, 49, 50, 51: two array tasks of two; then 127 alone */
	assert_string_equal(rp.arrays[0].indices, "3,49,50,51");
	assert_string_equal(rp.arrays[0].spec, "0-1%3");
	assert_int_equal(rp.arrays[0].offset, 0);
	assert_string_equal(rp.arrays[1].indices, "127");
	assert_string_equal(rp.arrays[1].spec, "0%3");
	/* more memory for the one that ran out: an array job of its own */
	assert_string_equal(rp.arrays[2].indices, "128");
	assert_int_equal(rp.arrays[2].mem_mb, 256);
	resubmit_plan_release(&rp);
}

static void test_resubmit_nothing(void **state)
{
	struct task_outcome o[3] = {task(TS_COMPLETED, 0, 0), task(TS_RUNNING, 0, 0),
	                            task(TS_MISSING, 0, 0)};
	struct resubmit_policy p = policy(0, 0);
	struct resubmit_plan rp;
	const char *why = NULL;

	(void)state;
	/* The newest array job is too young for a missing record to mean anything. */
	p.missing_unsettled = true;
	resubmit_plan_init(&rp);
	assert_int_equal(resubmit_plan_build(&rp, o, 3, &p, &why), 0);
	assert_int_equal(rp.ntasks, 0);
	assert_int_equal(rp.narrays, 0);
	assert_int_equal(rp.ncompleted, 1);
	assert_int_equal(rp.nactive, 1);
	assert_int_equal(rp.nunsettled, 1);
	resubmit_plan_release(&rp);

	p.missing_unsettled = false;
	assert_int_equal(resubmit_plan_build(&rp, o, 3, &p, &why), 0);
	assert_int_equal(rp.ntasks, 1);
	assert_int_equal(rp.tasks[0].index, 2);
	resubmit_plan_release(&rp);

	assert_int_equal(resubmit_plan_build(&rp, o, 0, &p, &why), 0);
	assert_int_equal(rp.ntasks, 0);
	resubmit_plan_release(&rp);
}

/* A task raised by an earlier resubmission never gets less again. */
static void test_resubmit_keeps_raised_request(void **state)
{
	struct task_outcome o[3];
	struct resubmit_policy p = policy(0, 0);
	struct resubmit_plan rp;
	const char *why = NULL;

	(void)state;
	o[0] = task(TS_NODE_FAIL, 0, 0); /* second attempt, ran with 256M and 3 minutes */
	o[0].attempts = 2;
	o[0].req_mem_mb = 256;
	o[0].timelimit_s = 180;
	o[1] = task(TS_NODE_FAIL, 0, 0); /* first attempt, as the script asked */
	o[2] = task(TS_TIMEOUT, 0, 0);   /* second attempt, raised memory kept */
	o[2].attempts = 2;
	o[2].req_mem_mb = 512;
	o[2].timelimit_s = 180;
	o[2].elapsed_s = 185;
	resubmit_plan_init(&rp);
	assert_int_equal(resubmit_plan_build(&rp, o, 3, &p, &why), 0);
	assert_int_equal(rp.ntasks, 3);
	assert_int_equal(rp.tasks[0].mem_mb, 256);
	assert_int_equal(rp.tasks[0].time_min, 3);
	assert_false(rp.tasks[0].mem_raised);
	assert_int_equal(rp.tasks[1].mem_mb, 0);
	assert_int_equal(rp.tasks[1].time_min, 0);
	assert_int_equal(rp.tasks[2].mem_mb, 512);
	assert_int_equal(rp.tasks[2].time_min, 7); /* 185 s x 2 = 370 s */
	assert_true(rp.tasks[2].time_raised);
	resubmit_plan_release(&rp);

	/* With the script's request unknown, only earlier resubmissions carry theirs. */
	p.script_mem_mb = 0;
	p.script_time_min = 0;
	assert_int_equal(resubmit_plan_build(&rp, o, 3, &p, &why), 0);
	assert_int_equal(rp.tasks[0].mem_mb, 256);
	assert_int_equal(rp.tasks[1].mem_mb, 0);
	assert_int_equal(rp.tasks[1].time_min, 0);
	resubmit_plan_release(&rp);
}

static void test_resubmit_reason(void **state)
{
	static const struct {
		struct task_outcome o;
		const char *want;
	} cases[] = {
	    {{.state = TS_MISSING}, "no record in Slurm"},
	    {{.state = TS_FAILED, .signal = 9, .req_mem_mb = 100, .maxrss_bytes = 168 * MIB},
	     "out of memory (had 100M, MaxRSS 168M)"},
	    {{.state = TS_OUT_OF_MEMORY, .maxrss_bytes = ACCT_NO_VALUE},
	     "out of memory (request unknown)"},
	    {{.state = TS_TIMEOUT, .timelimit_s = 60, .elapsed_s = 65},
	     "time limit (had 00:01:00, ran 00:01:05)"},
	    {{.state = TS_TIMEOUT, .timelimit_s = ACCT_NO_VALUE, .elapsed_s = 65},
	     "time limit (ran 00:01:05)"},
	    {{.state = TS_FAILED, .exit_code = 3}, "exit code 3"},
	    {{.state = TS_NODE_FAIL}, "node failure"},
	    {{.state = TS_PREEMPTED}, "preempted"},
	    {{.state = TS_CANCELLED}, "cancelled"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strbuf sb = STRBUF_INIT;

		resubmit_reason(&sb, &cases[i].o);
		assert_string_equal(sb.buf, cases[i].want);
		strbuf_release(&sb);
	}
}

/* ---- the script's own request ---- */

static void test_script_read_resources(void **state)
{
	static const char default_like[] = "#!/bin/bash\n"
	                                   "#SBATCH --job-name=rightsize\n"
	                                   "#SBATCH --array=0-2\n"
	                                   "#SBATCH --output=\"/tmp/a b/%x_%A_%a.out\"\n"
	                                   "#SBATCH --mem=100M\n"
	                                   "#SBATCH --time=00:01:00\n"
	                                   "#SBATCH --signal=B:USR1@30\n"
	                                   "#\n"
	                                   "# Generated by sweep\n"
	                                   "\n"
	                                   "SWEEP_ID=1\n"
	                                   "#SBATCH --mem=999G\n";
	static const char per_cpu[] = "#!/bin/bash\n"
	                              "#SBATCH --mem-per-cpu=2G -c 4\n"
	                              "#SBATCH --ntasks 2\n"
	                              "#SBATCH -t 90\n"
	                              "#SBATCH --time=UNLIMITED --mem-per-cpu 1G\n"
	                              "echo hi\n";
	static const char nothing[] = "#!/bin/bash\necho hi\n#SBATCH --mem=1G\n";
	struct resubmit_script s;
	const char *why = NULL;

	(void)state;
	assert_int_equal(script_read_resources(&s, default_like, &why), 0);
	assert_int_equal(s.mem_kind, RESUBMIT_MEM_NODE);
	assert_int_equal(s.mem_mb, 100); /* the line after the first command is not read */
	assert_int_equal(s.time_min, 1);
	assert_int_equal(s.cpus, 1);
	assert_int_equal(resubmit_script_mem_mb(&s), 100);

	assert_int_equal(script_read_resources(&s, per_cpu, &why), 0);
	assert_int_equal(s.mem_kind, RESUBMIT_MEM_PER_CPU);
	assert_int_equal(s.mem_mb, 1024); /* the last one wins */
	assert_int_equal(s.time_min, 0);  /* UNLIMITED */
	assert_int_equal(s.cpus, 8);
	assert_int_equal(resubmit_script_mem_mb(&s), 8192);

	assert_int_equal(script_read_resources(&s, nothing, &why), 0);
	assert_int_equal(s.mem_kind, RESUBMIT_MEM_NONE);
	assert_int_equal(resubmit_script_mem_mb(&s), 0);
	assert_int_equal(s.time_min, 0);
}

static void test_script_read_resources_errors(void **state)
{
	static const struct {
		const char *text, *why;
	} cases[] = {
	    {"#SBATCH --mem=lots\n", "the script's #SBATCH memory value cannot be read"},
	    {"#SBATCH --mem-per-cpu=0\n", "the script's #SBATCH memory value cannot be read"},
	    {"#SBATCH --time=soon\n", "the script's #SBATCH --time value cannot be read"},
	    {"#SBATCH --cpus-per-task=0\n",
	     "the script's #SBATCH --cpus-per-task value is not a positive count"},
	    {"#SBATCH -c x\n",
	     "the script's #SBATCH --cpus-per-task value is not a positive count"},
	    {"#SBATCH --ntasks=-1\n",
	     "the script's #SBATCH --ntasks value is not a positive count"},
	    {"#SBATCH --mem\n", "an #SBATCH option of the script lacks its value"},
	    {"#SBATCH -c 1000000 -n 1000000\n", "the script asks more CPUs than Slurm can count"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct resubmit_script s;
		const char *why = NULL;

		if (script_read_resources(&s, cases[i].text, &why) != -1)
			fail_msg("accepted: %s", cases[i].text);
		assert_string_equal(why, cases[i].why);
	}
}

static void test_resubmit_mem_option(void **state)
{
	struct resubmit_script s = {RESUBMIT_MEM_NODE, 100, 1, 1};
	struct strbuf sb = STRBUF_INIT;
	const char *why = NULL;

	(void)state;
	assert_int_equal(resubmit_mem_option(&sb, &s, 384, &why), 0);
	assert_string_equal(sb.buf, "--mem=384M");
	strbuf_reset(&sb);
	s.mem_kind = RESUBMIT_MEM_NONE;
	assert_int_equal(resubmit_mem_option(&sb, &s, 2048, &why), 0);
	assert_string_equal(sb.buf, "--mem=2G");
	strbuf_reset(&sb);
	/* sbatch refuses --mem beside the script's --mem-per-cpu: convert. */
	s.mem_kind = RESUBMIT_MEM_PER_CPU;
	s.cpus = 4;
	assert_int_equal(resubmit_mem_option(&sb, &s, 1000, &why), 0);
	assert_string_equal(sb.buf, "--mem-per-cpu=256M");
	strbuf_reset(&sb);
	s.mem_kind = RESUBMIT_MEM_PER_GPU;
	assert_int_equal(resubmit_mem_option(&sb, &s, 1000, &why), -1);
	assert_string_equal(why, "the script asks --mem-per-gpu, which resubmit cannot raise "
	                         "(sbatch refuses --mem with it): raise it in the sweep file and "
	                         "submit again");
	strbuf_release(&sb);
}

/* ---- the latest attempt decides ---- */

static void test_resubmit_latest_attempt_counts(void **state)
{
	struct acct_set set;
	struct acct_rec *rec;
	/* Listed with the resubmission first: the attempt number orders them, not the list. */
	struct array_rec arrays[] = {
	    {200, 0, (char *)"1,2", 2, 0, 1, NULL},
	    {100, 0, (char *)"0-2", 1, 0, 1, NULL},
	};
	struct task_outcome o[3];
	static const struct {
		uint32_t array, task;
		enum task_state state;
		int signal;
	} runs[] = {
	    {100, 0, TS_COMPLETED, 0}, {100, 1, TS_FAILED, 9}, {100, 2, TS_TIMEOUT, 0},
	    {200, 1, TS_COMPLETED, 0}, {200, 2, TS_FAILED, 0},
	};

	(void)state;
	acct_set_init(&set);
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		rec = acct_set_add(&set);
		rec->array_job_id = runs[i].array;
		rec->array_task_id = runs[i].task;
		rec->job_id = runs[i].array + 10 + runs[i].task;
		rec->state = runs[i].state;
		rec->signal = runs[i].signal;
		rec->submit_time = runs[i].array; /* the resubmission came later */
	}
	rec->exit_code = 1;
	assert_int_equal(outcome_build(o, 3, arrays, 2, &set), 0);
	assert_int_equal(o[0].state, TS_COMPLETED);
	assert_int_equal(o[0].attempts, 1);
	assert_int_equal(o[1].state, TS_COMPLETED);
	assert_int_equal(o[1].attempts, 2);
	assert_int_equal(o[1].array_job_id, 200);
	assert_int_equal(o[2].state, TS_FAILED);
	assert_int_equal(o[2].attempts, 2);
	assert_false(resubmit_wanted(&o[1]));
	assert_true(resubmit_wanted(&o[2]));
	acct_set_release(&set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_resubmit_selection),
	    cmocka_unit_test(test_resubmit_plan),
	    cmocka_unit_test(test_resubmit_plan_chunks),
	    cmocka_unit_test(test_resubmit_plan_packed),
	    cmocka_unit_test(test_resubmit_nothing),
	    cmocka_unit_test(test_resubmit_keeps_raised_request),
	    cmocka_unit_test(test_resubmit_reason),
	    cmocka_unit_test(test_script_read_resources),
	    cmocka_unit_test(test_script_read_resources_errors),
	    cmocka_unit_test(test_resubmit_mem_option),
	    cmocka_unit_test(test_resubmit_latest_attempt_counts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
