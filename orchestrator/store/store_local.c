/*
 * The local backend's tables in the state store (local_arrays, local_tasks):
 * its array jobs and the runs of their tasks, written by the runner.
 */
#include "store.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "acct.h"
#include "error.h"
#include "plan.h"
#include "path.h"
#include "store_impl.h"
#include "strbuf.h"

#include "banned.h"

/* The local side: states are stored by name, so the enum can grow. */

void local_array_rec_release(struct local_array_rec *rec)
{
	free(rec->script);
	free(rec->name);
	free(rec->workdir);
	free(rec->out_pattern);
	free(rec->err_pattern);
	free(rec->host);
	memset(rec, 0, sizeof(*rec));
}

void local_task_recs_free(struct local_task_rec *recs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(recs[i].gpus);
		free(recs[i].reason);
	}
	free(recs);
}

static int state_of_name(const char *name)
{
	for (int s = 0; s < TS_NSTATES; s++)
		if (name && !strcmp(task_state_name((enum task_state)s), name))
			return s;
	return TS_MISSING;
}

int store_local_add(struct store *st, struct local_array_rec *arr, const uint32_t *task_ids,
                    size_t n)
{
	sqlite3_stmt *stmt = NULL;
	int64_t next;
	int ret = 0;

	if (store_begin(st) < 0)
		return SWEEP_ERR;
	if (store_prepare(st, &stmt,
	                  "SELECT MAX(COALESCE((SELECT MAX(job_id) FROM local_tasks), 0),"
	                  " COALESCE((SELECT MAX(job_id) FROM local_arrays), 0))") < 0) {
		ret = SWEEP_ERR;
		goto out;
	}
	if (sqlite3_step(stmt) != SQLITE_ROW) {
		ret = store_db_error(st, "cannot allocate a local job id");
		goto out;
	}
	next = sqlite3_column_int64(stmt, 0) + 1;
	if (next + (int64_t)n > UINT32_MAX) {
		ret = error("state store '%s': local job ids are used up", st->dir);
		goto out;
	}
	sqlite3_finalize(stmt);
	stmt = NULL;
	arr->job_id = (uint32_t)next;
	arr->submit_time = (int64_t)time(NULL);
	if (store_prepare(
	        st, &stmt,
	        "INSERT INTO local_arrays (job_id, sweep_id, script, index_offset, job_name,"
	        " workdir, stdout, stderr, throttle, time_limit_s, warn_signal, warn_s, mem_mb,"
	        " ncpus, gpus, after_job_id, submit_time, open_append, host)"
	        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)") < 0) {
		ret = SWEEP_ERR;
		goto out;
	}
	sqlite3_bind_int64(stmt, 1, arr->job_id);
	sqlite3_bind_int64(stmt, 2, arr->sweep_id);
	sqlite3_bind_text(stmt, 3, arr->script, -1, SQLITE_STATIC);
	sqlite3_bind_int64(stmt, 4, arr->offset);
	sqlite3_bind_text(stmt, 5, arr->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 6, arr->workdir, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 7, arr->out_pattern, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 8, arr->err_pattern, -1, SQLITE_STATIC);
	sqlite3_bind_int64(stmt, 9, arr->throttle);
	sqlite3_bind_int64(stmt, 10, (sqlite3_int64)arr->time_limit_s);
	sqlite3_bind_int(stmt, 11, arr->warn_signal);
	sqlite3_bind_int64(stmt, 12, arr->warn_s);
	sqlite3_bind_int64(stmt, 13, (sqlite3_int64)arr->mem_mb);
	sqlite3_bind_int64(stmt, 14, arr->ncpus);
	sqlite3_bind_int64(stmt, 15, arr->gpus);
	sqlite3_bind_int64(stmt, 16, arr->after_job_id);
	sqlite3_bind_int64(stmt, 17, arr->submit_time);
	sqlite3_bind_int(stmt, 18, arr->append);
	sqlite3_bind_text(stmt, 19, arr->host ? arr->host : "", -1, SQLITE_STATIC);
	if (sqlite3_step(stmt) != SQLITE_DONE) {
		ret = store_db_error(st, "cannot record the local array job");
		goto out;
	}
	sqlite3_finalize(stmt);
	stmt = NULL;
	if (store_prepare(st, &stmt,
	                  "INSERT INTO local_tasks (job_id, array_job_id, array_task_id, state)"
	                  " VALUES (?, ?, ?, 'PENDING')") < 0) {
		ret = SWEEP_ERR;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		sqlite3_bind_int64(stmt, 1, next + (int64_t)i);
		sqlite3_bind_int64(stmt, 2, arr->job_id);
		sqlite3_bind_int64(stmt, 3, task_ids[i]);
		if (sqlite3_step(stmt) != SQLITE_DONE) {
			ret = store_db_error(st, "cannot record the local tasks");
			goto out;
		}
		sqlite3_reset(stmt);
	}
out:
	sqlite3_finalize(stmt);
	return store_end(st, ret);
}

