/*
 * The state store's records of what a sweep does by itself (policies,
 * follow-up jobs), of the tasks an extending sweep reused and of the
 * settings a user left out of the report (exclusions). Each write is
 * one statement or one transaction, as everywhere in the store.
 */
#include "store.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "error.h"
#include "store_impl.h"
#include "strbuf.h"

#include "banned.h"

/* ---- What a sweep does by itself: policy, follow-up jobs ---- */

void sweep_policy_release(struct sweep_policy *p)
{
	free(p->mail);
	free(p->command);
	free(p->program);
	free(p->recipe);
	memset(p, 0, sizeof(*p));
}

int store_set_policy(struct store *st, int64_t sweep_id, const struct sweep_policy *p)
{
	sqlite3_stmt *stmt = NULL;
	int ret = 0;

	if (store_prepare(
	        st, &stmt,
	        "INSERT OR REPLACE INTO policies (sweep_id, retries, retry_on_exit, fail_fast,"
	        " mail, command, program, notified_at, extends, recipe)"
	        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)") < 0)
		return SWEEP_ERR;
	sqlite3_bind_int64(stmt, 1, sweep_id);
	sqlite3_bind_int(stmt, 2, (int)p->retries);
	sqlite3_bind_int(stmt, 3, p->retry_on_exit);
	sqlite3_bind_int(stmt, 4, (int)p->fail_fast);
	store_bind_text_or_null(stmt, 5, p->mail);
	store_bind_text_or_null(stmt, 6, p->command);
	store_bind_text_or_null(stmt, 7, p->program);
	sqlite3_bind_int64(stmt, 8, p->notified_at);
	if (p->extends)
		sqlite3_bind_int64(stmt, 9, p->extends);
	else
		sqlite3_bind_null(stmt, 9);
	store_bind_text_or_null(stmt, 10, p->recipe);
	if (sqlite3_step(stmt) != SQLITE_DONE)
		ret = store_db_error(st, "cannot record the sweep's retries and notification");
	sqlite3_finalize(stmt);
	return ret;
}

int store_load_policy(struct store *st, struct sweep_policy *out, int64_t sweep_id)
{
	sqlite3_stmt *stmt = NULL;
	int rc, ret = 0;

	memset(out, 0, sizeof(*out));
	if (store_prepare(
	        st, &stmt,
	        "SELECT retries, retry_on_exit, fail_fast, mail, command, program, notified_at,"
	        " COALESCE(extends, 0), recipe FROM policies WHERE sweep_id = ?") < 0)
		return SWEEP_ERR;
	sqlite3_bind_int64(stmt, 1, sweep_id);
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		out->retries = (unsigned)sqlite3_column_int(stmt, 0);
		out->retry_on_exit = sqlite3_column_int(stmt, 1) != 0;
		out->fail_fast = (unsigned)sqlite3_column_int(stmt, 2);
		out->mail = store_column_text(stmt, 3);
		out->command = store_column_text(stmt, 4);
		out->program = store_column_text(stmt, 5);
		out->notified_at = sqlite3_column_int64(stmt, 6);
		out->extends = sqlite3_column_int64(stmt, 7);
		out->recipe = store_column_text(stmt, 8);
	} else if (rc != SQLITE_DONE) {
		ret = store_db_error(st, "cannot read the sweep's retries and notification");
	}
	sqlite3_finalize(stmt);
	return ret;
}

int store_claim_notification(struct store *st, bool *claimed, int64_t sweep_id)
{
	sqlite3_stmt *stmt = NULL;
	int ret = 0;

	*claimed = false;
	if (store_prepare(
	        st, &stmt,
	        "UPDATE policies SET notified_at = ? WHERE sweep_id = ? AND notified_at = 0") < 0)
		return SWEEP_ERR;
	sqlite3_bind_int64(stmt, 1, (int64_t)time(NULL));
	sqlite3_bind_int64(stmt, 2, sweep_id);
	if (sqlite3_step(stmt) != SQLITE_DONE)
		ret = store_db_error(st, "cannot record the notification");
	else
		*claimed = sqlite3_changes(st->db) == 1;
	sqlite3_finalize(stmt);
	return ret;
}

