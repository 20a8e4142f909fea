/*
 * The sweeps in the state store: recording one (its settings, seeds and
 * array jobs) and reading it back. Each public function that writes does so
 * in one transaction, as store.c says.
 */
#include "store.h"

#include <dirent.h>
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

#include "error.h"
#include "plan.h"
#include "path.h"
#include "store_impl.h"
#include "strbuf.h"

#include "banned.h"

static char *json_dump_owned(json_t *json)
{
	char *text = json_dumps(json, JSON_COMPACT | JSON_ENSURE_ASCII);
	char *copy;

	json_decref(json);
	if (!text)
		return NULL;
	copy = xstrdup(text);
	free(text);
	return copy;
}

/* A JSON array of strings; NULL when one is not valid UTF-8. */
static char *strings_json(const char *const *strings, size_t n)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < n; i++) {
		json_t *s = json_string(strings[i]);

		if (!s) {
			json_decref(arr);
			return NULL;
		}
		json_array_append_new(arr, s);
	}
	return json_dump_owned(arr);
}

static char *params_json(const struct plan *plan)
{
	return strings_json((const char *const *)plan->params, plan->nparams);
}

static char *seeds_json(const struct plan *plan)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < plan->nseeds; i++)
		json_array_append_new(arr, json_integer(plan->seeds[i]));
	return json_dump_owned(arr);
}

static char *setting_json(const struct plan *plan, size_t s)
{
	return strings_json((const char *const *)plan->values + s * plan->nparams, plan->nparams);
}

static int insert_settings(struct store *st, int64_t id, const struct plan *plan)
{
	sqlite3_stmt *stmt = NULL;
	int ret = 0;

	if (store_prepare(st, &stmt,
	                  "INSERT INTO settings (sweep_id, setting, vals) VALUES (?, ?, ?)") < 0)
		return SWEEP_ERR;
	for (size_t s = 0; s < plan->nsettings; s++) {
		char *vals = setting_json(plan, s);

		if (!vals) {
			ret = error("cannot encode setting %zu (a value is not valid UTF-8)", s);
			goto out;
		}
		sqlite3_bind_int64(stmt, 1, id);
		sqlite3_bind_int64(stmt, 2, (sqlite3_int64)s);
		sqlite3_bind_text(stmt, 3, vals, -1, free);
		if (sqlite3_step(stmt) != SQLITE_DONE) {
			ret = store_db_error(st, "cannot record the settings");
			goto out;
		}
		sqlite3_reset(stmt);
	}
out:
	sqlite3_finalize(stmt);
	return ret;
}

/*
 * The next sweep id: above every id this store gave (AUTOINCREMENT keeps
 * those of deleted rows too) and above every folder in <state_dir>/sweeps,
 * so that a store made afresh beside old sweep folders never hands their
 * ids, and their tasks' checkpoints, to a new sweep. Called inside the
 * write transaction, so concurrent submits get different ids.
 */
static int next_free_id(struct store *st, int64_t *out)
{
	sqlite3_stmt *stmt = NULL;
	char *sweeps = xstrfmt("%s/sweeps", st->dir);
	int64_t id = 1;
	DIR *d;
	struct dirent *e;
	int ret = 0;

	if (store_prepare(
	        st, &stmt,
	        "SELECT MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'sweeps'), 0),"
	        " COALESCE((SELECT MAX(id) FROM sweeps), 0)) + 1") < 0) {
		ret = SWEEP_ERR;
		goto out;
	}
	if (sqlite3_step(stmt) != SQLITE_ROW) {
		ret = store_db_error(st, "cannot choose a sweep id");
		goto out;
	}
	id = sqlite3_column_int64(stmt, 0);
	if (path_mkdir_private(sweeps, "store folder", false) < 0) {
		ret = SWEEP_ERR;
		goto out;
	}
	d = opendir(sweeps);
	if (!d) {
		ret = error("cannot read the folder '%s': %s", sweeps, strerror(errno));
		goto out;
	}
	while ((e = readdir(d))) {
		char *end;
		long long n;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		errno = 0;
		n = strtoll(e->d_name, &end, 10);
		if (!errno && n >= id && n < INT64_MAX)
			id = n + 1;
	}
	closedir(d);
out:
	sqlite3_finalize(stmt);
	free(sweeps);
	*out = id;
	return ret;
}

