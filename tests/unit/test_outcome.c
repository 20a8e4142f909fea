/*
 * Outcomes from accounting records: recorded ones (tests/data/acct/, the
 * format of acct_rec field by field, one record per line) and small sets
 * built by hand for the cases a test cluster produces only slowly.
 */
#include "gate.h"
#include "outcome.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

#include "array.h"
#include "error.h"
#include "strbuf.h"

#include "banned.h"

static int setup(void **state)
{
	(void)state;
	capture_errors();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	release_captured();
	return 0;
}

/* ---- fixtures ---- */

static enum task_state state_named(const char *name)
{
	for (int s = 0; s < TS_NSTATES; s++)
		if (!strcmp(task_state_name(s), name))
			return s;
	fail_msg("unknown state '%s' in a fixture", name);
	return TS_MISSING;
}

static uint64_t number_or_none(const char *v)
{
	return strcmp(v, "-") ? strtoull(v, NULL, 10) : ACCT_NO_VALUE;
}

static void set_field(struct acct_rec *rec, const char *key, const char *v)
{
	char *end;

	if (!strcmp(key, "A")) {
		rec->array_job_id = (uint32_t)strtoul(v, NULL, 10);
	} else if (!strcmp(key, "a")) {
		rec->array_task_id = strcmp(v, "-") ? (uint32_t)strtoul(v, NULL, 10) : ACCT_NO_TASK;
	} else if (!strcmp(key, "job")) {
		rec->job_id = (uint32_t)strtoul(v, NULL, 10);
	} else if (!strcmp(key, "pending")) {
		rec->pending_tasks = xstrdup(v);
	} else if (!strcmp(key, "state")) {
		rec->state = state_named(v);
	} else if (!strcmp(key, "exit")) {
		rec->exit_code = (int)strtol(v, &end, 10);
		rec->signal = (int)strtol(end + 1, NULL, 10);
	} else if (!strcmp(key, "elapsed")) {
		rec->elapsed_s = strtoull(v, NULL, 10);
	} else if (!strcmp(key, "timelimit")) {
		rec->timelimit_s = number_or_none(v);
	} else if (!strcmp(key, "mem")) {
		rec->req_mem_mb = strtoull(v, &end, 10);
		rec->req_mem_per_cpu = *end == 'c';
	} else if (!strcmp(key, "cpus")) {
		rec->ncpus = (uint32_t)strtoul(v, NULL, 10);
	} else if (!strcmp(key, "rss")) {
		rec->maxrss_bytes = number_or_none(v);
	} else if (!strcmp(key, "nodes")) {
		rec->nodes = strcmp(v, "-") ? xstrdup(v) : NULL;
	} else if (!strcmp(key, "submit")) {
		rec->submit_time = strtoll(v, NULL, 10);
	} else if (!strcmp(key, "start")) {
		rec->start_time = strtoll(v, NULL, 10);
	} else if (!strcmp(key, "end")) {
		rec->end_time = strtoll(v, NULL, 10);
	} else {
		fail_msg("unknown key '%s' in a fixture", key);
	}
}

/* Appends the records of tests/data/acct/<name> to set. */
static void load_records(struct acct_set *set, const char *name)
{
	struct strbuf text = STRBUF_INIT;
	char *path = xstrfmt("%s/acct/%s", SWEEP_TEST_DATA, name);
	char *line, *next;

	if (strbuf_read_file(&text, path) < 0)
		fail_msg("cannot read '%s'", path);
	for (line = text.buf; *line; line = next) {
		struct acct_rec *rec;
		char *p;

		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		if (*line == '#' || !*line)
			continue;
		rec = acct_set_add(set);
		for (p = line; *p;) {
			size_t len = strcspn(p, " "), eq = strcspn(p, "=");
			char *key, *value;

			assert_true(eq < len);
			key = xstrndup(p, eq);
			value = xstrndup(p + eq + 1, len - eq - 1);
			set_field(rec, key, value);
			free(key);
			free(value);
			p += len;
			p += strspn(p, " ");
		}
	}
	strbuf_release(&text);
	free(path);
}

/* ---- building sets by hand ---- */

static struct acct_rec *add_run(struct acct_set *set, uint32_t array, uint32_t task,
                                enum task_state state, int64_t submit, int64_t start)
{
	struct acct_rec *rec = acct_set_add(set);

	rec->array_job_id = array;
	rec->array_task_id = task;
	rec->job_id = array + 1000 + task;
	rec->state = state;
	rec->submit_time = submit;
	rec->start_time = start;
	rec->end_time = start && state != TS_RUNNING ? start + 10 : 0;
	return rec;
}

static struct acct_rec *add_pending(struct acct_set *set, uint32_t array, const char *tasks)
{
	struct acct_rec *rec = add_run(set, array, ACCT_NO_TASK, TS_PENDING, 100, 0);

	rec->job_id = array;
	rec->pending_tasks = xstrdup(tasks);
	return rec;
}

static struct array_rec array(uint32_t job_id, uint32_t offset, const char *spec, unsigned attempt)
{
	struct array_rec a = {job_id, offset, (char *)spec, attempt, 0, 1, NULL};

	return a;
}

static struct task_outcome *build(size_t ntasks, const struct array_rec *arrays, size_t narrays,
                                  const struct acct_set *set)
{
	struct task_outcome *out = xcalloc(ntasks ? ntasks : 1, sizeof(*out));

	assert_int_equal(outcome_build(out, ntasks, arrays, narrays, set), 0);
	return out;
}