int store_local_set_runner(struct store *st, uint32_t job_id, int64_t pid, uint64_t start)
{
	sqlite3_stmt *stmt = NULL;
	int ret = 0;

	if (store_prepare(
	        st, &stmt,
	        "UPDATE local_arrays SET runner_pid = ?, runner_start = ? WHERE job_id = ?") < 0)
		return SWEEP_ERR;
	sqlite3_bind_int64(stmt, 1, pid);
	sqlite3_bind_int64(stmt, 2, (sqlite3_int64)start);
	sqlite3_bind_int64(stmt, 3, job_id);
	if (sqlite3_step(stmt) != SQLITE_DONE)
		ret = store_db_error(st, "cannot record the local runner");
	sqlite3_finalize(stmt);
	return ret;
}

int store_local_load_array(struct store *st, struct local_array_rec *out, uint32_t job_id)
{
	sqlite3_stmt *stmt = NULL;
	int rc, ret = 0;

	memset(out, 0, sizeof(*out));
	if (store_prepare(
	        st, &stmt,
	        "SELECT job_id, sweep_id, script, index_offset, job_name, workdir, stdout,"
	        " stderr, throttle, time_limit_s, warn_signal, warn_s, mem_mb, ncpus, gpus,"
	        " after_job_id, runner_pid, runner_start, submit_time, open_append, host"
	        " FROM local_arrays WHERE job_id = ?") < 0)
		return SWEEP_ERR;
	sqlite3_bind_int64(stmt, 1, job_id);
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		out->job_id = (uint32_t)sqlite3_column_int64(stmt, 0);
		out->sweep_id = sqlite3_column_int64(stmt, 1);
		out->script = store_column_text(stmt, 2);
		out->offset = (uint32_t)sqlite3_column_int64(stmt, 3);
		out->name = store_column_text(stmt, 4);
		out->workdir = store_column_text(stmt, 5);
		out->out_pattern = store_column_text(stmt, 6);
		out->err_pattern = store_column_text(stmt, 7);
		out->throttle = (unsigned)sqlite3_column_int64(stmt, 8);
		out->time_limit_s = (uint64_t)sqlite3_column_int64(stmt, 9);
		out->warn_signal = sqlite3_column_int(stmt, 10);
		out->warn_s = (unsigned)sqlite3_column_int64(stmt, 11);
		out->mem_mb = (uint64_t)sqlite3_column_int64(stmt, 12);
		out->ncpus = (unsigned)sqlite3_column_int64(stmt, 13);
		out->gpus = (unsigned)sqlite3_column_int64(stmt, 14);
		out->after_job_id = (uint32_t)sqlite3_column_int64(stmt, 15);
		out->runner_pid = sqlite3_column_int64(stmt, 16);
		out->runner_start = (uint64_t)sqlite3_column_int64(stmt, 17);
		out->submit_time = sqlite3_column_int64(stmt, 18);
		out->append = sqlite3_column_int(stmt, 19);
		out->host = store_column_text(stmt, 20);
	} else if (rc == SQLITE_DONE) {
		ret = error("state store '%s': no local array job %" PRIu32, st->dir, job_id);
	} else {
		ret = store_db_error(st, "cannot read the local array jobs");
	}
	sqlite3_finalize(stmt);
	return ret;
}

