/*
 * What to keep of accounting and what to ask again (acct_cache.h): final
 * vs not, requeues, a resubmitted task, partial records, refresh.
 */
#include "acct_cache.h"

#include "helpers.h"

#include "array.h"
#include "strbuf.h"

#include "banned.h"

#define NOW 1800000000

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

/* One run of task a of array job 100, submitted at submit, ended at end (0: not yet). */
static struct acct_rec *run(struct acct_set *set, uint32_t a, enum task_state s, int64_t submit,
                            int64_t end)
{
	struct acct_rec *rec = acct_set_add(set);

	rec->array_job_id = 100;
	rec->array_task_id = a;
	rec->job_id = 100 + a;
	rec->state = s;
	rec->submit_time = submit;
	rec->start_time = s == TS_PENDING ? 0 : submit + 1;
	rec->end_time = end;
	rec->maxrss_bytes = 1 << 20;
	rec->steps_final = true;
	return rec;
}

/* Tasks 0-2 of array job 100 completed long ago. */
static void three_completed(struct acct_set *set)
{
	acct_set_init(set);
	for (uint32_t a = 0; a < 3; a++)
		run(set, a, TS_COMPLETED, NOW - 1000, NOW - 900);
}

static struct array_rec array_0_2 = {.job_id = 100, .offset = 0, .spec = "0-2%2", .attempt = 1};

static bool keepable(const struct acct_set *set, bool steps, const char **why)
{
	return acct_cache_keepable(&array_0_2, 3, set, steps, NOW, why);
}

static void test_acct_cache_final(void **state)
{
	struct acct_set set;
	const char *why = "unset";

	(void)state;
	three_completed(&set);
	assert_true(keepable(&set, true, &why));
	assert_null(why);
	/* Every final state counts, failures too. */
	set.recs[0].state = TS_FAILED;
	set.recs[1].state = TS_OUT_OF_MEMORY;
	set.recs[2].state = TS_CANCELLED;
	assert_true(keepable(&set, true, NULL));
	set.recs[2].state = TS_TIMEOUT;
	assert_true(keepable(&set, true, NULL));
	acct_set_release(&set);
}

static void test_acct_cache_not_final(void **state)
{
	static const enum task_state unfinished[] = {TS_PENDING, TS_RUNNING, TS_SUSPENDED};
	struct acct_set set;
	const char *why;

	(void)state;
	for (size_t i = 0; i < sizeof(unfinished) / sizeof(unfinished[0]); i++) {
		three_completed(&set);
		set.recs[1].state = unfinished[i];
		set.recs[1].end_time = 0;
		assert_false(keepable(&set, false, &why));
		assert_string_equal(why, "a task is still pending or running");
		acct_set_release(&set);
	}
	/* Tasks 3.. of a bigger array still inside its pending record. */
	three_completed(&set);
	{
		struct acct_rec *pending = run(&set, 0, TS_PENDING, NOW - 1000, 0);

		pending->array_task_id = ACCT_NO_TASK;
		pending->pending_tasks = xstrdup("0x8");
	}
	assert_false(acct_cache_keepable(&(struct array_rec){.job_id = 100, .spec = "0-3"}, 4, &set,
	                                 false, NOW, &why));
	assert_string_equal(why, "a task is still pending or running");
	acct_set_release(&set);
}

/* slurmdbd lag: a run that ended may lack its end time or final step statistics for a moment. */
static void test_acct_cache_partial_records(void **state)
{
	struct acct_set set;
	const char *why;

	(void)state;
	three_completed(&set);
	set.recs[2].end_time = 0;
	assert_false(keepable(&set, false, &why));
	assert_string_equal(why, "a finished run has no end time yet");
	acct_set_release(&set);

	three_completed(&set);
	set.recs[0].steps_final = false;
	set.recs[0].maxrss_bytes = ACCT_NO_VALUE;
	assert_false(keepable(&set, true, &why));
	assert_string_equal(why, "a finished run's step statistics are not final yet");
	/* Read without steps, MaxRSS was not asked for: the job records are complete. */
	assert_true(keepable(&set, false, NULL));
	acct_set_release(&set);

	/*
	 * Steps ended but no MaxRSS (slurmdbd behind under load): not kept
	 * while the run is recent, kept once it has settled.
	 */
	three_completed(&set);
	set.recs[1].maxrss_bytes = ACCT_NO_VALUE;
	set.recs[1].end_time = NOW - 10;
	assert_false(keepable(&set, true, &why));
	assert_string_equal(why, "a finished run's MaxRSS has not reached accounting yet");
	assert_true(keepable(&set, false, NULL));
	set.recs[1].end_time = NOW - ACCT_CACHE_STATS_SETTLE_S - 1;
	assert_true(keepable(&set, true, NULL));
	acct_set_release(&set);

	/* A task that has no record at all yet (a new array job, slurmdbd behind). */
	three_completed(&set);
	set.n = 2;
	free(set.recs[2].pending_tasks);
	assert_false(keepable(&set, false, &why));
	assert_string_equal(why, "a task has no record yet");
	set.n = 0;
	assert_false(keepable(&set, false, &why));
	assert_string_equal(why, "no record yet");
	acct_set_release(&set);

	/* An array job recovered after a crash has no --array value: never kept. */
	three_completed(&set);
	assert_false(acct_cache_keepable(&(struct array_rec){.job_id = 100, .spec = NULL}, 3, &set,
	                                 false, NOW, &why));
	assert_string_equal(why, "the array job's --array value is unknown");
	acct_set_release(&set);
}