int store_begin_sweep(struct store *st, struct sweep_rec *rec, const struct plan *plan,
                      const char *spec_text)
{
	sqlite3_stmt *stmt = NULL;
	char *params = params_json(plan), *seeds = seeds_json(plan);
	int ret = 0;

	if (!params || !seeds) {
		ret = error("cannot encode the parameter names (not valid UTF-8)");
		goto out_free;
	}
	if (store_begin(st) < 0) {
		ret = SWEEP_ERR;
		goto out_free;
	}
	rec->created_at = (int64_t)time(NULL);
	rec->status = SWEEP_SUBMITTING;
	rec->ntasks = plan->ntasks;
	rec->nsettings = plan->nsettings;
	rec->nseeds = plan->nseeds;
	if (next_free_id(st, &rec->id) < 0) {
		ret = SWEEP_ERR;
		goto out;
	}
	if (store_prepare(
	        st, &stmt,
	        "INSERT INTO sweeps (name, source, spec, dir, script, logs, backend, status,"
	        " created_at, ntasks, nsettings, nseeds, max_concurrent, params, seeds, pack,"
	        " roll_chunk, id, task_layout) VALUES (?, ?, ?, '', '', ?, ?, ?, ?, ?, ?, ?, ?, ?,"
	        " ?, ?, ?, ?, ?)") < 0) {
		ret = SWEEP_ERR;
		goto out;
	}
	sqlite3_bind_text(stmt, 1, rec->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, rec->source, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 3, spec_text ? spec_text : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 4, rec->logs, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 5, rec->backend ? rec->backend : "slurm", -1, SQLITE_STATIC);
	sqlite3_bind_int(stmt, 6, SWEEP_SUBMITTING);
	sqlite3_bind_int64(stmt, 7, rec->created_at);
	sqlite3_bind_int64(stmt, 8, (sqlite3_int64)plan->ntasks);
	sqlite3_bind_int64(stmt, 9, (sqlite3_int64)plan->nsettings);
	sqlite3_bind_int64(stmt, 10, (sqlite3_int64)plan->nseeds);
	sqlite3_bind_int(stmt, 11, (int)rec->max_concurrent);
	sqlite3_bind_text(stmt, 12, params, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 13, seeds, -1, SQLITE_STATIC);
	sqlite3_bind_int(stmt, 14, rec->pack > 1 ? (int)rec->pack : 1);
	sqlite3_bind_int64(stmt, 15, rec->roll_chunk);
	sqlite3_bind_int64(stmt, 16, rec->id);
	sqlite3_bind_int(stmt, 17, (int)rec->task_layout);
	if (sqlite3_step(stmt) != SQLITE_DONE) {
		ret = store_db_error(st, "cannot record the sweep");
		goto out;
	}
	sqlite3_finalize(stmt);
	stmt = NULL;

	free(rec->dir);
	free(rec->script);
	rec->dir = xstrfmt("%s/sweeps/%" PRId64, st->dir, rec->id);
	rec->script = xstrfmt("%s/%s.sbatch", rec->dir, rec->name);
	if (store_prepare(st, &stmt, "UPDATE sweeps SET dir = ?, script = ? WHERE id = ?") < 0) {
		ret = SWEEP_ERR;
		goto out;
	}
	sqlite3_bind_text(stmt, 1, rec->dir, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, rec->script, -1, SQLITE_STATIC);
	sqlite3_bind_int64(stmt, 3, rec->id);
	if (sqlite3_step(stmt) != SQLITE_DONE) {
		ret = store_db_error(st, "cannot record the sweep");
		goto out;
	}
	if (insert_settings(st, rec->id, plan) < 0) {
		ret = SWEEP_ERR;
		goto out;
	}
	/* Ours alone: a folder left by another store's sweep is never reused. */
	if (path_mkdir_private(rec->dir, "sweep folder", true) < 0) {
		ret = SWEEP_ERR;
		goto out;
	}
out:
	sqlite3_finalize(stmt);
	ret = store_end(st, ret);
out_free:
	free(params);
	free(seeds);
	return ret;
}

