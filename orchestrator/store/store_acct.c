/*
 * Kept accounting records (acct_arrays, acct_records): written in one
 * transaction per command, read back in the order they were written so
 * that outcomes built from them tie-break as the fresh query's would.
 * States are stored by name, as the local tables do, so the enum can grow.
 */
#include "store.h"

#include <inttypes.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acct.h"
#include "acct_cache.h"
#include "array.h"
#include "error.h"
#include "store_impl.h"
#include "strbuf.h"

#include "banned.h"

static enum task_state state_of_name(const char *name)
{
	for (int s = 0; s < TS_NSTATES; s++)
		if (name && !strcmp(task_state_name((enum task_state)s), name))
			return (enum task_state)s;
	return TS_MISSING;
}

static uint64_t column_u64_or_none(sqlite3_stmt *stmt, int col)
{
	if (sqlite3_column_type(stmt, col) == SQLITE_NULL)
		return ACCT_NO_VALUE;
	return (uint64_t)sqlite3_column_int64(stmt, col);
}

static int load_entries(struct store *st, struct acct_cache_entry **kept, size_t *n,
                        int64_t sweep_id)
{
	sqlite3_stmt *stmt = NULL;
	size_t alloc = 0;
	int rc, ret = 0;

	if (store_prepare(st, &stmt,
	                  "SELECT job_id, submitted_at, with_steps, tasks, since FROM acct_arrays"
	                  " WHERE sweep_id = ? ORDER BY job_id") < 0)
		return SWEEP_ERR;
	sqlite3_bind_int64(stmt, 1, sweep_id);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		struct acct_cache_entry *e;
		const char *tasks = (const char *)sqlite3_column_text(stmt, 3);
		const char *why;

		ALLOC_GROW(*kept, *n + 1, alloc);
		e = &(*kept)[*n];
		memset(e, 0, sizeof(*e));
		e->job_id = (uint32_t)sqlite3_column_int64(stmt, 0);
		e->submitted_at = sqlite3_column_int64(stmt, 1);
		e->with_steps = sqlite3_column_int(stmt, 2) != 0;
		e->since = sqlite3_column_int64(stmt, 4); /* NULL reads 0: unknown */
		/* Unreadable: as if nothing were kept of it (it is asked about again). */
		if (tasks &&
		    array_parse_tasks(&e->tasks, &e->ntasks, tasks, ACCT_NO_TASK, &why) < 0)
			continue;
		if (tasks && !e->tasks)
			continue;
		(*n)++;
	}
	if (rc != SQLITE_DONE)
		ret = store_db_error(st, "cannot read the kept array jobs");
	sqlite3_finalize(stmt);
	return ret;
}

static int load_rows(struct store *st, struct acct_set *rows, int64_t sweep_id)
{
	sqlite3_stmt *stmt = NULL;
	int rc, ret = 0;

	if (store_prepare(st, &stmt,
	                  "SELECT array_job_id, array_task_id, job_id, pending_tasks, state,"
	                  " exit_code, signal, elapsed_s, timelimit_s, req_mem_mb, req_mem_per_cpu,"
	                  " ncpus, maxrss_bytes, nodes, submit_time, start_time, end_time,"
	                  " steps_final, total_cpu_us, gpu_util, gpu_mem_bytes, node_mem_bytes,"
	                  " tasks_per_node, nnodes, step_index FROM acct_records WHERE sweep_id = ?"
	                  " ORDER BY array_job_id, seq") < 0)
		return SWEEP_ERR;
	sqlite3_bind_int64(stmt, 1, sweep_id);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		struct acct_rec *r = acct_set_add(rows);

		r->array_job_id = (uint32_t)sqlite3_column_int64(stmt, 0);
		r->array_task_id = (uint32_t)sqlite3_column_int64(stmt, 1);
		r->job_id = (uint32_t)sqlite3_column_int64(stmt, 2);
		r->pending_tasks = store_column_text(stmt, 3);
		r->state = state_of_name((const char *)sqlite3_column_text(stmt, 4));
		r->exit_code = sqlite3_column_int(stmt, 5);
		r->signal = sqlite3_column_int(stmt, 6);
		r->elapsed_s = (uint64_t)sqlite3_column_int64(stmt, 7);
		r->timelimit_s = column_u64_or_none(stmt, 8);
		r->req_mem_mb = (uint64_t)sqlite3_column_int64(stmt, 9);
		r->req_mem_per_cpu = sqlite3_column_int(stmt, 10) != 0;
		r->ncpus = (uint32_t)sqlite3_column_int64(stmt, 11);
		r->maxrss_bytes = column_u64_or_none(stmt, 12);
		r->nodes = store_column_text(stmt, 13);
		r->submit_time = sqlite3_column_int64(stmt, 14);
		r->start_time = sqlite3_column_int64(stmt, 15);
		r->end_time = sqlite3_column_int64(stmt, 16);
		r->steps_final = sqlite3_column_int(stmt, 17) != 0;
		r->total_cpu_us = column_u64_or_none(stmt, 18);
		r->gpu_util = column_u64_or_none(stmt, 19);
		r->gpu_mem_bytes = column_u64_or_none(stmt, 20);
		r->node_mem_bytes = column_u64_or_none(stmt, 21);
		r->tasks_per_node = (uint32_t)sqlite3_column_int64(stmt, 22);
		r->nnodes = (uint32_t)sqlite3_column_int64(stmt, 23);
		r->step_index = sqlite3_column_type(stmt, 24) == SQLITE_NULL
		                    ? ACCT_NO_STEP
		                    : (uint32_t)sqlite3_column_int64(stmt, 24);
	}
	if (rc != SQLITE_DONE)
		ret = store_db_error(st, "cannot read the kept accounting records");
	sqlite3_finalize(stmt);
	return ret;
}