int store_local_find(struct store *st, struct array_rec **out, size_t *n, int64_t sweep_id,
                     const char *script)
{
	sqlite3_stmt *stmt = NULL;
	struct array_rec *found = NULL;
	size_t nf = 0, alloc = 0;
	int rc, ret = 0;

	*out = NULL;
	*n = 0;
	if (store_prepare(st, &stmt,
	                  "SELECT a.job_id, a.index_offset, a.submit_time FROM local_arrays a"
	                  " WHERE a.sweep_id = ? AND a.script = ? AND EXISTS (SELECT 1 FROM"
	                  " local_tasks t WHERE t.array_job_id = a.job_id AND NOT"
	                  " (t.state = 'CANCELLED' AND t.start_time = 0))"
	                  " ORDER BY a.job_id") < 0)
		return SWEEP_ERR;
	sqlite3_bind_int64(stmt, 1, sweep_id);
	sqlite3_bind_text(stmt, 2, script, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		ALLOC_GROW(found, nf + 1, alloc);
		memset(&found[nf], 0, sizeof(found[nf]));
		found[nf].job_id = (uint32_t)sqlite3_column_int64(stmt, 0);
		found[nf].offset = (uint32_t)sqlite3_column_int64(stmt, 1);
		found[nf].submitted_at = sqlite3_column_int64(stmt, 2);
		found[nf].attempt = 1;
		nf++;
	}
	if (rc != SQLITE_DONE) {
		ret = store_db_error(st, "cannot read the local array jobs");
		array_recs_free(found, nf);
	} else {
		*out = found;
		*n = nf;
	}
	sqlite3_finalize(stmt);
	return ret;
}

int store_local_load_tasks(struct store *st, struct local_task_rec **out, size_t *n,
                           uint32_t array_job_id)
{
	sqlite3_stmt *stmt = NULL;
	struct local_task_rec *recs = NULL;
	size_t nr = 0, alloc = 0;
	int rc, ret = 0;

	*out = NULL;
	*n = 0;
	if (store_prepare(
	        st, &stmt,
	        "SELECT job_id, array_job_id, array_task_id, state, exit_code, signal, pid,"
	        " pid_start, start_time, end_time, maxrss_bytes, gpus, cpu_us, reason"
	        " FROM local_tasks WHERE array_job_id = ? ORDER BY array_task_id") < 0)
		return SWEEP_ERR;
	sqlite3_bind_int64(stmt, 1, array_job_id);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		struct local_task_rec *t;

		ALLOC_GROW(recs, nr + 1, alloc);
		t = &recs[nr++];
		t->job_id = (uint32_t)sqlite3_column_int64(stmt, 0);
		t->array_job_id = (uint32_t)sqlite3_column_int64(stmt, 1);
		t->array_task_id = (uint32_t)sqlite3_column_int64(stmt, 2);
		t->state = state_of_name((const char *)sqlite3_column_text(stmt, 3));
		t->exit_code = sqlite3_column_int(stmt, 4);
		t->signal = sqlite3_column_int(stmt, 5);
		t->pid = sqlite3_column_int64(stmt, 6);
		t->pid_start = (uint64_t)sqlite3_column_int64(stmt, 7);
		t->start_time = sqlite3_column_int64(stmt, 8);
		t->end_time = sqlite3_column_int64(stmt, 9);
		t->maxrss_bytes = sqlite3_column_type(stmt, 10) == SQLITE_NULL
		                      ? UINT64_MAX
		                      : (uint64_t)sqlite3_column_int64(stmt, 10);
		t->gpus = store_column_text(stmt, 11);
		t->cpu_us = sqlite3_column_type(stmt, 12) == SQLITE_NULL
		                ? UINT64_MAX
		                : (uint64_t)sqlite3_column_int64(stmt, 12);
		t->reason = store_column_text(stmt, 13);
	}
	if (rc != SQLITE_DONE) {
		ret = store_db_error(st, "cannot read the local tasks");
		local_task_recs_free(recs, nr);
	} else {
		*out = recs;
		*n = nr;
	}
	sqlite3_finalize(stmt);
	return ret;
}