int store_add_array(struct store *st, int64_t sweep_id, const struct array_rec *arr)
{
	sqlite3_stmt *stmt = NULL;
	int ret = 0;

	if (store_prepare(st, &stmt,
	                  "INSERT INTO arrays (sweep_id, job_id, index_offset, spec, attempt,"
	                  " submitted_at, pack, indices) VALUES (?, ?, ?, ?, ?, ?, ?, ?)") < 0)
		return SWEEP_ERR;
	sqlite3_bind_int64(stmt, 1, sweep_id);
	sqlite3_bind_int64(stmt, 2, arr->job_id);
	sqlite3_bind_int64(stmt, 3, arr->offset);
	sqlite3_bind_text(stmt, 4, arr->spec, -1, SQLITE_STATIC);
	sqlite3_bind_int(stmt, 5, (int)arr->attempt);
	sqlite3_bind_int64(stmt, 6, arr->submitted_at ? arr->submitted_at : (int64_t)time(NULL));
	sqlite3_bind_int(stmt, 7, arr->pack > 1 ? (int)arr->pack : 1);
	store_bind_text_or_null(stmt, 8, arr->indices);
	/* A single statement is its own transaction in SQLite. */
	if (sqlite3_step(stmt) != SQLITE_DONE)
		ret = store_db_error(st, "cannot record the array job");
	sqlite3_finalize(stmt);
	return ret;
}

int store_finish_sweep(struct store *st, int64_t sweep_id, enum sweep_status status,
                       const char *reason)
{
	sqlite3_stmt *stmt = NULL;
	int ret = 0;

	if (store_prepare(
	        st, &stmt,
	        "UPDATE sweeps SET status = ?, error = ?,"
	        " submitted_at = CASE WHEN ? = 1 THEN ? ELSE submitted_at END WHERE id = ?") < 0)
		return SWEEP_ERR;
	sqlite3_bind_int(stmt, 1, status);
	store_bind_text_or_null(stmt, 2, reason);
	sqlite3_bind_int(stmt, 3, status);
	sqlite3_bind_int64(stmt, 4, (int64_t)time(NULL));
	sqlite3_bind_int64(stmt, 5, sweep_id);
	if (sqlite3_step(stmt) != SQLITE_DONE)
		ret = store_db_error(st, "cannot update the sweep");
	else if (sqlite3_changes(st->db) != 1)
		ret = error("state store '%s': no sweep with id %" PRId64, st->dir, sweep_id);
	sqlite3_finalize(stmt);
	return ret;
}

#define SWEEP_COLUMNS                                                                              \
	"id, name, source, dir, script, logs, backend, status, error, created_at,"                 \
	" submitted_at, ntasks, nsettings, nseeds, max_concurrent, pack, roll_chunk,"   \
	" task_layout"

char *store_column_text(sqlite3_stmt *stmt, int col)
{
	const unsigned char *text = sqlite3_column_text(stmt, col);

	return text ? xstrdup((const char *)text) : NULL;
}