static void test_outcome_task_mem(void **state)
{
	struct acct_rec rec;

	(void)state;
	memset(&rec, 0, sizeof(rec));
	rec.req_mem_mb = 60;
	rec.req_mem_per_cpu = true;
	rec.ncpus = 2;
	assert_int_equal(outcome_task_mem_mb(&rec), 120);
	rec.ncpus = 0; /* not known: one CPU at least */
	assert_int_equal(outcome_task_mem_mb(&rec), 60);
	rec.req_mem_per_cpu = false;
	rec.ncpus = 8;
	assert_int_equal(outcome_task_mem_mb(&rec), 60);
	rec.req_mem_mb = 0;
	assert_int_equal(outcome_task_mem_mb(&rec), 0);
	rec.req_mem_per_cpu = true;
	rec.req_mem_mb = UINT64_MAX / 4;
	assert_true(outcome_task_mem_mb(&rec) == UINT64_MAX);
}

/* ---- outcome_build on recorded data ---- */

static void test_outcome_recorded_chunks(void **state)
{
	/* Four recorded arrays read as the chunks of one 16-task sweep. */
	struct array_rec arrays[] = {
	    array(1, 0, "0-5", 1),
	    array(2, 6, "0-3", 1),
	    array(3, 10, "0-3", 1),
	    array(6, 14, "0-1", 1),
	};
	struct acct_set set;
	struct task_outcome *out;

	(void)state;
	acct_set_init(&set);
	load_records(&set, "finished.txt");
	out = build(16, arrays, 4, &set);
	for (size_t i = 0; i < 16; i++) {
		assert_int_equal(out[i].attempts, 1);
		assert_int_equal(out[i].restarts, 0);
		assert_string_equal(out[i].nodes, "vm");
	}
	for (size_t i = 0; i < 6; i++) {
		assert_int_equal(out[i].state, TS_COMPLETED);
		assert_int_equal(out[i].array_job_id, 1);
		assert_int_equal(out[i].array_task_id, i);
		assert_int_equal(out[i].req_mem_mb, 100);
	}
	/* Task 5 of array 1 kept the array's own job id; the others got new ones. */
	assert_int_equal(out[5].job_id, 1);
	assert_int_equal(out[0].job_id, 7);
	assert_int_equal(out[3].maxrss_bytes, 3203072);

	/* OverMemoryKill: FAILED with signal 9, the request per node. */
	for (size_t i = 6; i < 10; i++) {
		assert_int_equal(out[i].state, TS_FAILED);
		assert_int_equal(out[i].exit_code, 0);
		assert_int_equal(out[i].signal, 9);
		assert_int_equal(out[i].req_mem_mb, 50);
		assert_true(out[i].maxrss_bytes > 50u << 20);
		assert_int_equal(out[i].array_job_id, 2);
		assert_int_equal(out[i].array_task_id, i - 6);
	}
	/* Exit codes are the task ids. */
	assert_int_equal(out[10].state, TS_COMPLETED);
	for (size_t i = 11; i < 14; i++) {
		assert_int_equal(out[i].state, TS_FAILED);
		assert_int_equal(out[i].exit_code, (int)(i - 10));
		assert_int_equal(out[i].signal, 0);
	}
	/* --mem-per-cpu=60M with -c 2. */
	assert_int_equal(out[14].req_mem_mb, 120);
	assert_int_equal(out[15].req_mem_mb, 120);
	assert_true(out[15].timelimit_s == ACCT_NO_VALUE);
	assert_int_equal(out[14].timelimit_s, 365 * 24 * 3600);

	free(out);
	acct_set_release(&set);
}

static void test_outcome_recorded_array50(void **state)
{
	struct array_rec arrays[] = {array(4, 0, "0-49", 1)};
	struct acct_set set;
	struct task_outcome *out;

	(void)state;
	acct_set_init(&set);
	load_records(&set, "array50.txt");
	assert_int_equal(set.n, 50);
	out = build(50, arrays, 1, &set);
	for (size_t i = 0; i < 50; i++) {
		assert_int_equal(out[i].state, TS_COMPLETED);
		assert_int_equal(out[i].array_task_id, i);
		/* Sampled every second, two of the 2-second tasks still got no MaxRSS. */
		if (i == 44 || i == 45)
			assert_true(out[i].maxrss_bytes == ACCT_NO_VALUE);
		else
			assert_true(out[i].maxrss_bytes != ACCT_NO_VALUE);
	}
	free(out);

	/* A sweep of 60: the ten indices no array covered are missing. */
	out = build(60, arrays, 1, &set);
	for (size_t i = 50; i < 60; i++) {
		assert_int_equal(out[i].state, TS_MISSING);
		assert_int_equal(out[i].attempts, 0);
		assert_int_equal(out[i].array_job_id, 0);
		assert_true(out[i].maxrss_bytes == ACCT_NO_VALUE);
		assert_null(out[i].nodes);
	}
	free(out);

	/* A sweep of 30 (the store and Slurm disagree): records beyond it are ignored. */
	out = build(30, arrays, 1, &set);
	assert_int_equal(out[29].state, TS_COMPLETED);
	free(out);
	acct_set_release(&set);
}

static void test_outcome_recorded_cancelled_pending(void **state)
{
	/* "sbatch -H --array=0-40,45" then scancel: one record holds every task. */
	struct array_rec arrays[] = {array(74, 0, "0-40,45", 1)};
	struct acct_set set;
	struct task_outcome *out;

	(void)state;
	acct_set_init(&set);
	load_records(&set, "cancelled-pending.txt");
	assert_int_equal(set.n, 1);
	out = build(50, arrays, 1, &set);
	for (size_t i = 0; i < 50; i++) {
		bool named = i <= 40 || i == 45;

		assert_int_equal(out[i].state, named ? TS_CANCELLED : TS_MISSING);
		assert_int_equal(out[i].attempts, named ? 1 : 0);
		if (!named)
			continue;
		assert_int_equal(out[i].array_job_id, 74);
		assert_int_equal(out[i].array_task_id, i);
		assert_int_equal(out[i].job_id, 0); /* no task of it ever got its own id */
		assert_int_equal(out[i].restarts, 0);
		assert_null(out[i].nodes);
	}
	free(out);
	acct_set_release(&set);
}