const char *followup_state_name(enum followup_state s)
{
	switch (s) {
	case FOLLOWUP_PENDING:
		return "pending";
	case FOLLOWUP_RUNNING:
		return "running";
	case FOLLOWUP_DONE:
		return "done";
	case FOLLOWUP_CANCELLED:
		return "cancelled";
	case FOLLOWUP_FAILED:
		return "failed";
	}
	return "unknown";
}

void followup_recs_free(struct followup_rec *recs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(recs[i].after);
		free(recs[i].purpose);
		free(recs[i].note);
	}
	free(recs);
}

int store_add_followup(struct store *st, int64_t sweep_id, const struct followup_rec *f)
{
	sqlite3_stmt *stmt = NULL;
	int ret = 0;

	if (store_prepare(
	        st, &stmt,
	        "INSERT INTO followups (sweep_id, seq, job_id, after, purpose, mail, state,"
	        " submitted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)") < 0)
		return SWEEP_ERR;
	sqlite3_bind_int64(stmt, 1, sweep_id);
	sqlite3_bind_int(stmt, 2, (int)f->seq);
	sqlite3_bind_int64(stmt, 3, f->job_id);
	sqlite3_bind_text(stmt, 4, f->after, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 5, f->purpose, -1, SQLITE_STATIC);
	sqlite3_bind_int(stmt, 6, f->mail);
	sqlite3_bind_int(stmt, 7, FOLLOWUP_PENDING);
	sqlite3_bind_int64(stmt, 8, f->submitted_at ? f->submitted_at : (int64_t)time(NULL));
	if (sqlite3_step(stmt) != SQLITE_DONE)
		ret = store_db_error(st, "cannot record the follow-up job");
	sqlite3_finalize(stmt);
	return ret;
}

int store_load_followups(struct store *st, struct followup_rec **out, size_t *n, int64_t sweep_id)
{
	sqlite3_stmt *stmt = NULL;
	struct followup_rec *recs = NULL;
	size_t nr = 0, alloc = 0;
	int rc, ret = 0;

	*out = NULL;
	*n = 0;
	if (store_prepare(st, &stmt,
	                  "SELECT seq, job_id, after, purpose, mail, state, note, submitted_at,"
	                  " started_at, ended_at FROM followups WHERE sweep_id = ? ORDER BY seq") <
	    0)
		return SWEEP_ERR;
	sqlite3_bind_int64(stmt, 1, sweep_id);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		struct followup_rec *f;

		ALLOC_GROW(recs, nr + 1, alloc);
		f = &recs[nr++];
		f->seq = (unsigned)sqlite3_column_int(stmt, 0);
		f->job_id = (uint32_t)sqlite3_column_int64(stmt, 1);
		f->after = store_column_text(stmt, 2);
		f->purpose = store_column_text(stmt, 3);
		f->mail = sqlite3_column_int(stmt, 4) != 0;
		f->state = (enum followup_state)sqlite3_column_int(stmt, 5);
		f->note = store_column_text(stmt, 6);
		f->submitted_at = sqlite3_column_int64(stmt, 7);
		f->started_at = sqlite3_column_int64(stmt, 8);
		f->ended_at = sqlite3_column_int64(stmt, 9);
	}
	if (rc != SQLITE_DONE) {
		ret = store_db_error(st, "cannot read the follow-up jobs");
		followup_recs_free(recs, nr);
	} else {
		*out = recs;
		*n = nr;
	}
	sqlite3_finalize(stmt);
	return ret;
}