void store_bind_text_or_null(sqlite3_stmt *stmt, int col, const char *text)
{
	if (text)
		sqlite3_bind_text(stmt, col, text, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(stmt, col);
}

void store_bind_u64_or_null(sqlite3_stmt *stmt, int col, uint64_t v)
{
	if (v == UINT64_MAX || v > INT64_MAX)
		sqlite3_bind_null(stmt, col);
	else
		sqlite3_bind_int64(stmt, col, (sqlite3_int64)v);
}

/* Fails on a task folder layout this sweep does not know. */
static int read_sweep_row(struct sweep_rec *rec, sqlite3_stmt *stmt)
{
	rec->id = sqlite3_column_int64(stmt, 0);
	rec->name = store_column_text(stmt, 1);
	rec->source = store_column_text(stmt, 2);
	rec->dir = store_column_text(stmt, 3);
	rec->script = store_column_text(stmt, 4);
	rec->logs = store_column_text(stmt, 5);
	rec->backend = store_column_text(stmt, 6);
	rec->status = (enum sweep_status)sqlite3_column_int(stmt, 7);
	rec->error = store_column_text(stmt, 8);
	rec->created_at = sqlite3_column_int64(stmt, 9);
	rec->submitted_at = sqlite3_column_int64(stmt, 10);
	rec->ntasks = (size_t)sqlite3_column_int64(stmt, 11);
	rec->nsettings = (size_t)sqlite3_column_int64(stmt, 12);
	rec->nseeds = (size_t)sqlite3_column_int64(stmt, 13);
	rec->max_concurrent = (unsigned)sqlite3_column_int(stmt, 14);
	rec->pack = (unsigned)sqlite3_column_int(stmt, 15);
	rec->roll_chunk = (uint32_t)sqlite3_column_int64(stmt, 16);
	return taskdir_layout_from(&rec->task_layout, sqlite3_column_int64(stmt, 17), rec->id);
}

static int all_digits(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

int store_find_sweep(struct store *st, struct sweep_rec *out, const char *which)
{
	sqlite3_stmt *stmt = NULL;
	int ret = 0, rc;

	if (!which) {
		ret = store_prepare(
		    st, &stmt, "SELECT " SWEEP_COLUMNS " FROM sweeps ORDER BY id DESC LIMIT 1");
	} else if (all_digits(which)) {
		ret =
		    store_prepare(st, &stmt,
		                  "SELECT " SWEEP_COLUMNS " FROM sweeps WHERE id = ?1 OR name = ?2"
		                  " ORDER BY id = ?1 DESC, id DESC LIMIT 1");
		if (!ret) {
			sqlite3_bind_int64(stmt, 1, strtoll(which, NULL, 10));
			sqlite3_bind_text(stmt, 2, which, -1, SQLITE_STATIC);
		}
	} else {
		ret = store_prepare(st, &stmt,
		                    "SELECT " SWEEP_COLUMNS
		                    " FROM sweeps WHERE name = ? ORDER BY id DESC LIMIT 1");
		if (!ret)
			sqlite3_bind_text(stmt, 1, which, -1, SQLITE_STATIC);
	}
	if (ret < 0)
		goto out;
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		ret = read_sweep_row(out, stmt);
	} else if (rc == SQLITE_DONE) {
		if (which)
			ret =
			    error("no sweep named '%s' in '%s' (see 'sweep list')", which, st->dir);
		else
			ret = error("no sweeps in '%s' yet (run 'sweep submit FILE')", st->dir);
	} else {
		ret = store_db_error(st, "cannot read the sweeps");
	}
out:
	sqlite3_finalize(stmt);
	return ret;
}

int store_list_sweeps(struct store *st, struct sweep_rec **out, size_t *n)
{
	sqlite3_stmt *stmt = NULL;
	struct sweep_rec *recs = NULL;
	size_t nr = 0, alloc = 0;
	int rc = SQLITE_DONE, ret = 0;

	*out = NULL;
	*n = 0;
	if (store_prepare(st, &stmt, "SELECT " SWEEP_COLUMNS " FROM sweeps ORDER BY id") < 0)
		return SWEEP_ERR;
	while (ret == 0 && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		ALLOC_GROW(recs, nr + 1, alloc);
		sweep_rec_init(&recs[nr]);
		ret = read_sweep_row(&recs[nr++], stmt);
	}
	if (ret < 0 || rc != SQLITE_DONE) {
		if (ret == 0)
			ret = store_db_error(st, "cannot read the sweeps");
		sweep_recs_free(recs, nr);
	} else {
		*out = recs;
		*n = nr;
	}
	sqlite3_finalize(stmt);
	return ret;
}

static int decode_strings(char ***out, size_t *n, const char *text, size_t want)
{
	json_error_t jerr;
	json_t *arr = json_loads(text, 0, &jerr);
	size_t i;

	if (!arr || !json_is_array(arr) || (want != SIZE_MAX && json_array_size(arr) != want)) {
		json_decref(arr);
		return SWEEP_ERR;
	}
	*n = json_array_size(arr);
	*out = xcalloc(*n ? *n : 1, sizeof(char *));
	for (i = 0; i < *n; i++) {
		const char *s = json_string_value(json_array_get(arr, i));

		(*out)[i] = xstrdup(s ? s : "");
	}
	json_decref(arr);
	return 0;
}

int store_load_spec(struct store *st, char **out, int64_t sweep_id)
{
	sqlite3_stmt *stmt = NULL;
	int ret = 0;

	*out = NULL;
	if (store_prepare(st, &stmt, "SELECT spec FROM sweeps WHERE id = ?") < 0)
		return SWEEP_ERR;
	sqlite3_bind_int64(stmt, 1, sweep_id);
	if (sqlite3_step(stmt) != SQLITE_ROW)
		ret = error("state store '%s': no sweep with id %" PRId64, st->dir, sweep_id);
	else
		*out = store_column_text(stmt, 0);
	if (!ret && !*out)
		*out = xstrdup("");
	sqlite3_finalize(stmt);
	return ret;
}

int store_load_plan(struct store *st, struct plan *out, int64_t sweep_id)
{
	sqlite3_stmt *stmt = NULL;
	json_error_t jerr;
	json_t *seeds = NULL;
	size_t nsettings = 0, s = 0;
	int rc, ret = 0;

	if (store_prepare(st, &stmt, "SELECT params, seeds, nsettings FROM sweeps WHERE id = ?") <
	    0)
		return SWEEP_ERR;
	sqlite3_bind_int64(stmt, 1, sweep_id);
	if (sqlite3_step(stmt) != SQLITE_ROW) {
		ret = error("state store '%s': no sweep with id %" PRId64, st->dir, sweep_id);
		goto out;
	}
	if (decode_strings(&out->params, &out->nparams, (const char *)sqlite3_column_text(stmt, 0),
	                   SIZE_MAX) < 0)
		goto corrupt;
	seeds = json_loads((const char *)sqlite3_column_text(stmt, 1), 0, &jerr);
	if (!seeds || !json_is_array(seeds) || !json_array_size(seeds))
		goto corrupt;
	out->nseeds = json_array_size(seeds);
	out->seeds = xcalloc(out->nseeds, sizeof(*out->seeds));
	for (size_t i = 0; i < out->nseeds; i++)
		out->seeds[i] = json_integer_value(json_array_get(seeds, i));
	nsettings = (size_t)sqlite3_column_int64(stmt, 2);
	sqlite3_finalize(stmt);
	stmt = NULL;

	out->values = xcalloc(nsettings * out->nparams + 1, sizeof(char *));
	if (store_prepare(st, &stmt,
	                  "SELECT setting, vals FROM settings WHERE sweep_id = ?"
	                  " ORDER BY setting") < 0) {
		ret = SWEEP_ERR;
		goto out;
	}
	sqlite3_bind_int64(stmt, 1, sweep_id);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		char **vals;
		size_t nvals;

		if (s >= nsettings || (size_t)sqlite3_column_int64(stmt, 0) != s)
			goto corrupt;
		if (decode_strings(&vals, &nvals, (const char *)sqlite3_column_text(stmt, 1),
		                   out->nparams) < 0)
			goto corrupt;
		memcpy(out->values + s * out->nparams, vals, nvals * sizeof(char *));
		free(vals);
		s++;
	}
	if (rc != SQLITE_DONE) {
		ret = store_db_error(st, "cannot read the settings");
		goto out;
	}
	out->nsettings = s;
	if (s != nsettings)
		goto corrupt;
	plan_derive(out);
	goto out;
corrupt:
	out->nsettings = s;
	ret =
	    error("state store '%s': the plan of sweep %" PRId64 " is damaged", st->dir, sweep_id);
out:
	json_decref(seeds);
	sqlite3_finalize(stmt);
	if (ret < 0) {
		plan_release(out);
		plan_init(out);
	}
	return ret;
}