static void test_outcome_recorded_running_throttled(void **state)
{
	struct array_rec arrays[] = {array(123, 0, "0-11%8", 1)};
	struct acct_set set;
	struct task_outcome *out;

	(void)state;
	acct_set_init(&set);
	load_records(&set, "running-throttled.txt");
	out = build(12, arrays, 1, &set);
	for (size_t i = 0; i < 12; i++) {
		enum task_state want = i == 2 || i == 5 ? TS_COMPLETED
		                       : i >= 9         ? TS_PENDING
		                                        : TS_RUNNING;

		assert_int_equal(out[i].state, want);
		assert_int_equal(out[i].array_task_id, i);
		assert_int_equal(out[i].req_mem_mb, 200);
		/* Running steps have no statistics in slurmdbd yet. */
		assert_true((out[i].maxrss_bytes != ACCT_NO_VALUE) == (want == TS_COMPLETED));
		assert_int_equal(out[i].job_id, want == TS_PENDING ? 0 : 124 + i);
	}
	assert_int_equal(out[2].maxrss_bytes, 19873792);
	free(out);
	acct_set_release(&set);
}

static void test_outcome_recorded_cancelled_throttled(void **state)
{
	/* "--array=0-20%1" cancelled after task 0 started: the pending record keeps 1-20. */
	struct array_rec arrays[] = {array(75, 0, "0-20%1", 1)};
	struct acct_set set;
	struct task_outcome *out;

	(void)state;
	acct_set_init(&set);
	load_records(&set, "cancelled-throttled.txt");
	out = build(21, arrays, 1, &set);
	for (size_t i = 0; i < 21; i++) {
		assert_int_equal(out[i].state, TS_CANCELLED);
		assert_int_equal(out[i].exit_code, 0);
		assert_int_equal(out[i].signal, 0);
	}
	assert_int_equal(out[0].job_id, 94);
	assert_int_equal(out[0].elapsed_s, 189);
	assert_int_equal(out[1].job_id, 0);
	assert_int_equal(out[20].elapsed_s, 0);
	free(out);
	acct_set_release(&set);
}

static void test_outcome_recorded_requeue(void **state)
{
	struct array_rec arrays[] = {array(118, 0, "0-2", 1)};
	struct acct_set set;
	struct task_outcome *out;

	(void)state;
	acct_set_init(&set);
	load_records(&set, "requeue-pending.txt");
	out = build(3, arrays, 1, &set);
	assert_int_equal(out[1].state, TS_PENDING);
	assert_int_equal(out[1].restarts, 1);
	assert_int_equal(out[1].job_id, 120);
	assert_int_equal(out[0].restarts, 0);
	assert_int_equal(out[2].state, TS_COMPLETED);
	free(out);
	acct_set_release(&set);

	load_records(&set, "requeue.txt");
	out = build(3, arrays, 1, &set);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(out[i].state, TS_COMPLETED);
		assert_int_equal(out[i].restarts, i == 1);
		assert_int_equal(out[i].attempts, 1);
	}
	assert_int_equal(out[1].maxrss_bytes, 3346432);
	/* status --tasks says why it restarted. */
	assert_int_equal(out[1].restart_states, 1u << TS_REQUEUED);
	assert_int_equal(out[0].restart_states, 0);
	{
		struct strbuf why = STRBUF_INIT;

		outcome_restart_reasons(&why, &out[1]);
		assert_string_equal(why.buf, "requeued by signal");
		strbuf_reset(&why);
		outcome_restart_reasons(&why, &out[0]);
		assert_string_equal(why.buf, "");
		strbuf_release(&why);
	}
	free(out);
	acct_set_release(&set);
}

static void test_outcome_recorded_node_fail_requeue(void **state)
{
	struct array_rec arrays[] = {array(123, 0, "0-11%8", 1)};
	struct acct_set set;
	struct task_outcome *out;

	(void)state;
	acct_set_init(&set);
	load_records(&set, "node-fail-requeue.txt");
	out = build(12, arrays, 1, &set);
	for (size_t i = 0; i < 12; i++) {
		bool requeued = i == 0 || i == 3 || i == 4 || i == 7;

		assert_int_equal(out[i].state, TS_COMPLETED);
		assert_int_equal(out[i].exit_code, 0);
		assert_int_equal(out[i].restarts, requeued ? 1 : 0);
		assert_int_equal(out[i].restart_states, requeued ? 1u << TS_NODE_FAIL : 0);
		assert_true(out[i].maxrss_bytes != ACCT_NO_VALUE);
	}
	{
		struct strbuf why = STRBUF_INIT;
		struct task_outcome both = out[0];

		both.restart_states |= 1u << TS_PREEMPTED | 1u << TS_REQUEUED;
		outcome_restart_reasons(&why, &both);
		assert_string_equal(why.buf, "NODE_FAIL, PREEMPTED, requeued by signal");
		strbuf_release(&why);
	}
	free(out);
	acct_set_release(&set);
}

/* ---- outcome_build on hand-built sets ---- */

static void test_outcome_pending_large_bitmap(void **state)
{
	/* 1001 tasks pending (MaxArraySize's default): "0x1" and 250 F digits. */
	struct array_rec arrays[] = {array(500, 0, "0-1000%20", 1)};
	struct strbuf hex = STRBUF_INIT;
	struct acct_set set;
	struct task_outcome *out;

	(void)state;
	strbuf_addstr(&hex, "0x1");
	for (int i = 0; i < 250; i++)
		strbuf_addch(&hex, 'F');
	/* Tasks 0-19 already started: the lowest five digits are 0. */
	for (int i = 0; i < 5; i++)
		hex.buf[hex.len - 1 - i] = '0';
	acct_set_init(&set);
	add_pending(&set, 500, hex.buf);
	for (uint32_t t = 0; t < 20; t++)
		add_run(&set, 500, t, t < 10 ? TS_COMPLETED : TS_RUNNING, 100, 200);
	out = build(1001, arrays, 1, &set);
	for (size_t i = 0; i < 1001; i++) {
		enum task_state want = i < 10 ? TS_COMPLETED : i < 20 ? TS_RUNNING : TS_PENDING;

		assert_int_equal(out[i].state, want);
		assert_int_equal(out[i].array_task_id, i);
		assert_int_equal(out[i].attempts, 1);
		assert_int_equal(out[i].job_id, i < 20 ? 500 + 1000 + i : 0);
	}
	free(out);

	/* With 5000 tasks planned, the 1001 pending ones are found and the rest missing. */
	out = build(5000, arrays, 1, &set);
	assert_int_equal(out[1000].state, TS_PENDING);
	assert_int_equal(out[1001].state, TS_MISSING);
	free(out);
	strbuf_release(&hex);
	acct_set_release(&set);
}