int store_acct_load(struct store *st, struct acct_cache_entry **kept, size_t *n,
                    struct acct_set *rows, int64_t sweep_id)
{
	int ret;

	*kept = NULL;
	*n = 0;
	ret = load_entries(st, kept, n, sweep_id);
	if (ret >= 0 && *n)
		ret = load_rows(st, rows, sweep_id);
	if (ret < 0) {
		acct_cache_entries_free(*kept, *n);
		*kept = NULL;
		*n = 0;
	}
	return ret;
}

static int drop_one(struct store *st, sqlite3_stmt *del, int64_t sweep_id, uint32_t job_id)
{
	sqlite3_reset(del);
	sqlite3_bind_int64(del, 1, sweep_id);
	sqlite3_bind_int64(del, 2, job_id);
	if (sqlite3_step(del) != SQLITE_DONE)
		return store_db_error(st, "cannot forget kept accounting records");
	return 0;
}

static int insert_row(struct store *st, sqlite3_stmt *ins, int64_t sweep_id, int64_t seq,
                      const struct acct_rec *r)
{
	sqlite3_reset(ins);
	sqlite3_bind_int64(ins, 1, sweep_id);
	sqlite3_bind_int64(ins, 2, r->array_job_id);
	sqlite3_bind_int64(ins, 3, seq);
	sqlite3_bind_int64(ins, 4, r->array_task_id);
	sqlite3_bind_int64(ins, 5, r->job_id);
	store_bind_text_or_null(ins, 6, r->pending_tasks);
	sqlite3_bind_text(ins, 7, task_state_name(r->state), -1, SQLITE_STATIC);
	sqlite3_bind_int(ins, 8, r->exit_code);
	sqlite3_bind_int(ins, 9, r->signal);
	sqlite3_bind_int64(ins, 10, (sqlite3_int64)r->elapsed_s);
	store_bind_u64_or_null(ins, 11, r->timelimit_s);
	sqlite3_bind_int64(ins, 12, (sqlite3_int64)r->req_mem_mb);
	sqlite3_bind_int(ins, 13, r->req_mem_per_cpu);
	sqlite3_bind_int64(ins, 14, r->ncpus);
	store_bind_u64_or_null(ins, 15, r->maxrss_bytes);
	store_bind_text_or_null(ins, 16, r->nodes);
	sqlite3_bind_int64(ins, 17, r->submit_time);
	sqlite3_bind_int64(ins, 18, r->start_time);
	sqlite3_bind_int64(ins, 19, r->end_time);
	sqlite3_bind_int(ins, 20, r->steps_final);
	store_bind_u64_or_null(ins, 21, r->total_cpu_us);
	store_bind_u64_or_null(ins, 22, r->gpu_util);
	store_bind_u64_or_null(ins, 23, r->gpu_mem_bytes);
	store_bind_u64_or_null(ins, 24, r->node_mem_bytes);
	sqlite3_bind_int64(ins, 25, r->tasks_per_node);
	sqlite3_bind_int64(ins, 26, r->nnodes);
	if (r->step_index == ACCT_NO_STEP)
		sqlite3_bind_null(ins, 27);
	else
		sqlite3_bind_int64(ins, 27, r->step_index);
	if (sqlite3_step(ins) != SQLITE_DONE)
		return store_db_error(st, "cannot keep an accounting record");
	return 0;
}