static void test_acct_cache_requeue(void **state)
{
	struct acct_set set;
	const char *why;

	(void)state;
	/* Task 1 was requeued and its next run completed: final, both rows kept. */
	three_completed(&set);
	run(&set, 1, TS_REQUEUED, NOW - 2000, NOW - 1500);
	assert_true(keepable(&set, true, NULL));
	acct_set_release(&set);

	/* Requeued, the next run not recorded yet: the REQUEUED row is its latest. */
	three_completed(&set);
	set.recs[1].state = TS_REQUEUED;
	assert_false(keepable(&set, false, &why));
	assert_string_equal(why, "a task is not finished");
	/* ... and once the next run is pending. */
	run(&set, 1, TS_PENDING, NOW - 10, 0);
	assert_false(keepable(&set, false, &why));
	assert_string_equal(why, "a task is still pending or running");
	acct_set_release(&set);

	/* NODE_FAIL and PREEMPTED runs may be requeued by Slurm: kept only after a while. */
	three_completed(&set);
	set.recs[2].state = TS_NODE_FAIL;
	set.recs[2].end_time = NOW - 10;
	set.recs[2].steps_final = false;
	assert_false(keepable(&set, true, &why));
	assert_string_equal(why,
	                    "a run ended by a node failure or preemption may still be requeued");
	set.recs[2].state = TS_PREEMPTED;
	assert_false(keepable(&set, true, NULL));
	set.recs[2].end_time = NOW - ACCT_CACHE_SETTLE_S;
	assert_true(keepable(&set, true, NULL));
	acct_set_release(&set);
}

/* A resubmission is an array job of its own over some indices: it alone decides for itself. */
static void test_acct_cache_resubmitted_task(void **state)
{
	struct array_rec again = {.job_id = 200, .offset = 0, .spec = "1", .attempt = 2};
	struct acct_cache_entry kept[] = {{100, 5, true, NULL, 0, 0}, {200, 6, false, NULL, 0, 0}};
	struct acct_set set;
	struct acct_rec *rec;

	(void)state;
	acct_set_init(&set);
	rec = run(&set, 1, TS_COMPLETED, NOW - 100, NOW - 50);
	rec->array_job_id = 200;
	assert_true(acct_cache_keepable(&again, 3, &set, true, NOW, NULL));
	rec->state = TS_RUNNING;
	rec->end_time = 0;
	assert_false(acct_cache_keepable(&again, 3, &set, true, NOW, NULL));
	acct_set_release(&set);

	/* The first array job stays kept; the new one is asked about until it is kept too. */
	array_0_2.submitted_at = 5;
	again.submitted_at = 6;
	assert_false(acct_cache_must_query(&array_0_2, acct_cache_find(kept, 2, 100), true, false));
	assert_true(acct_cache_must_query(&again, acct_cache_find(kept, 1, 200), false, false));
	assert_false(acct_cache_must_query(&again, acct_cache_find(kept, 2, 200), false, false));
}