static void test_outcome_pending_range_list(void **state)
{
	/* A range list instead of a hex bitmap (older Slurm, a local runner). */
	struct array_rec arrays[] = {array(600, 0, "0-9%2", 1)};
	struct acct_set set;
	struct task_outcome *out;

	(void)state;
	acct_set_init(&set);
	add_pending(&set, 600, "0-3,7%2");
	add_run(&set, 600, 4, TS_COMPLETED, 100, 150);
	out = build(10, arrays, 1, &set);
	assert_int_equal(out[0].state, TS_PENDING);
	assert_int_equal(out[3].state, TS_PENDING);
	assert_int_equal(out[4].state, TS_COMPLETED);
	assert_int_equal(out[5].state, TS_MISSING);
	assert_int_equal(out[5].attempts, 1); /* covered, but no record */
	assert_int_equal(out[7].state, TS_PENDING);
	free(out);
	acct_set_release(&set);
}

static void test_outcome_requeue_restarts(void **state)
{
	struct array_rec arrays[] = {array(76, 0, "0-2", 1)};
	struct acct_set set;
	struct task_outcome *out;

	(void)state;
	acct_set_init(&set);
	add_run(&set, 76, 0, TS_COMPLETED, 100, 110);
	add_run(&set, 76, 2, TS_COMPLETED, 100, 110);
	/* As in requeue.txt, but newest first: slurmdbd promises no order. */
	add_run(&set, 76, 1, TS_RUNNING, 300, 450)->job_id = 77;
	add_run(&set, 76, 1, TS_REQUEUED, 100, 110)->job_id = 77;
	out = build(3, arrays, 1, &set);
	assert_int_equal(out[1].state, TS_RUNNING);
	assert_int_equal(out[1].restarts, 1);
	assert_int_equal(out[1].attempts, 1);
	assert_int_equal(out[1].job_id, 77);
	assert_int_equal(out[0].restarts, 0);
	free(out);

	/* Two restarts, the last run pending; equal submit times leave the rest to decide. */
	acct_set_release(&set);
	add_run(&set, 76, 1, TS_REQUEUED, 100, 110);
	add_run(&set, 76, 1, TS_PENDING, 100, 0);
	add_run(&set, 76, 1, TS_PREEMPTED, 100, 130);
	out = build(3, arrays, 1, &set);
	assert_int_equal(out[1].state, TS_PENDING);
	assert_int_equal(out[1].restarts, 2);
	assert_int_equal(out[0].state, TS_MISSING);
	free(out);
	acct_set_release(&set);
}

static void test_outcome_latest_attempt(void **state)
{
	/* Attempt 1 ran 0-9; attempt 2 resubmitted 3 and 7; attempt 3 resubmitted 7 again. */
	struct array_rec arrays[] = {
	    array(100, 0, "0-9%4", 1),
	    array(200, 0, "3,7", 2),
	    array(300, 0, "7", 3),
	};
	struct acct_set set;
	struct task_outcome *out;

	(void)state;
	acct_set_init(&set);
	for (uint32_t t = 0; t < 10; t++)
		add_run(&set, 100, t, t == 3 || t == 7 ? TS_FAILED : TS_COMPLETED, 100, 110);
	add_run(&set, 200, 3, TS_COMPLETED, 200, 210);
	add_run(&set, 200, 7, TS_TIMEOUT, 200, 210);
	add_pending(&set, 300, "0x80");
	out = build(10, arrays, 3, &set);
	assert_int_equal(out[0].state, TS_COMPLETED);
	assert_int_equal(out[0].attempts, 1);
	assert_int_equal(out[0].array_job_id, 100);
	assert_int_equal(out[3].state, TS_COMPLETED);
	assert_int_equal(out[3].attempts, 2);
	assert_int_equal(out[3].array_job_id, 200);
	assert_int_equal(out[3].restarts, 0); /* another array job is an attempt, not a restart */
	assert_int_equal(out[7].state, TS_PENDING);
	assert_int_equal(out[7].attempts, 3);
	assert_int_equal(out[7].array_job_id, 300);
	assert_int_equal(out[7].array_task_id, 7);
	free(out);

	/* Nor does the order of the array jobs: attempts decide. */
	{
		struct array_rec reversed[] = {arrays[2], arrays[1], arrays[0]};

		out = build(10, reversed, 3, &set);
		assert_int_equal(out[3].array_job_id, 200);
		assert_int_equal(out[7].array_job_id, 300);
		assert_int_equal(out[7].attempts, 3);
		free(out);
	}

	/* The order of the records does not matter. */
	for (size_t i = 0; i < set.n / 2; i++) {
		struct acct_rec tmp = set.recs[i];

		set.recs[i] = set.recs[set.n - 1 - i];
		set.recs[set.n - 1 - i] = tmp;
	}
	out = build(10, arrays, 3, &set);
	assert_int_equal(out[3].state, TS_COMPLETED);
	assert_int_equal(out[7].state, TS_PENDING);
	assert_int_equal(out[7].attempts, 3);
	free(out);
	acct_set_release(&set);
}