int store_load_arrays(struct store *st, struct array_rec **out, size_t *n, int64_t sweep_id)
{
	sqlite3_stmt *stmt = NULL;
	struct array_rec *recs = NULL;
	size_t nr = 0, alloc = 0;
	int rc, ret = 0;

	*out = NULL;
	*n = 0;
	if (store_prepare(st, &stmt,
	                  "SELECT job_id, index_offset, spec, attempt, submitted_at, pack, indices"
	                  " FROM arrays"
	                  " WHERE sweep_id = ? ORDER BY attempt, submitted_at, job_id") < 0)
		return SWEEP_ERR;
	sqlite3_bind_int64(stmt, 1, sweep_id);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		ALLOC_GROW(recs, nr + 1, alloc);
		recs[nr].job_id = (uint32_t)sqlite3_column_int64(stmt, 0);
		recs[nr].offset = (uint32_t)sqlite3_column_int64(stmt, 1);
		recs[nr].spec = store_column_text(stmt, 2);
		recs[nr].attempt = (unsigned)sqlite3_column_int(stmt, 3);
		recs[nr].submitted_at = sqlite3_column_int64(stmt, 4);
		recs[nr].pack = (uint32_t)sqlite3_column_int64(stmt, 5);
		recs[nr].indices = store_column_text(stmt, 6);
		nr++;
	}
	if (rc != SQLITE_DONE) {
		ret = store_db_error(st, "cannot read the array jobs");
		array_recs_free(recs, nr);
	} else {
		*out = recs;
		*n = nr;
	}
	sqlite3_finalize(stmt);
	return ret;
}

int store_last_attempt(struct store *st, unsigned *out, int64_t sweep_id)
{
	sqlite3_stmt *stmt = NULL;
	int ret = 0;

	*out = 0;
	if (store_prepare(st, &stmt,
	                  "SELECT COALESCE(MAX(attempt), 0) FROM arrays WHERE sweep_id = ?") < 0)
		return SWEEP_ERR;
	sqlite3_bind_int64(stmt, 1, sweep_id);
	if (sqlite3_step(stmt) == SQLITE_ROW)
		*out = (unsigned)sqlite3_column_int(stmt, 0);
	else
		ret = store_db_error(st, "cannot read the array jobs");
	sqlite3_finalize(stmt);
	return ret;
}