static void test_acct_cache_must_query(void **state)
{
	struct array_rec arr = {.job_id = 100, .spec = "0-2", .attempt = 1, .submitted_at = 5};
	struct acct_cache_entry with = {100, 5, true, NULL, 0, 0}, without = {100, 5, false, NULL, 0, 0};
	struct acct_cache_entry older = {100, 4, true, NULL, 0, 0};

	(void)state;
	assert_true(acct_cache_must_query(&arr, NULL, false, false));
	assert_false(acct_cache_must_query(&arr, &with, false, false));
	assert_false(acct_cache_must_query(&arr, &with, true, false));
	assert_false(acct_cache_must_query(&arr, &without, false, false));
	/* MaxRSS asked for and not kept: only this array job's steps are read. */
	assert_true(acct_cache_must_query(&arr, &without, true, false));
	/* --refresh re-reads everything. */
	assert_true(acct_cache_must_query(&arr, &with, false, true));
	assert_true(acct_cache_must_query(&arr, &with, true, true));
	/* The store's array job is newer than what was kept for its id. */
	assert_true(acct_cache_must_query(&arr, &older, false, false));
	assert_null(acct_cache_find(&with, 1, 101));
	assert_ptr_equal(acct_cache_find(&with, 1, 100), &with);
}

/* An array cancelled while pending: its one pending record, expanded, covers every task. */
static void test_acct_cache_cancelled_pending(void **state)
{
	struct acct_set set;
	struct acct_rec *rec;
	const char *why;

	(void)state;
	acct_set_init(&set);
	rec = run(&set, 0, TS_CANCELLED, NOW - 1000, NOW - 900);
	rec->array_task_id = ACCT_NO_TASK;
	rec->pending_tasks = xstrdup("0x7");
	rec->start_time = 0;
	rec->steps_final = true; /* never started: no steps to wait for */
	assert_true(keepable(&set, true, NULL));
	/*
	 * Cancelled a moment ago (fail_fast's scancel): the tasks that had
	 * started may still send their own rows, so nothing is kept yet.
	 */
	rec->end_time = NOW - 10;
	assert_false(keepable(&set, true, &why));
	assert_string_equal(why, "a task is final only through the pending tasks' record");
	rec->end_time = NOW - 900;
	/* Only two of the three tasks named: the third has no record. */
	free(rec->pending_tasks);
	rec->pending_tasks = xstrdup("0x3");
	assert_false(keepable(&set, true, NULL));
	acct_set_release(&set);
}

/* The rows of task a in set, borrowed (free only .recs). */
static void rows_of_task(struct acct_set *out, const struct acct_set *set, uint32_t a)
{
	acct_set_init(out);
	for (size_t r = 0; r < set->n; r++)
		if (set->recs[r].array_task_id == a) {
			ALLOC_GROW(out->recs, out->n + 1, out->alloc);
			out->recs[out->n++] = set->recs[r];
		}
}

static bool task_keepable(const struct acct_set *set, uint32_t a, bool steps, const char **why)
{
	struct acct_set one;
	bool ok;

	rows_of_task(&one, set, a);
	ok = acct_cache_task_keepable(&array_0_2, &one, steps, NOW, why);
	free(one.recs);
	return ok;
}

/*
 * While an array job runs, its finished tasks are kept one by one, by the
 * same rules as a whole array job: final, an end time, final steps, MaxRSS
 * settled, NODE_FAIL/PREEMPTED settled, not requeued.
 */