/* e's since (acct_cache_entry.since) at col: NULL when unknown or kept whole. */
static void bind_since(sqlite3_stmt *stmt, int col, const struct acct_cache_entry *e)
{
	if (e->tasks && e->since > 0)
		sqlite3_bind_int64(stmt, col, e->since);
	else
		sqlite3_bind_null(stmt, col);
}

/* The kept tasks of e as an --array value ("0-3,7"), or NULL for the whole array job. */
static int bind_tasks(sqlite3_stmt *stmt, int col, const struct acct_cache_entry *e)
{
	struct strbuf sb = STRBUF_INIT;

	if (!e->tasks)
		return sqlite3_bind_null(stmt, col) == SQLITE_OK ? 0 : SWEEP_ERR;
	array_spec_of_ids(&sb, e->tasks, e->ntasks, 0);
	sqlite3_bind_text(stmt, col, sb.buf, (int)sb.len, SQLITE_TRANSIENT);
	strbuf_release(&sb);
	return 0;
}

/*
 * What the store keeps of array job job_id task by task, into old (tasks
 * and with_steps; old->tasks NULL when nothing is kept that way), and the
 * seq after its last kept row. 0 when read, else an error.
 */
static int kept_part(struct store *st, struct acct_cache_entry *old, int64_t *next_seq,
                     int64_t sweep_id, uint32_t job_id)
{
	sqlite3_stmt *stmt = NULL;
	const char *why;
	int rc, ret = 0;

	memset(old, 0, sizeof(*old));
	*next_seq = 0;
	if (store_prepare(st, &stmt,
	                  "SELECT a.tasks, a.with_steps, a.submitted_at,"
	                  " (SELECT COALESCE(MAX(seq) + 1, 0) FROM acct_records r"
	                  "  WHERE r.sweep_id = a.sweep_id AND r.array_job_id = a.job_id)"
	                  " FROM acct_arrays a WHERE a.sweep_id = ? AND a.job_id = ?") < 0)
		return SWEEP_ERR;
	sqlite3_bind_int64(stmt, 1, sweep_id);
	sqlite3_bind_int64(stmt, 2, job_id);
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW && sqlite3_column_type(stmt, 0) != SQLITE_NULL) {
		old->job_id = job_id;
		old->with_steps = sqlite3_column_int(stmt, 1) != 0;
		old->submitted_at = sqlite3_column_int64(stmt, 2);
		*next_seq = sqlite3_column_int64(stmt, 3);
		/* Unreadable: as if nothing were kept (everything is written anew). */
		if (array_parse_tasks(&old->tasks, &old->ntasks,
		                      (const char *)sqlite3_column_text(stmt, 0), ACCT_NO_TASK,
		                      &why) < 0) {
			free(old->tasks);
			old->tasks = NULL;
			old->ntasks = 0;
		}
	} else if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		ret = store_db_error(st, "cannot read the kept array jobs");
	}
	sqlite3_finalize(stmt);
	return ret;
}

/*
 * Keeps e's rows of set. When the store already keeps some of e's tasks,
 * all of them among e's (the same array job, the same steps), it updates
 * e's entry and adds the rows of the tasks kept since: a refresh of a big
 * running array job writes what ended, not all that was kept before. Else
 * it replaces what was kept.
 */