static void test_outcome_latest_attempt_without_record(void **state)
{
	/* The resubmission is not in slurmdbd yet: its index is missing, not FAILED. */
	struct array_rec arrays[] = {array(100, 0, "0-3", 1), array(200, 0, "2", 2)};
	struct acct_set set;
	struct task_outcome *out;

	(void)state;
	acct_set_init(&set);
	for (uint32_t t = 0; t < 4; t++)
		add_run(&set, 100, t, t == 2 ? TS_FAILED : TS_COMPLETED, 100, 110);
	out = build(4, arrays, 2, &set);
	assert_int_equal(out[2].state, TS_MISSING);
	assert_int_equal(out[2].attempts, 2);
	assert_int_equal(out[2].array_job_id, 0);
	assert_int_equal(out[1].state, TS_COMPLETED);
	free(out);
	acct_set_release(&set);
}

static void test_outcome_chunk_offsets(void **state)
{
	/* 120 tasks under MaxArraySize=50: three chunks, each starting again at task 0. */
	struct array_rec arrays[] = {
	    array(10, 0, "0-49%5", 1),
	    array(11, 50, "0-49%5", 1),
	    array(12, 100, "0-19%5", 1),
	};
	struct acct_set set;
	struct task_outcome *out;

	(void)state;
	acct_set_init(&set);
	for (uint32_t t = 0; t < 50; t++) {
		add_run(&set, 10, t, TS_COMPLETED, 100, 110);
		add_run(&set, 11, t, TS_FAILED, 100, 110)->exit_code = 1;
	}
	add_pending(&set, 12, "0xFFFFF");
	/* A record of some other job in the database, and one past the sweep's end. */
	add_run(&set, 13, 0, TS_RUNNING, 100, 110);
	add_run(&set, 12, 20, TS_RUNNING, 100, 110);
	out = build(120, arrays, 3, &set);
	assert_int_equal(out[0].array_job_id, 10);
	assert_int_equal(out[49].state, TS_COMPLETED);
	assert_int_equal(out[50].state, TS_FAILED);
	assert_int_equal(out[50].array_job_id, 11);
	assert_int_equal(out[50].array_task_id, 0);
	assert_int_equal(out[50].exit_code, 1);
	assert_int_equal(out[99].array_task_id, 49);
	assert_int_equal(out[100].state, TS_PENDING);
	assert_int_equal(out[100].array_job_id, 12);
	assert_int_equal(out[100].array_task_id, 0);
	assert_int_equal(out[119].state, TS_PENDING);
	assert_int_equal(out[119].array_task_id, 19);
	for (size_t i = 0; i < 120; i++)
		assert_int_equal(out[i].attempts, 1);
	free(out);
	acct_set_release(&set);
}

static void test_outcome_no_arrays(void **state)
{
	/* A sweep whose submission failed before any array job: all missing. */
	struct acct_set set;
	struct task_outcome *out;

	(void)state;
	acct_set_init(&set);
	out = build(5, NULL, 0, &set);
	for (size_t i = 0; i < 5; i++) {
		assert_int_equal(out[i].state, TS_MISSING);
		assert_true(out[i].timelimit_s == ACCT_NO_VALUE);
		assert_true(out[i].maxrss_bytes == ACCT_NO_VALUE);
	}
	free(out);
	out = build(0, NULL, 0, &set);
	free(out);
}

static void test_outcome_own_row_beats_pending_record(void **state)
{
	/* A task split off the pending record while slurmdbd still lists it there. */
	struct array_rec arrays[] = {array(700, 0, "0-3", 1)};
	struct acct_set set;
	struct task_outcome *out;

	(void)state;
	acct_set_init(&set);
	add_run(&set, 700, 0, TS_RUNNING, 100, 120);
	add_pending(&set, 700, "0xF");
	out = build(4, arrays, 1, &set);
	assert_int_equal(out[0].state, TS_RUNNING);
	assert_int_equal(out[0].restarts, 0);
	assert_int_equal(out[0].job_id, 700 + 1000);
	assert_int_equal(out[1].state, TS_PENDING);
	assert_int_equal(out[1].restarts, 0);
	free(out);
	acct_set_release(&set);
}

/*
 * Held tasks (the Slurm side marks them on accounting's PENDING records):
 * a split task and the tasks of a held pending record take the hold and
 * its reason; a packed array task held holds each of its sweep tasks.
 */
static void test_outcome_held(void **state)
{
	struct array_rec arrays[] = {array(700, 0, "0-3", 1)};
	struct array_rec packed[] = {{800, 0, "0-1", 1, 0, 2, NULL}};
	struct acct_set set;
	struct task_outcome *out;
	struct acct_rec *rec;

	(void)state;
	acct_set_init(&set);
	add_run(&set, 700, 0, TS_RUNNING, 100, 120);
	rec = add_run(&set, 700, 1, TS_HELD, 100, 0);
	rec->hold = ACCT_HOLD_ADMIN;
	rec->reason = xstrdup("held by an administrator");
	rec = add_pending(&set, 700, "0xC");
	rec->state = TS_HELD;
	rec->hold = ACCT_HOLD_USER;
	rec->reason = xstrdup("held by the user");
	out = build(4, arrays, 1, &set);
	assert_int_equal(out[0].state, TS_RUNNING);
	assert_int_equal(out[0].hold, ACCT_HOLD_NONE);
	assert_int_equal(out[1].state, TS_HELD);
	assert_int_equal(out[1].hold, ACCT_HOLD_ADMIN);
	assert_string_equal(out[1].pending_reason, "held by an administrator");
	assert_int_equal(out[1].job_id, 700 + 1000 + 1);
	for (size_t i = 2; i < 4; i++) {
		assert_int_equal(out[i].state, TS_HELD);
		assert_int_equal(out[i].hold, ACCT_HOLD_USER);
		assert_string_equal(out[i].pending_reason, "held by the user");
		assert_int_equal(out[i].job_id, 0); /* still in the pending record */
	}
	free(out);
	acct_set_release(&set);

	acct_set_init(&set);
	rec = add_run(&set, 800, 1, TS_HELD, 100, 0);
	rec->hold = ACCT_HOLD_BEGIN;
	rec->reason = xstrdup("begins at 2026-12-06T09:33:10");
	out = build(4, packed, 1, &set);
	assert_int_equal(out[2].state, TS_HELD);
	assert_int_equal(out[3].state, TS_HELD);
	assert_int_equal(out[3].hold, ACCT_HOLD_BEGIN);
	assert_int_equal(out[0].state, TS_MISSING);
	free(out);
	acct_set_release(&set);
}