int store_claim_followup(struct store *st, bool *claimed, int64_t sweep_id, unsigned seq)
{
	sqlite3_stmt *stmt = NULL;
	int ret = 0;

	*claimed = false;
	if (store_prepare(
	        st, &stmt,
	        "UPDATE followups SET state = ?, started_at = ? WHERE sweep_id = ? AND seq = ?"
	        " AND state = ?") < 0)
		return SWEEP_ERR;
	sqlite3_bind_int(stmt, 1, FOLLOWUP_RUNNING);
	sqlite3_bind_int64(stmt, 2, (int64_t)time(NULL));
	sqlite3_bind_int64(stmt, 3, sweep_id);
	sqlite3_bind_int(stmt, 4, (int)seq);
	sqlite3_bind_int(stmt, 5, FOLLOWUP_PENDING);
	if (sqlite3_step(stmt) != SQLITE_DONE)
		ret = store_db_error(st, "cannot start the follow-up");
	else
		*claimed = sqlite3_changes(st->db) == 1;
	sqlite3_finalize(stmt);
	return ret;
}

int store_end_followup(struct store *st, int64_t sweep_id, unsigned seq, enum followup_state state,
                       const char *note)
{
	sqlite3_stmt *stmt = NULL;
	int ret = 0;

	if (store_prepare(
	        st, &stmt,
	        "UPDATE followups SET state = ?, note = ?, ended_at = ? WHERE sweep_id = ?"
	        " AND seq = ?") < 0)
		return SWEEP_ERR;
	sqlite3_bind_int(stmt, 1, state);
	store_bind_text_or_null(stmt, 2, note);
	sqlite3_bind_int64(stmt, 3, (int64_t)time(NULL));
	sqlite3_bind_int64(stmt, 4, sweep_id);
	sqlite3_bind_int(stmt, 5, (int)seq);
	if (sqlite3_step(stmt) != SQLITE_DONE)
		ret = store_db_error(st, "cannot record what the follow-up did");
	sqlite3_finalize(stmt);
	return ret;
}

int store_cancel_followups(struct store *st, int64_t sweep_id)
{
	sqlite3_stmt *stmt = NULL;
	int ret = 0;

	if (store_prepare(
	        st, &stmt,
	        "UPDATE followups SET state = ?, note = 'cancelled by sweep cancel', ended_at = ?"
	        " WHERE sweep_id = ? AND state = ?") < 0)
		return SWEEP_ERR;
	sqlite3_bind_int(stmt, 1, FOLLOWUP_CANCELLED);
	sqlite3_bind_int64(stmt, 2, (int64_t)time(NULL));
	sqlite3_bind_int64(stmt, 3, sweep_id);
	sqlite3_bind_int(stmt, 4, FOLLOWUP_PENDING);
	if (sqlite3_step(stmt) != SQLITE_DONE)
		ret = store_db_error(st, "cannot cancel the follow-up jobs");
	sqlite3_finalize(stmt);
	return ret;
}

/* ---- Reused tasks (submit --extend) ---- */

int store_add_reused(struct store *st, int64_t sweep_id, const struct reused_rec *recs, size_t n)
{
	sqlite3_stmt *stmt = NULL;
	int ret;

	if (store_begin(st) < 0)
		return SWEEP_ERR;
	ret = store_prepare(st, &stmt,
	                    "INSERT INTO reused (sweep_id, task_index, from_sweep, from_index)"
	                    " VALUES (?, ?, ?, ?)");
	for (size_t i = 0; ret == 0 && i < n; i++) {
		sqlite3_reset(stmt);
		sqlite3_bind_int64(stmt, 1, sweep_id);
		sqlite3_bind_int64(stmt, 2, (sqlite3_int64)recs[i].index);
		sqlite3_bind_int64(stmt, 3, recs[i].from_sweep);
		sqlite3_bind_int64(stmt, 4, (sqlite3_int64)recs[i].from_index);
		if (sqlite3_step(stmt) != SQLITE_DONE)
			ret = store_db_error(st, "cannot record the reused tasks");
	}
	sqlite3_finalize(stmt);
	return store_end(st, ret);
}