static int keep_one(struct store *st, sqlite3_stmt *del, sqlite3_stmt *arr, sqlite3_stmt *up,
                    sqlite3_stmt *ins, int64_t sweep_id, const struct acct_cache_entry *e,
                    const struct acct_set *set)
{
	struct acct_cache_entry old;
	int64_t seq = 0;
	bool add = false;
	int ret;

	ret = kept_part(st, &old, &seq, sweep_id, e->job_id);
	if (ret < 0)
		return ret;
	add = e->tasks && old.tasks && old.with_steps == e->with_steps &&
	      old.submitted_at == e->submitted_at;
	/*
	 * Only when e keeps every task kept before: another command may have
	 * kept more since this one read the store, and adding to its list
	 * would keep their rows twice. Then e replaces it.
	 */
	for (size_t t = 0; add && t < old.ntasks; t++)
		add = acct_cache_task_kept(e, old.tasks[t]);
	if (add) {
		sqlite3_reset(up);
		sqlite3_bind_int(up, 1, e->with_steps);
		sqlite3_bind_int64(up, 2, (sqlite3_int64)time(NULL));
		ret = bind_tasks(up, 3, e);
		bind_since(up, 4, e);
		sqlite3_bind_int64(up, 5, sweep_id);
		sqlite3_bind_int64(up, 6, e->job_id);
		if (ret >= 0 && sqlite3_step(up) != SQLITE_DONE)
			ret = store_db_error(st, "cannot keep an array job's accounting");
	} else {
		/* Replaces what was kept: the rows go with their array job (ON DELETE CASCADE). */
		ret = drop_one(st, del, sweep_id, e->job_id);
		if (ret >= 0) {
			sqlite3_reset(arr);
			sqlite3_bind_int64(arr, 1, sweep_id);
			sqlite3_bind_int64(arr, 2, e->job_id);
			sqlite3_bind_int64(arr, 3, e->submitted_at);
			sqlite3_bind_int(arr, 4, e->with_steps);
			sqlite3_bind_int64(arr, 5, (sqlite3_int64)time(NULL));
			ret = bind_tasks(arr, 6, e);
			bind_since(arr, 7, e);
			if (ret >= 0 && sqlite3_step(arr) != SQLITE_DONE)
				ret = store_db_error(st, "cannot keep an array job's accounting");
		}
	}
	for (size_t r = 0; r < set->n && ret >= 0; r++) {
		const struct acct_rec *rec = &set->recs[r];

		if (rec->array_job_id != e->job_id || !acct_cache_task_kept(e, rec->array_task_id))
			continue;
		if (add && acct_cache_task_kept(&old, rec->array_task_id))
			continue;
		ret = insert_row(st, ins, sweep_id, seq++, rec);
	}
	free(old.tasks);
	return ret;
}

int store_acct_update(struct store *st, int64_t sweep_id, const struct acct_cache_entry *keep,
                      size_t nkeep, const struct acct_set *set, const uint32_t *drop, size_t ndrop)
{
	sqlite3_stmt *del = NULL, *arr = NULL, *up = NULL, *ins = NULL;
	int ret;

	if (!nkeep && !ndrop)
		return 0;
	ret = store_begin(st);
	if (ret < 0)
		return ret;
	if (store_prepare(st, &del, "DELETE FROM acct_arrays WHERE sweep_id = ? AND job_id = ?") <
	        0 ||
	    store_prepare(st, &arr,
	                  "INSERT INTO acct_arrays (sweep_id, job_id, submitted_at, with_steps,"
	                  " kept_at, tasks, since) VALUES (?, ?, ?, ?, ?, ?, ?)") < 0 ||
	    store_prepare(st, &up,
	                  "UPDATE acct_arrays SET with_steps = ?, kept_at = ?, tasks = ?, since = ?"
	                  " WHERE sweep_id = ? AND job_id = ?") < 0 ||
	    store_prepare(
	        st, &ins,
	        "INSERT INTO acct_records (sweep_id, array_job_id, seq, array_task_id,"
	        " job_id, pending_tasks, state, exit_code, signal, elapsed_s,"
	        " timelimit_s, req_mem_mb, req_mem_per_cpu, ncpus, maxrss_bytes, nodes,"
	        " submit_time, start_time, end_time, steps_final, total_cpu_us, gpu_util,"
	        " gpu_mem_bytes, node_mem_bytes, tasks_per_node, nnodes, step_index)"
	        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
	        " ?, ?, ?)") < 0) {
		ret = SWEEP_ERR;
		goto out;
	}
	for (size_t i = 0; i < ndrop && ret >= 0; i++)
		ret = drop_one(st, del, sweep_id, drop[i]);
	for (size_t k = 0; k < nkeep && ret >= 0; k++)
		ret = keep_one(st, del, arr, up, ins, sweep_id, &keep[k], set);
out:
	sqlite3_finalize(del);
	sqlite3_finalize(arr);
	sqlite3_finalize(up);
	sqlite3_finalize(ins);
	return store_end(st, ret);
}