/*
 * Seen on the test cluster: the pending record of an array cancelled while
 * tasks were split off it reaches accounting CANCELLED without its task
 * list. Its tasks without a row of their own were cancelled with it, not
 * missing.
 */
static void test_outcome_cancelled_pending_without_list(void **state)
{
	struct array_rec arrays[] = {array(490, 0, "0-9%4", 1)};
	struct acct_set set;
	struct task_outcome *out;
	struct acct_rec *meta;

	(void)state;
	acct_set_init(&set);
	for (uint32_t t = 0; t < 4; t++)
		add_run(&set, 490, t, TS_FAILED, 100, 110);
	add_run(&set, 490, 4, TS_CANCELLED, 100, 113);
	meta = add_run(&set, 490, ACCT_NO_TASK, TS_CANCELLED, 100, 113);
	meta->job_id = 490;
	out = build(10, arrays, 1, &set);
	assert_int_equal(out[3].state, TS_FAILED);
	assert_int_equal(out[4].state, TS_CANCELLED);
	assert_int_equal(out[4].job_id, 490 + 1000 + 4);
	for (size_t i = 5; i < 10; i++) {
		assert_int_equal(out[i].state, TS_CANCELLED);
		assert_int_equal(out[i].array_task_id, i);
		assert_int_equal(out[i].job_id, 0);
	}
	free(out);
	acct_set_release(&set);
	/* Still pending without a list (not final): nothing is guessed. */
	acct_set_init(&set);
	add_run(&set, 490, 0, TS_RUNNING, 100, 110);
	meta = add_run(&set, 490, ACCT_NO_TASK, TS_PENDING, 100, 0);
	meta->job_id = 490;
	out = build(10, arrays, 1, &set);
	assert_int_equal(out[5].state, TS_MISSING);
	free(out);
	acct_set_release(&set);
}

static void test_outcome_records_outside_spec(void **state)
{
	/* Attempt 2 asked for task 1 only: a record of its task 0 cannot be right. */
	struct array_rec arrays[] = {array(100, 0, "0-1", 1), array(200, 0, "1", 2)};
	struct array_rec unknown[] = {array(100, 0, "0-1", 1), array(200, 0, NULL, 2)};
	struct acct_set set;
	struct task_outcome *out;

	(void)state;
	acct_set_init(&set);
	add_run(&set, 100, 0, TS_COMPLETED, 100, 110);
	add_run(&set, 100, 1, TS_FAILED, 100, 110);
	add_run(&set, 200, 0, TS_FAILED, 200, 210);
	add_run(&set, 200, 1, TS_COMPLETED, 200, 210);
	out = build(2, arrays, 2, &set);
	assert_int_equal(out[0].state, TS_COMPLETED);
	assert_int_equal(out[0].array_job_id, 100);
	assert_int_equal(out[0].attempts, 1);
	assert_int_equal(out[1].state, TS_COMPLETED);
	assert_int_equal(out[1].array_job_id, 200);
	assert_int_equal(out[1].attempts, 2);
	free(out);

	/* Without an --array value, an array job covers what its records name. */
	out = build(2, unknown, 2, &set);
	assert_int_equal(out[0].state, TS_FAILED);
	assert_int_equal(out[0].array_job_id, 200);
	assert_int_equal(out[0].attempts, 2);
	assert_int_equal(out[1].array_job_id, 200);
	free(out);
	acct_set_release(&set);
}

static void test_outcome_malformed_bitmap(void **state)
{
	struct array_rec arrays[] = {array(74, 0, "0-9", 1)};
	struct strbuf hex = STRBUF_INIT;
	struct acct_set set;
	struct task_outcome out[10];

	(void)state;
	acct_set_init(&set);
	add_pending(&set, 74, "0x3G");
	assert_int_equal(outcome_build(out, 10, arrays, 1, &set), SWEEP_ERR);
	assert_string_equal(captured.buf,
	                    "error: cannot read the pending tasks '0x3G' of array job 74: the hex "
	                    "bitmap has a character that is not a hex digit");
	acct_set_release(&set);

	/* A long one is shown by its start. */
	strbuf_reset(&captured);
	strbuf_addstr(&hex, "0x");
	for (int i = 0; i < 300; i++)
		strbuf_addch(&hex, 'F');
	strbuf_addch(&hex, '-');
	add_pending(&set, 74, hex.buf);
	assert_int_equal(outcome_build(out, 10, arrays, 1, &set), SWEEP_ERR);
	assert_string_equal(
	    captured.buf, "error: cannot read the pending tasks "
	                  "'0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF...' of array job 74: the hex "
	                  "bitmap has a character that is not a hex digit");
	strbuf_release(&hex);
	acct_set_release(&set);
}

static void test_outcome_malformed_spec(void **state)
{
	struct array_rec arrays[] = {array(74, 0, "0-9", 1), array(75, 0, "3;4", 2)};
	struct acct_set set;
	struct task_outcome out[10];

	(void)state;
	acct_set_init(&set);
	assert_int_equal(outcome_build(out, 10, arrays, 2, &set), SWEEP_ERR);
	assert_string_equal(captured.buf, "error: cannot read the --array value '3;4' of array job "
	                                  "75: expected ',' between task ids");
}

