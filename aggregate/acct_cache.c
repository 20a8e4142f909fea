/*
 * The decisions behind the kept accounting records (acct_cache.h). The
 * test for "every task finished" reuses outcome_build on the array job's
 * own rows, so the latest run is chosen exactly as status and report
 * choose it.
 */
#include "acct_cache.h"

#include <stdlib.h>

#include "array.h"
#include "outcome.h"
#include "strbuf.h"

#include "banned.h"

const struct acct_cache_entry *acct_cache_find(const struct acct_cache_entry *kept, size_t n,
                                               uint32_t job_id)
{
	for (size_t i = 0; i < n; i++)
		if (kept[i].job_id == job_id)
			return &kept[i];
	return NULL;
}

void acct_cache_entries_free(struct acct_cache_entry *kept, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(kept[i].tasks);
	free(kept);
}

bool acct_cache_task_kept(const struct acct_cache_entry *e, uint32_t task)
{
	size_t lo = 0, hi;

	if (!e)
		return false;
	if (!e->tasks)
		return true;
	hi = e->ntasks;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e->tasks[mid] == task)
			return true;
		if (e->tasks[mid] < task)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

bool acct_cache_must_query(const struct array_rec *arr, const struct acct_cache_entry *kept,
                           bool need_steps, bool refresh)
{
	if (refresh || !kept || kept->tasks)
		return true;
	if (kept->job_id != arr->job_id || kept->submitted_at != arr->submitted_at)
		return true;
	return need_steps && !kept->with_steps;
}

bool acct_cache_partial(const struct array_rec *arr, const struct acct_cache_entry *kept,
                        bool need_steps, bool refresh)
{
	if (refresh || !kept || !kept->tasks)
		return false;
	if (kept->job_id != arr->job_id || kept->submitted_at != arr->submitted_at)
		return false;
	return !need_steps || kept->with_steps;
}

/* Runs Slurm may requeue by itself after they ended. */
static bool may_requeue(enum task_state s)
{
	return s == TS_NODE_FAIL || s == TS_PREEMPTED;
}

static bool rows_final(const struct acct_set *rows, bool with_steps, int64_t now, const char **why)
{
	for (size_t r = 0; r < rows->n; r++) {
		const struct acct_rec *rec = &rows->recs[r];

		if (rec->state == TS_REQUEUED)
			continue; /* an earlier run: whether a later one ended is checked below */
		if (!task_state_is_final(rec->state)) {
			*why = "a task is still pending or running";
			return false;
		}
		if (!rec->end_time) {
			*why = "a finished run has no end time yet";
			return false;
		}
		if (may_requeue(rec->state)) {
			if (rec->end_time > now - ACCT_CACHE_SETTLE_S) {
				*why = "a run ended by a node failure or preemption may still be "
				       "requeued";
				return false;
			}
			continue; /* its steps may never be closed */
		}
		if (with_steps && !rec->steps_final) {
			*why = "a finished run's step statistics are not final yet";
			return false;
		}
		if (with_steps && rec->start_time && rec->maxrss_bytes == ACCT_NO_VALUE &&
		    rec->end_time > now - ACCT_CACHE_STATS_SETTLE_S) {
			*why = "a finished run's MaxRSS has not reached accounting yet";
			return false;
		}
	}
	return true;
}

/* Whether rows hold a record of array task a itself. */
static bool own_row(const struct acct_set *rows, uint32_t a)
{
	for (size_t r = 0; r < rows->n; r++)
		if (rows->recs[r].array_task_id == a)
			return true;
	return false;
}

/* The record of the array's pending tasks ended long enough ago (or there is none). */
static bool settled_pending(const struct acct_set *rows, int64_t now)
{
	for (size_t r = 0; r < rows->n; r++)
		if (rows->recs[r].array_task_id == ACCT_NO_TASK &&
		    rows->recs[r].end_time > now - ACCT_CACHE_STATS_SETTLE_S)
			return false;
	return true;
}

bool acct_cache_keepable(const struct array_rec *arr, size_t ntasks, const struct acct_set *rows,
                         bool with_steps, int64_t now, const char **why)
{
	const char *dummy;
	uint32_t *tasks = NULL;
	size_t n = 0, span = 0;
	struct array_rec one;
	struct task_outcome *out = NULL;
	bool ok = false;

	if (!why)
		why = &dummy;
	*why = NULL;
	if (!arr->spec || !*arr->spec) {
		*why = "the array job's --array value is unknown";
		return false;
	}
	if (!rows->n) {
		*why = "no record yet";
		return false;
	}
	if (!rows_final(rows, with_steps, now, why))
		return false;
	if (arr->offset >= ntasks ||
	    array_parse_tasks(&tasks, &n, arr->spec, (uint32_t)(ntasks - arr->offset), why) < 0 ||
	    !n) {
		if (!*why)
			*why = "the array job covers no task of the sweep";
		goto out;
	}
	for (size_t k = 0; k < n; k++)
		if (tasks[k] + (size_t)1 > span)
			span = tasks[k] + (size_t)1;

	/* This array job alone, indexed from 0: every task it covers must have ended. */
	one = *arr;
	one.offset = 0;
	out = xcalloc(span, sizeof(*out));
	if (outcome_build(out, span, &one, 1, rows) < 0) {
		*why = "a record names tasks that cannot be read";
		goto out;
	}
	for (size_t k = 0; k < n; k++) {
		if (!task_state_is_final(out[tasks[k]].state)) {
			*why = out[tasks[k]].state == TS_MISSING ? "a task has no record yet"
			                                         : "a task is not finished";
			goto out;
		}
		/*
		 * Final only through the record of the array's pending tasks (say
		 * CANCELLED by fail_fast's scancel): the task's own row, if it
		 * started, may still be on its way to slurmdbd.
		 */
		if (!own_row(rows, tasks[k]) && !settled_pending(rows, now)) {
			*why = "a task is final only through the pending tasks' record";
			goto out;
		}
	}
	ok = true;
out:
	free(out);
	free(tasks);
	return ok;
}

/* The latest job row (not a packed step's) of rows: the greatest submit time, the later on ties. */
static const struct acct_rec *latest_run(const struct acct_set *rows)
{
	const struct acct_rec *best = NULL;

	for (size_t r = 0; r < rows->n; r++) {
		const struct acct_rec *rec = &rows->recs[r];

		if (rec->step_index != ACCT_NO_STEP)
			continue;
		if (!best || rec->submit_time >= best->submit_time)
			best = rec;
	}
	return best;
}

bool acct_cache_task_keepable(const struct array_rec *arr, const struct acct_set *rows,
                              bool with_steps, int64_t now, const char **why)
{
	const char *dummy;
	const struct acct_rec *last;

	if (!why)
		why = &dummy;
	*why = NULL;
	if (arr->pack > 1) {
		*why = "a packed array job is kept as a whole only";
		return false;
	}
	for (size_t r = 0; r < rows->n; r++)
		if (rows->recs[r].array_task_id == ACCT_NO_TASK) {
			*why = "the record of pending tasks is kept with the whole array job only";
			return false;
		}
	last = latest_run(rows);
	if (!last) {
		*why = "no record yet";
		return false;
	}
	if (last->state == TS_REQUEUED) {
		*why = "a requeued task's next run has no record yet";
		return false;
	}
	return rows_final(rows, with_steps, now, why);
}
