/*
 * The state store's causes of failures and the program a sweep runs
 * (migration 7). Each write is one statement or one transaction.
 */
#include "store.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "store_impl.h"
#include "strbuf.h"

#include "banned.h"

void cause_recs_free(struct cause_rec *recs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(recs[i].line);
		free(recs[i].ran_host);
		free(recs[i].ran_path);
	}
	free(recs);
}

int store_load_causes(struct store *st, struct cause_rec **out, size_t *n, int64_t sweep_id)
{
	sqlite3_stmt *stmt = NULL;
	size_t alloc = 0;
	int rc, ret = 0;

	*out = NULL;
	*n = 0;
	if (store_prepare(st, &stmt,
	                  "SELECT task_index, array_job_id, array_task_id, job_id, end_time, line,"
	                  " log_oom, ran_host, ran_path FROM causes WHERE sweep_id = ?"
	                  " ORDER BY task_index") < 0)
		return SWEEP_ERR;
	sqlite3_bind_int64(stmt, 1, sweep_id);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		struct cause_rec *c;

		ALLOC_GROW(*out, *n + 1, alloc);
		c = &(*out)[(*n)++];
		c->index = (size_t)sqlite3_column_int64(stmt, 0);
		c->array_job_id = (uint32_t)sqlite3_column_int64(stmt, 1);
		c->array_task_id = (uint32_t)sqlite3_column_int64(stmt, 2);
		c->job_id = (uint32_t)sqlite3_column_int64(stmt, 3);
		c->end_time = sqlite3_column_int64(stmt, 4);
		c->line = store_column_text(stmt, 5);
		c->log_oom = sqlite3_column_int(stmt, 6) != 0;
		c->ran_host = store_column_text(stmt, 7);
		c->ran_path = store_column_text(stmt, 8);
	}
	if (rc != SQLITE_DONE)
		ret = store_db_error(st, "cannot read the kept causes of failures");
	sqlite3_finalize(stmt);
	return ret;
}

static int put_one(struct store *st, sqlite3_stmt *stmt, int64_t sweep_id,
                   const struct cause_rec *c)
{
	sqlite3_reset(stmt);
	sqlite3_bind_int64(stmt, 1, sweep_id);
	sqlite3_bind_int64(stmt, 2, (sqlite3_int64)c->index);
	sqlite3_bind_int64(stmt, 3, c->array_job_id);
	sqlite3_bind_int64(stmt, 4, c->array_task_id);
	sqlite3_bind_int64(stmt, 5, c->job_id);
	sqlite3_bind_int64(stmt, 6, c->end_time);
	store_bind_text_or_null(stmt, 7, c->line);
	sqlite3_bind_int(stmt, 8, c->log_oom);
	store_bind_text_or_null(stmt, 9, c->ran_host);
	store_bind_text_or_null(stmt, 10, c->ran_path);
	if (sqlite3_step(stmt) != SQLITE_DONE)
		return store_db_error(st, "cannot keep the cause of a failure");
	return 0;
}

int store_put_causes(struct store *st, int64_t sweep_id, const struct cause_rec *recs, size_t n)
{
	sqlite3_stmt *stmt = NULL;
	int ret;

	if (!n)
		return 0;
	if (store_begin(st) < 0)
		return SWEEP_ERR;
	ret = store_prepare(st, &stmt,
	                    "INSERT OR REPLACE INTO causes (sweep_id, task_index, array_job_id,"
	                    " array_task_id, job_id, end_time, line, log_oom, ran_host, ran_path)"
	                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
	for (size_t i = 0; ret == 0 && i < n; i++)
		ret = put_one(st, stmt, sweep_id, &recs[i]);
	sqlite3_finalize(stmt);
	return store_end(st, ret);
}

int store_set_program(struct store *st, int64_t sweep_id, const char *name, const char *submit_path)
{
	sqlite3_stmt *stmt = NULL;
	int ret = 0;

	if (store_prepare(st, &stmt,
	                  "INSERT OR REPLACE INTO programs (sweep_id, name, submit_path)"
	                  " VALUES (?, ?, ?)") < 0)
		return SWEEP_ERR;
	sqlite3_bind_int64(stmt, 1, sweep_id);
	store_bind_text_or_null(stmt, 2, name);
	store_bind_text_or_null(stmt, 3, submit_path);
	if (sqlite3_step(stmt) != SQLITE_DONE)
		ret = store_db_error(st, "cannot record the sweep's program");
	sqlite3_finalize(stmt);
	return ret;
}

int store_load_program(struct store *st, char **name, char **submit_path, int64_t sweep_id)
{
	sqlite3_stmt *stmt = NULL;
	int rc, ret = 0;

	*name = *submit_path = NULL;
	if (store_prepare(st, &stmt, "SELECT name, submit_path FROM programs WHERE sweep_id = ?") <
	    0)
		return SWEEP_ERR;
	sqlite3_bind_int64(stmt, 1, sweep_id);
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		*name = store_column_text(stmt, 0);
		*submit_path = store_column_text(stmt, 1);
	} else if (rc != SQLITE_DONE) {
		ret = store_db_error(st, "cannot read the sweep's program");
	}
	sqlite3_finalize(stmt);
	return ret;
}