int store_load_reused(struct store *st, struct reused_rec **out, size_t *n, int64_t sweep_id)
{
	sqlite3_stmt *stmt = NULL;
	struct reused_rec *recs = NULL;
	size_t nr = 0, alloc = 0;
	int rc, ret = 0;

	*out = NULL;
	*n = 0;
	if (store_prepare(st, &stmt,
	                  "SELECT task_index, from_sweep, from_index FROM reused WHERE sweep_id = ?"
	                  " ORDER BY task_index") < 0)
		return SWEEP_ERR;
	sqlite3_bind_int64(stmt, 1, sweep_id);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		ALLOC_GROW(recs, nr + 1, alloc);
		recs[nr].index = (size_t)sqlite3_column_int64(stmt, 0);
		recs[nr].from_sweep = sqlite3_column_int64(stmt, 1);
		recs[nr].from_index = (size_t)sqlite3_column_int64(stmt, 2);
		nr++;
	}
	if (rc != SQLITE_DONE) {
		ret = store_db_error(st, "cannot read the reused tasks");
		free(recs);
	} else {
		*out = recs;
		*n = nr;
	}
	sqlite3_finalize(stmt);
	return ret;
}

/* ---- Settings left out of the report ---- */

void exclusion_recs_free(struct exclusion_rec *recs, size_t n)
{
	for (size_t i = 0; recs && i < n; i++) {
		free(recs[i].selector);
		free(recs[i].reason);
	}
	free(recs);
}

int store_add_exclusion(struct store *st, int64_t sweep_id, const char *selector,
                        const char *reason)
{
	sqlite3_stmt *stmt = NULL;
	int ret = 0;

	if (store_prepare(
	        st, &stmt,
	        "INSERT OR REPLACE INTO exclusions (sweep_id, selector, reason, created_at)"
	        " VALUES (?, ?, ?, ?)") < 0)
		return SWEEP_ERR;
	sqlite3_bind_int64(stmt, 1, sweep_id);
	sqlite3_bind_text(stmt, 2, selector, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 3, reason, -1, SQLITE_STATIC);
	sqlite3_bind_int64(stmt, 4, (sqlite3_int64)time(NULL));
	if (sqlite3_step(stmt) != SQLITE_DONE)
		ret = store_db_error(st, "cannot record the exclusion");
	sqlite3_finalize(stmt);
	return ret;
}

int store_remove_exclusion(struct store *st, bool *found, int64_t sweep_id, const char *selector)
{
	sqlite3_stmt *stmt = NULL;
	int ret = 0;

	*found = false;
	if (store_prepare(st, &stmt, "DELETE FROM exclusions WHERE sweep_id = ? AND selector = ?") <
	    0)
		return SWEEP_ERR;
	sqlite3_bind_int64(stmt, 1, sweep_id);
	sqlite3_bind_text(stmt, 2, selector, -1, SQLITE_STATIC);
	if (sqlite3_step(stmt) != SQLITE_DONE)
		ret = store_db_error(st, "cannot forget the exclusion");
	else
		*found = sqlite3_changes(st->db) > 0;
	sqlite3_finalize(stmt);
	return ret;
}

int store_load_exclusions(struct store *st, struct exclusion_rec **out, size_t *n, int64_t sweep_id)
{
	sqlite3_stmt *stmt = NULL;
	struct exclusion_rec *recs = NULL;
	size_t nr = 0, alloc = 0;
	int rc, ret = 0;

	*out = NULL;
	*n = 0;
	if (store_prepare(st, &stmt,
	                  "SELECT selector, reason, created_at FROM exclusions WHERE sweep_id = ?"
	                  " ORDER BY created_at, selector") < 0)
		return SWEEP_ERR;
	sqlite3_bind_int64(stmt, 1, sweep_id);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		ALLOC_GROW(recs, nr + 1, alloc);
		recs[nr].selector = store_column_text(stmt, 0);
		recs[nr].reason = store_column_text(stmt, 1);
		recs[nr].created_at = sqlite3_column_int64(stmt, 2);
		nr++;
	}
	if (rc != SQLITE_DONE) {
		ret = store_db_error(st, "cannot read the exclusions");
		exclusion_recs_free(recs, nr);
	} else {
		*out = recs;
		*n = nr;
	}
	sqlite3_finalize(stmt);
	return ret;
}