int store_local_update_task(struct store *st, const struct local_task_rec *t)
{
	sqlite3_stmt *stmt = NULL;
	int ret = 0;

	if (store_prepare(
	        st, &stmt,
	        "UPDATE local_tasks SET state = ?, exit_code = ?, signal = ?, pid = ?,"
	        " pid_start = ?, start_time = ?, end_time = ?, maxrss_bytes = ?, gpus = ?,"
	        " cpu_us = ? WHERE job_id = ?") < 0)
		return SWEEP_ERR;
	sqlite3_bind_text(stmt, 1, task_state_name((enum task_state)t->state), -1, SQLITE_STATIC);
	sqlite3_bind_int(stmt, 2, t->exit_code);
	sqlite3_bind_int(stmt, 3, t->signal);
	sqlite3_bind_int64(stmt, 4, t->pid);
	sqlite3_bind_int64(stmt, 5, (sqlite3_int64)t->pid_start);
	sqlite3_bind_int64(stmt, 6, t->start_time);
	sqlite3_bind_int64(stmt, 7, t->end_time);
	store_bind_u64_or_null(stmt, 8, t->maxrss_bytes);
	store_bind_text_or_null(stmt, 9, t->gpus);
	store_bind_u64_or_null(stmt, 10, t->cpu_us);
	sqlite3_bind_int64(stmt, 11, t->job_id);
	/* A single statement is its own transaction in SQLite. */
	if (sqlite3_step(stmt) != SQLITE_DONE)
		ret = store_db_error(st, "cannot record a local task");
	else if (sqlite3_changes(st->db) != 1)
		ret = error("state store '%s': no local task with job id %" PRIu32, st->dir,
		            t->job_id);
	sqlite3_finalize(stmt);
	return ret;
}

int store_local_set_reason(struct store *st, uint32_t array_job_id, const char *reason)
{
	sqlite3_stmt *stmt = NULL;
	int ret = 0;

	if (store_prepare(st, &stmt,
	                  "UPDATE local_tasks SET reason = ?"
	                  " WHERE array_job_id = ? AND state = 'PENDING'") < 0)
		return SWEEP_ERR;
	store_bind_text_or_null(stmt, 1, reason);
	sqlite3_bind_int64(stmt, 2, array_job_id);
	if (sqlite3_step(stmt) != SQLITE_DONE)
		ret = store_db_error(st, "cannot record why the local tasks wait");
	sqlite3_finalize(stmt);
	return ret;
}

int store_local_cancel_pending(struct store *st, uint32_t array_job_id, int64_t end_time)
{
	sqlite3_stmt *stmt = NULL;
	int ret = 0;

	if (store_prepare(st, &stmt,
	                  "UPDATE local_tasks SET state = 'CANCELLED', end_time = ?"
	                  " WHERE array_job_id = ? AND state = 'PENDING'") < 0)
		return SWEEP_ERR;
	sqlite3_bind_int64(stmt, 1, end_time);
	sqlite3_bind_int64(stmt, 2, array_job_id);
	if (sqlite3_step(stmt) != SQLITE_DONE)
		ret = store_db_error(st, "cannot cancel the pending local tasks");
	sqlite3_finalize(stmt);
	return ret;
}