/* The name the generated script gives a run's log (--output=%x_%A_%a.out). */
static void test_outcome_log_path(void **state)
{
	char *p;

	(void)state;
	p = outcome_log_path("/w/logs", "demo", TS_FAILED, 1234, 7);
	assert_string_equal(p, "/w/logs/demo_1234_7.out");
	free(p);
	assert_null(outcome_log_path("/w/logs", "demo", TS_PENDING, 1234, 7));
	assert_null(outcome_log_path("/w/logs", "demo", TS_HELD, 1234, 7));
	assert_null(outcome_log_path("/w/logs", "demo", TS_MISSING, 0, 0));
	assert_null(outcome_log_path(NULL, "demo", TS_COMPLETED, 1234, 7));
}

/* ---- packed tasks: one job step per sweep task ---- */

static struct acct_rec *add_step(struct acct_set *set, uint32_t array, uint32_t task,
                                 uint32_t index, enum task_state state, int exit_code)
{
	struct acct_rec *rec = add_run(set, array, task, state, 100, 200 + index);

	rec->step_index = index;
	rec->exit_code = exit_code;
	rec->timelimit_s = 600; /* the array task's: 10 tasks of a minute */
	rec->maxrss_bytes = 1000 + index;
	return rec;
}

/*
 * 23 tasks, pack 10: array tasks 0-2. Array task 0 finished (step 3
 * failed), array task 1 runs its third step, array task 2 is pending.
 */
static void test_outcome_packed(void **state)
{
	struct acct_set set;
	struct array_rec arr = array(500, 0, "0-2", 1);
	struct task_outcome *out;

	(void)state;
	arr.pack = 10;
	acct_set_init(&set);
	add_run(&set, 500, 0, TS_FAILED, 100, 150)->timelimit_s = 600;
	for (uint32_t i = 0; i < 10; i++)
		add_step(&set, 500, 0, i, i == 3 ? TS_FAILED : TS_COMPLETED, i == 3 ? 1 : 0);
	add_run(&set, 500, 1, TS_RUNNING, 100, 160);
	add_step(&set, 500, 1, 10, TS_COMPLETED, 0);
	add_step(&set, 500, 1, 11, TS_COMPLETED, 0);
	add_step(&set, 500, 1, 12, TS_RUNNING, 0);
	add_pending(&set, 500, "2");

	out = build(23, &arr, 1, &set);
	assert_int_equal(out[0].state, TS_COMPLETED);
	assert_int_equal(out[3].state, TS_FAILED);
	assert_int_equal(out[3].exit_code, 1);
	assert_int_equal(out[3].maxrss_bytes, 1003);
	assert_int_equal(out[3].timelimit_s, 60); /* the step's share of the array task's limit */
	assert_int_equal(out[3].array_task_id, 0);
	assert_int_equal(out[3].attempts, 1);
	assert_int_equal(out[9].state, TS_COMPLETED);
	assert_int_equal(out[11].state, TS_COMPLETED);
	assert_int_equal(out[12].state, TS_RUNNING);
	/* later steps of a running array task have not started */
	assert_int_equal(out[13].state, TS_PENDING);
	assert_int_equal(out[19].state, TS_PENDING);
	assert_int_equal(out[13].array_task_id, 1);
	/* the last array task has only three tasks */
	assert_int_equal(out[20].state, TS_PENDING);
	assert_int_equal(out[22].state, TS_PENDING);
	assert_int_equal(out[22].array_task_id, 2);
	assert_int_equal(out[22].attempts, 1);
	free(out);
	acct_set_release(&set);
}

/*
 * An array task that hit its time limit in its second step: that step is
 * TIMEOUT, the ones it never reached take the array task's state; one that
 * completed without a record for a step leaves that step missing.
 */
static void test_outcome_packed_ended_early(void **state)
{
	struct acct_set set;
	struct array_rec arr = array(600, 0, "0-1", 1);
	struct task_outcome *out;

	(void)state;
	arr.pack = 3;
	acct_set_init(&set);
	add_run(&set, 600, 0, TS_TIMEOUT, 100, 150);
	add_step(&set, 600, 0, 0, TS_COMPLETED, 0);
	add_step(&set, 600, 0, 1, TS_TIMEOUT, 0);
	add_run(&set, 600, 1, TS_COMPLETED, 100, 150);
	add_step(&set, 600, 1, 3, TS_COMPLETED, 0);
	add_step(&set, 600, 1, 4, TS_COMPLETED, 0);
	out = build(6, &arr, 1, &set);
	assert_int_equal(out[0].state, TS_COMPLETED);
	assert_int_equal(out[1].state, TS_TIMEOUT);
	assert_int_equal(out[2].state, TS_TIMEOUT);
	assert_int_equal(out[2].job_id, 0);
	assert_int_equal(out[5].state, TS_MISSING);
	assert_int_equal(out[5].attempts, 1);
	free(out);
	acct_set_release(&set);
}

/*
 * A resubmission packs only the failed tasks: its task list maps array
 * task a to entries a x pack..., and it becomes their latest attempt.
 */