static void test_acct_cache_task_keepable(void **state)
{
	struct acct_set set;
	struct acct_rec *rec;
	const char *why;

	(void)state;
	three_completed(&set);
	set.recs[2].state = TS_RUNNING;
	set.recs[2].end_time = 0;
	assert_false(keepable(&set, true, NULL));
	assert_true(task_keepable(&set, 0, true, &why));
	assert_null(why);
	assert_true(task_keepable(&set, 1, true, NULL));
	assert_false(task_keepable(&set, 2, true, &why));
	assert_string_equal(why, "a task is still pending or running");
	assert_false(task_keepable(&set, 3, true, &why));
	assert_string_equal(why, "no record yet");

	/* MaxRSS missing a moment after the end: not yet; long after: kept without it. */
	set.recs[0].maxrss_bytes = ACCT_NO_VALUE;
	set.recs[0].end_time = NOW - 10;
	assert_false(task_keepable(&set, 0, true, &why));
	assert_string_equal(why, "a finished run's MaxRSS has not reached accounting yet");
	assert_true(task_keepable(&set, 0, false, NULL));
	set.recs[0].end_time = NOW - ACCT_CACHE_STATS_SETTLE_S;
	assert_true(task_keepable(&set, 0, true, NULL));
	set.recs[1].steps_final = false;
	assert_false(task_keepable(&set, 1, true, &why));
	assert_string_equal(why, "a finished run's step statistics are not final yet");
	assert_true(task_keepable(&set, 1, false, NULL));
	set.recs[1].end_time = 0;
	assert_false(task_keepable(&set, 1, false, &why));
	assert_string_equal(why, "a finished run has no end time yet");
	acct_set_release(&set);

	/* NODE_FAIL and PREEMPTED: only after ACCT_CACHE_SETTLE_S. */
	three_completed(&set);
	set.recs[1].state = TS_NODE_FAIL;
	set.recs[1].end_time = NOW - 10;
	assert_false(task_keepable(&set, 1, true, &why));
	assert_string_equal(why,
	                    "a run ended by a node failure or preemption may still be requeued");
	set.recs[1].state = TS_PREEMPTED;
	set.recs[1].end_time = NOW - ACCT_CACHE_SETTLE_S;
	assert_true(task_keepable(&set, 1, true, NULL));
	acct_set_release(&set);

	/* Requeued: the REQUEUED row alone is not final; with the next run completed, it is. */
	three_completed(&set);
	set.recs[1].state = TS_REQUEUED;
	assert_false(task_keepable(&set, 1, false, &why));
	assert_string_equal(why, "a requeued task's next run has no record yet");
	run(&set, 1, TS_PENDING, NOW - 10, 0);
	assert_false(task_keepable(&set, 1, false, &why));
	assert_string_equal(why, "a task is still pending or running");
	set.recs[3].state = TS_COMPLETED;
	set.recs[3].end_time = NOW - 5;
	assert_true(task_keepable(&set, 1, false, NULL));
	acct_set_release(&set);

	/* The pending tasks' record goes with the whole array job only. */
	acct_set_init(&set);
	rec = run(&set, 0, TS_CANCELLED, NOW - 1000, NOW - 900);
	rec->array_task_id = ACCT_NO_TASK;
	rec->pending_tasks = xstrdup("0x7");
	assert_false(acct_cache_task_keepable(&array_0_2, &set, false, NOW, &why));
	assert_string_equal(why,
	                    "the record of pending tasks is kept with the whole array job only");
	acct_set_release(&set);

	/* Packed arrays: their tasks are steps; kept as a whole array job only. */
	three_completed(&set);
	{
		struct array_rec packed = array_0_2;
		struct acct_set one;

		packed.pack = 2;
		rows_of_task(&one, &set, 0);
		assert_false(acct_cache_task_keepable(&packed, &one, true, NOW, &why));
		assert_string_equal(why, "a packed array job is kept as a whole only");
		free(one.recs);
	}
	acct_set_release(&set);
}

/* Tasks kept one by one: the array job is still asked about, as a part. */
static void test_acct_cache_partial_entry(void **state)
{
	struct array_rec arr = {.job_id = 100, .spec = "0-9", .attempt = 1, .submitted_at = 5};
	uint32_t tasks[] = {1, 2, 5, 9};
	struct acct_cache_entry part = {100, 5, true, tasks, 4, 0}, older = {100, 4, true, tasks, 4, 0};
	struct acct_cache_entry nosteps = {100, 5, false, tasks, 4, 0},
	                        whole = {100, 5, true, NULL, 0, 0};

	(void)state;
	assert_true(acct_cache_must_query(&arr, &part, false, false));
	assert_true(acct_cache_partial(&arr, &part, true, false));
	assert_true(acct_cache_partial(&arr, &part, false, false));
	assert_true(acct_cache_partial(&arr, &nosteps, false, false));
	/* Steps needed and the kept tasks were read without: the whole array job again. */
	assert_false(acct_cache_partial(&arr, &nosteps, true, false));
	assert_false(acct_cache_partial(&arr, &part, true, true));
	assert_false(acct_cache_partial(&arr, &older, true, false));
	assert_false(acct_cache_partial(&arr, &whole, true, false));
	assert_false(acct_cache_partial(&arr, NULL, true, false));

	for (uint32_t t = 0; t < 11; t++)
		assert_int_equal(acct_cache_task_kept(&part, t),
		                 t == 1 || t == 2 || t == 5 || t == 9);
	assert_true(acct_cache_task_kept(&whole, 7));
	assert_false(acct_cache_task_kept(NULL, 7));
	assert_false(acct_cache_task_kept(&part, ACCT_NO_TASK));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_acct_cache_final, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_acct_cache_not_final, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_acct_cache_partial_records, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_acct_cache_requeue, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_acct_cache_resubmitted_task, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_acct_cache_must_query, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_acct_cache_cancelled_pending, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_acct_cache_task_keepable, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_acct_cache_partial_entry, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