static void test_outcome_packed_resubmission(void **state)
{
	struct acct_set set;
	struct array_rec arrs[2] = {array(700, 0, "0-2", 1), array(701, 0, "0-1", 2)};
	struct task_outcome *out;

	(void)state;
	arrs[0].pack = 4;
	arrs[1].pack = 4;
	arrs[1].indices = (char *)"1,6,7,8,9";
	acct_set_init(&set);
	add_run(&set, 700, 0, TS_FAILED, 100, 150);
	for (uint32_t i = 0; i < 4; i++)
		add_step(&set, 700, 0, i, i == 1 ? TS_FAILED : TS_COMPLETED, i == 1);
	add_run(&set, 700, 1, TS_CANCELLED, 100, 150);
	add_step(&set, 700, 1, 4, TS_COMPLETED, 0);
	add_step(&set, 700, 1, 5, TS_COMPLETED, 0);
	add_step(&set, 700, 1, 6, TS_CANCELLED, 0);
	/* the resubmission: array task 0 ran 1, 6, 7 and 8; array task 1 (9) pends */
	add_run(&set, 701, 0, TS_COMPLETED, 300, 350);
	add_step(&set, 701, 0, 1, TS_COMPLETED, 0);
	add_step(&set, 701, 0, 6, TS_COMPLETED, 0);
	add_step(&set, 701, 0, 7, TS_COMPLETED, 0);
	add_step(&set, 701, 0, 8, TS_COMPLETED, 0);
	add_pending(&set, 701, "1");
	out = build(10, arrs, 2, &set);
	assert_int_equal(out[0].state, TS_COMPLETED);
	assert_int_equal(out[0].attempts, 1);
	assert_int_equal(out[1].state, TS_COMPLETED);
	assert_int_equal(out[1].attempts, 2);
	assert_int_equal(out[1].array_job_id, 701);
	assert_int_equal(out[6].state, TS_COMPLETED);
	assert_int_equal(out[9].state, TS_PENDING);
	assert_int_equal(out[9].attempts, 2);
	assert_int_equal(out[9].array_task_id, 1);
	assert_int_equal(out[5].attempts, 1);
	free(out);
	acct_set_release(&set);
}

/* A step named like a packed task's inside a task that is not packed is ignored. */
static void test_outcome_unpacked_ignores_steps(void **state)
{
	struct acct_set set;
	struct array_rec arr = array(800, 0, "0-1", 1);
	struct task_outcome *out;

	(void)state;
	acct_set_init(&set);
	add_run(&set, 800, 0, TS_COMPLETED, 100, 150);
	add_step(&set, 800, 0, 1, TS_FAILED, 3);
	add_run(&set, 800, 1, TS_COMPLETED, 100, 150);
	out = build(2, &arr, 1, &set);
	assert_int_equal(out[1].state, TS_COMPLETED);
	assert_int_equal(out[1].exit_code, 0);
	free(out);
	acct_set_release(&set);
}

/* The script's note turns a run that died of the warning signal into a time limit. */
static void test_outcome_signal_note(void **state)
{
	static const struct {
		enum task_state state;
		int exit_code, signal;
		uint32_t job_id;
		const char *note;
		bool applies;
	} rows[] = {
	    {TS_FAILED, 138, 0, 77, "77 USR1\n", true},  /* exit 128 + SIGUSR1 */
	    {TS_FAILED, 0, 10, 77, "77 USR1\n", true},   /* the batch shell ended by it */
	    {TS_FAILED, 10, 0, 77, "77 USR1\n", true},   /* as Slurm 22.05 records exit 138 */
	    {TS_FAILED, 140, 0, 77, "77 USR2\n", true},  /* SIGUSR2 */
	    {TS_FAILED, 143, 0, 77, "77 TERM", true},    /* no newline */
	    {TS_FAILED, 138, 0, 78, "77 USR1\n", false}, /* another run's note */
	    {TS_FAILED, 1, 0, 77, "77 USR1\n", false},   /* saved and exited 1 */
	    {TS_FAILED, 140, 0, 77, "77 USR1\n", false}, /* died of another signal */
	    {TS_COMPLETED, 0, 0, 77, "77 USR1\n", false},
	    {TS_REQUEUED, 138, 0, 77, "77 USR1\n", false},
	    {TS_TIMEOUT, 0, 15, 77, "77 USR1\n", false},
	    {TS_FAILED, 138, 0, 77, "", false},
	    {TS_FAILED, 138, 0, 77, "77 KILL\n", false},
	    {TS_FAILED, 138, 0, 77, "77USR1\n", false},
	    {TS_FAILED, 138, 0, 77, "x 77 USR1\n", false},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct acct_rec rec = {0};
		struct task_outcome o = {0};
		struct strbuf why = STRBUF_INIT;

		rec.state = rows[i].state;
		rec.exit_code = rows[i].exit_code;
		rec.signal = rows[i].signal;
		rec.job_id = rows[i].job_id;
		rec.array_task_id = 3;
		if (outcome_apply_signal_note(&rec, rows[i].note) != rows[i].applies)
			fail_msg("row %zu", i);
		assert_int_equal(rec.by_warning_signal, rows[i].applies);
		if (!rows[i].applies) {
			assert_int_equal(rec.state, rows[i].state);
			continue;
		}
		assert_int_equal(rec.state, TS_TIMEOUT);
		o.state = rec.state;
		o.by_warning_signal = true;
		assert_true(gate_run_failed(&why, &o));
		assert_string_equal(why.buf, "time limit (ended by the warning signal)");
		strbuf_release(&why);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_outcome_task_mem, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_outcome_packed, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_outcome_packed_ended_early, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_outcome_packed_resubmission, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_outcome_unpacked_ignores_steps, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_outcome_recorded_chunks, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_outcome_recorded_array50, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_outcome_recorded_cancelled_pending, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_outcome_recorded_running_throttled, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_outcome_recorded_cancelled_throttled, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_outcome_recorded_requeue, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_outcome_recorded_node_fail_requeue, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_outcome_pending_large_bitmap, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_outcome_pending_range_list, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_outcome_requeue_restarts, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_outcome_latest_attempt, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_outcome_latest_attempt_without_record, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_outcome_chunk_offsets, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_outcome_no_arrays, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_outcome_own_row_beats_pending_record, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_outcome_cancelled_pending_without_list, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_outcome_records_outside_spec, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_outcome_malformed_bitmap, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_outcome_malformed_spec, setup, teardown),
	    cmocka_unit_test(test_outcome_held),
	    cmocka_unit_test(test_outcome_log_path),
	    cmocka_unit_test(test_outcome_signal_note),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
