/*
 * The state store on SQLite. Every public function that writes does so in
 * one transaction (BEGIN IMMEDIATE ... COMMIT), so an interrupted command
 * leaves either all of its write or none of it. The default rollback
 * journal is kept rather than WAL: state folders often live on network
 * file systems, where WAL's shared memory does not work.
 */
#include "store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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

/* Each entry migrates from version i to i + 1. */
static const char *const migrations[] = {
    "CREATE TABLE sweeps ("
    "  id INTEGER PRIMARY KEY AUTOINCREMENT,"
    "  name TEXT NOT NULL,"
    "  source TEXT NOT NULL,"
    "  spec TEXT NOT NULL,"
    "  dir TEXT NOT NULL,"
    "  script TEXT NOT NULL,"
    "  logs TEXT NOT NULL,"
    "  backend TEXT NOT NULL,"
    "  status INTEGER NOT NULL,"
    "  error TEXT,"
    "  created_at INTEGER NOT NULL,"
    "  submitted_at INTEGER NOT NULL DEFAULT 0,"
    "  ntasks INTEGER NOT NULL,"
    "  nsettings INTEGER NOT NULL,"
    "  nseeds INTEGER NOT NULL,"
    "  max_concurrent INTEGER NOT NULL DEFAULT 0,"
    "  params TEXT NOT NULL,"
    "  seeds TEXT NOT NULL);"
    "CREATE INDEX sweeps_by_name ON sweeps(name, id);"
    "CREATE TABLE settings ("
    "  sweep_id INTEGER NOT NULL REFERENCES sweeps(id),"
    "  setting INTEGER NOT NULL,"
    "  vals TEXT NOT NULL,"
    "  PRIMARY KEY (sweep_id, setting)) WITHOUT ROWID;"
    "CREATE TABLE arrays ("
    "  sweep_id INTEGER NOT NULL REFERENCES sweeps(id),"
    "  job_id INTEGER NOT NULL,"
    "  index_offset INTEGER NOT NULL,"
    "  spec TEXT NOT NULL,"
    "  attempt INTEGER NOT NULL,"
    "  submitted_at INTEGER NOT NULL,"
    "  PRIMARY KEY (sweep_id, job_id));",
    /* 2: the local side (backend/local/): array jobs run on this machine and their tasks. */
    "CREATE TABLE local_arrays ("
    "  job_id INTEGER PRIMARY KEY,"
    "  sweep_id INTEGER NOT NULL REFERENCES sweeps(id),"
    "  script TEXT NOT NULL,"
    "  index_offset INTEGER NOT NULL,"
    "  job_name TEXT NOT NULL,"
    "  workdir TEXT NOT NULL,"
    "  stdout TEXT NOT NULL,"
    "  stderr TEXT NOT NULL,"
    "  open_append INTEGER NOT NULL,"
    "  host TEXT NOT NULL,"
    "  throttle INTEGER NOT NULL,"
    "  time_limit_s INTEGER NOT NULL,"
    "  warn_signal INTEGER NOT NULL,"
    "  warn_s INTEGER NOT NULL,"
    "  mem_mb INTEGER NOT NULL,"
    "  ncpus INTEGER NOT NULL,"
    "  gpus INTEGER NOT NULL,"
    "  after_job_id INTEGER NOT NULL,"
    "  runner_pid INTEGER NOT NULL DEFAULT 0,"
    "  runner_start INTEGER NOT NULL DEFAULT 0,"
    "  submit_time INTEGER NOT NULL);"
    "CREATE TABLE local_tasks ("
    "  job_id INTEGER PRIMARY KEY,"
    "  array_job_id INTEGER NOT NULL REFERENCES local_arrays(job_id),"
    "  array_task_id INTEGER NOT NULL,"
    "  state TEXT NOT NULL,"
    "  exit_code INTEGER NOT NULL DEFAULT 0,"
    "  signal INTEGER NOT NULL DEFAULT 0,"
    "  pid INTEGER NOT NULL DEFAULT 0,"
    "  pid_start INTEGER NOT NULL DEFAULT 0,"
    "  start_time INTEGER NOT NULL DEFAULT 0,"
    "  end_time INTEGER NOT NULL DEFAULT 0,"
    "  maxrss_bytes INTEGER,"
    "  gpus TEXT,"
    "  UNIQUE (array_job_id, array_task_id));",
    /* 3: a local task's CPU time (user + system), microseconds; NULL before it ends. */
    "ALTER TABLE local_tasks ADD COLUMN cpu_us INTEGER;",
    /*
     * 4: what a sweep does by itself when its array jobs end (retries,
     * notify, fail_fast), its follow-up jobs, and the tasks an extending
     * sweep reused from the sweeps it extends.
     */
    "CREATE TABLE policies ("
    "  sweep_id INTEGER PRIMARY KEY REFERENCES sweeps(id),"
    "  retries INTEGER NOT NULL DEFAULT 0,"
    "  retry_on_exit INTEGER NOT NULL DEFAULT 0,"
    "  fail_fast INTEGER NOT NULL DEFAULT 0,"
    "  mail TEXT,"
    "  command TEXT,"
    "  program TEXT,"
    "  notified_at INTEGER NOT NULL DEFAULT 0,"
    "  extends INTEGER,"
    "  recipe TEXT);"
    "CREATE TABLE followups ("
    "  sweep_id INTEGER NOT NULL REFERENCES sweeps(id),"
    "  seq INTEGER NOT NULL,"
    "  job_id INTEGER NOT NULL,"
    "  after TEXT NOT NULL,"
    "  purpose TEXT NOT NULL,"
    "  mail INTEGER NOT NULL DEFAULT 0,"
    "  state INTEGER NOT NULL,"
    "  note TEXT,"
    "  submitted_at INTEGER NOT NULL,"
    "  started_at INTEGER NOT NULL DEFAULT 0,"
    "  ended_at INTEGER NOT NULL DEFAULT 0,"
    "  PRIMARY KEY (sweep_id, seq)) WITHOUT ROWID;"
    "CREATE TABLE reused ("
    "  sweep_id INTEGER NOT NULL REFERENCES sweeps(id),"
    "  task_index INTEGER NOT NULL,"
    "  from_sweep INTEGER NOT NULL REFERENCES sweeps(id),"
    "  from_index INTEGER NOT NULL,"
    "  PRIMARY KEY (sweep_id, task_index)) WITHOUT ROWID;",
    /*
     * 5: packed tasks (each array task runs `pack` sweep tasks as job steps)
     * and rolling submission (chunks of roll_chunk array tasks, submitted by
     * follow-ups as earlier ones end).
     */
    "ALTER TABLE sweeps ADD COLUMN pack INTEGER NOT NULL DEFAULT 1;"
    "ALTER TABLE sweeps ADD COLUMN roll_chunk INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE arrays ADD COLUMN pack INTEGER NOT NULL DEFAULT 1;"
    "ALTER TABLE arrays ADD COLUMN indices TEXT;",
    /*
     * 6: accounting records kept once every task of an array job finished
     * (store_acct.c), so that later commands need not ask slurmdbd again.
     */
    "CREATE TABLE acct_arrays ("
    "  sweep_id INTEGER NOT NULL REFERENCES sweeps(id),"
    "  job_id INTEGER NOT NULL,"
    "  submitted_at INTEGER NOT NULL,"
    "  with_steps INTEGER NOT NULL,"
    "  kept_at INTEGER NOT NULL,"
    "  PRIMARY KEY (sweep_id, job_id)) WITHOUT ROWID;"
    "CREATE TABLE acct_records ("
    "  sweep_id INTEGER NOT NULL,"
    "  array_job_id INTEGER NOT NULL,"
    "  seq INTEGER NOT NULL,"
    "  array_task_id INTEGER NOT NULL,"
    "  job_id INTEGER NOT NULL,"
    "  pending_tasks TEXT,"
    "  state TEXT NOT NULL,"
    "  exit_code INTEGER NOT NULL,"
    "  signal INTEGER NOT NULL,"
    "  elapsed_s INTEGER NOT NULL,"
    "  timelimit_s INTEGER,"
    "  req_mem_mb INTEGER NOT NULL,"
    "  req_mem_per_cpu INTEGER NOT NULL,"
    "  ncpus INTEGER NOT NULL,"
    "  maxrss_bytes INTEGER,"
    "  nodes TEXT,"
    "  submit_time INTEGER NOT NULL,"
    "  start_time INTEGER NOT NULL,"
    "  end_time INTEGER NOT NULL,"
    "  steps_final INTEGER NOT NULL,"
    "  total_cpu_us INTEGER,"
    "  gpu_util INTEGER,"
    "  gpu_mem_bytes INTEGER,"
    "  node_mem_bytes INTEGER,"
    "  tasks_per_node INTEGER NOT NULL DEFAULT 1,"
    "  nnodes INTEGER NOT NULL DEFAULT 0,"
    "  step_index INTEGER,"
    "  PRIMARY KEY (sweep_id, array_job_id, seq),"
    "  FOREIGN KEY (sweep_id, array_job_id) REFERENCES acct_arrays(sweep_id, job_id)"
    "    ON DELETE CASCADE) WITHOUT ROWID;",
    /*
     * 7: settings left out of a sweep's report (report --exclude), each
     * with the reason its user gave.
     */
    "CREATE TABLE IF NOT EXISTS exclusions ("
    "  sweep_id INTEGER NOT NULL REFERENCES sweeps(id),"
    "  selector TEXT NOT NULL,"
    "  reason TEXT NOT NULL,"
    "  created_at INTEGER NOT NULL,"
    "  PRIMARY KEY (sweep_id, selector)) WITHOUT ROWID;",
    /*
     * 8: why failed tasks failed (store_cause.c): per task index, the cause
     * line read once from the end of its latest run's logs and what ran
     * (the command's first word as the node resolved it), so that a
     * finished sweep's logs are not read again; and that first word as
     * the submitting host resolved it.
     */
    "CREATE TABLE IF NOT EXISTS causes ("
    "  sweep_id INTEGER NOT NULL REFERENCES sweeps(id),"
    "  task_index INTEGER NOT NULL,"
    "  array_job_id INTEGER NOT NULL,"
    "  array_task_id INTEGER NOT NULL,"
    "  job_id INTEGER NOT NULL,"
    "  end_time INTEGER NOT NULL,"
    "  line TEXT,"
    "  log_oom INTEGER NOT NULL,"
    "  ran_host TEXT,"
    "  ran_path TEXT,"
    "  PRIMARY KEY (sweep_id, task_index)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS programs ("
    "  sweep_id INTEGER PRIMARY KEY REFERENCES sweeps(id),"
    "  name TEXT NOT NULL,"
    "  submit_path TEXT);",
    /*
     * 9: the tasks of an array job kept one by one while it still runs
     * (NULL: the whole array job is kept).
     */
    "ALTER TABLE acct_arrays ADD COLUMN tasks TEXT;",
};

const char *sweep_status_name(enum sweep_status s)
{
	switch (s) {
	case SWEEP_SUBMITTING:
		return "submitting";
	case SWEEP_SUBMITTED:
		return "submitted";
	case SWEEP_FAILED:
		return "failed";
	}
	return "unknown";
}

void sweep_rec_init(struct sweep_rec *rec)
{
	memset(rec, 0, sizeof(*rec));
}

void sweep_rec_release(struct sweep_rec *rec)
{
	free(rec->name);
	free(rec->source);
	free(rec->dir);
	free(rec->script);
	free(rec->logs);
	free(rec->backend);
	free(rec->error);
	sweep_rec_init(rec);
}

void sweep_recs_free(struct sweep_rec *recs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sweep_rec_release(&recs[i]);
	free(recs);
}

int store_db_error(struct store *st, const char *what)
{
	return error("state store '%s': %s: %s", st->dir, what, sqlite3_errmsg(st->db));
}

static int exec(struct store *st, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		int ret = error("state store '%s': %s", st->dir, msg ? msg : "unknown error");

		sqlite3_free(msg);
		return ret;
	}
	return 0;
}

int store_prepare(struct store *st, sqlite3_stmt **stmt, const char *sql)
{
	if (sqlite3_prepare_v2(st->db, sql, -1, stmt, NULL) != SQLITE_OK)
		return store_db_error(st, "cannot prepare a query");
	return 0;
}

int store_begin(struct store *st)
{
	return exec(st, "BEGIN IMMEDIATE");
}

/* Ends what store_begin() started: rolls back after a failure (ret < 0) and returns it, else
 * commits. */
int store_end(struct store *st, int ret)
{
	if (ret < 0) {
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		return ret;
	}
	return exec(st, "COMMIT");
}

/* Whether the file holds any table: a version-0 store must be empty. */
static bool has_tables(struct store *st)
{
	sqlite3_stmt *stmt = NULL;
	bool any = true; /* unreadable: not taken as empty */

	if (sqlite3_prepare_v2(st->db, "SELECT 1 FROM sqlite_master WHERE type = 'table'", -1,
	                       &stmt, NULL) == SQLITE_OK)
		any = sqlite3_step(stmt) != SQLITE_DONE;
	sqlite3_finalize(stmt);
	return any;
}

static int schema_damaged(struct store *st, const char *what)
{
	return error("state store '%s/sweep.db': %s: the file is damaged or was changed by "
	             "hand; restore it from a backup, or move it away (sweep then starts a new "
	             "store)",
	             st->dir, what);
}

/* One column of a schema, as sqlite_master and pragma_table_info give it. */
struct schema_column {
	char *table, *column, *type;
};

static void schema_free(struct schema_column *cols, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(cols[i].table);
		free(cols[i].column);
		free(cols[i].type);
	}
	free(cols);
}

static char *column_dup(sqlite3_stmt *stmt, int col)
{
	const unsigned char *text = sqlite3_column_text(stmt, col);

	return xstrdup(text ? (const char *)text : "");
}

/* Every column of db's tables, by table then column name (memcmp order, as strcmp's). */
static int read_schema(struct schema_column **out, size_t *n, sqlite3 *db)
{
	sqlite3_stmt *stmt = NULL;
	size_t alloc = 0;
	int rc;

	*out = NULL;
	*n = 0;
	rc = sqlite3_prepare_v2(db,
	                        "SELECT m.name, p.name, p.type FROM sqlite_master m, "
	                        "pragma_table_info(m.name) p WHERE m.type = 'table' AND m.name "
	                        "NOT LIKE 'sqlite_%' ORDER BY m.name, p.name",
	                        -1, &stmt, NULL);
	while (rc == SQLITE_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		ALLOC_GROW(*out, *n + 1, alloc);
		(*out)[*n].table = column_dup(stmt, 0);
		(*out)[*n].column = column_dup(stmt, 1);
		(*out)[*n].type = column_dup(stmt, 2);
		(*n)++;
		rc = SQLITE_OK;
	}
	sqlite3_finalize(stmt);
	return rc == SQLITE_DONE ? 0 : -1;
}

static int cmp_column(const void *a, const void *b)
{
	const struct schema_column *x = a, *y = b;
	int c = strcmp(x->table, y->table);

	return c ? c : strcmp(x->column, y->column);
}

static bool has_table(const struct schema_column *cols, size_t n, const char *table)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(cols[i].table, table))
			return true;
	return false;
}

/* want against the file's columns: 0, or schema_damaged naming what differs. */
static int check_column(struct store *st, const struct schema_column *want,
                        const struct schema_column *have, size_t nhave)
{
	const struct schema_column *got =
	    nhave ? bsearch(want, have, nhave, sizeof(*have), cmp_column) : NULL;
	char *what = NULL;
	int ret = 0;

	if (!got && !has_table(have, nhave, want->table))
		what = xstrfmt("table '%s' is missing", want->table);
	else if (!got)
		what = xstrfmt("column '%s.%s' is missing", want->table, want->column);
	else if (sqlite3_stricmp(got->type, want->type))
		what = xstrfmt("column '%s.%s' is %s, sweep expects %s", want->table, want->column,
		               *got->type ? got->type : "untyped", want->type);
	if (what)
		ret = schema_damaged(st, what);
	free(what);
	return ret;
}

/*
 * The file's tables and columns against the schema the migrations build,
 * built again in memory: a store damaged or changed by hand is refused
 * with its file named, before a query fails half-way (or worse, reads a
 * column of another type). Tables and columns sweep does not know are
 * left alone. Each schema is read in one query.
 */
static int check_schema(struct store *st)
{
	sqlite3 *mem = NULL;
	struct schema_column *want = NULL, *have = NULL;
	size_t nwant = 0, nhave = 0;
	int ret = 0;

	if (sqlite3_open(":memory:", &mem) != SQLITE_OK) {
		ret = error("cannot check state store '%s': out of memory", st->dir);
		goto out;
	}
	for (size_t v = 0; v < sizeof(migrations) / sizeof(migrations[0]); v++)
		if (sqlite3_exec(mem, migrations[v], NULL, NULL, NULL) != SQLITE_OK) {
			ret = error("migration %zu: %s", v + 1, sqlite3_errmsg(mem));
			goto out;
		}
	if (read_schema(&want, &nwant, mem) < 0) {
		ret = error("cannot check state store '%s': %s", st->dir, sqlite3_errmsg(mem));
		goto out;
	}
	if (read_schema(&have, &nhave, st->db) < 0) {
		ret = store_db_error(st, "cannot read the schema");
		goto out;
	}
	for (size_t i = 0; !ret && i < nwant; i++)
		ret = check_column(st, &want[i], have, nhave);
out:
	schema_free(want, nwant);
	schema_free(have, nhave);
	sqlite3_close(mem);
	return ret;
}

static int migrate(struct store *st)
{
	sqlite3_stmt *stmt = NULL;
	int version, ret = 0;
	const int latest = (int)(sizeof(migrations) / sizeof(migrations[0]));

	if (store_begin(st) < 0)
		return SWEEP_ERR;
	if (store_prepare(st, &stmt, "PRAGMA user_version") < 0) {
		ret = SWEEP_ERR;
		goto out;
	}
	if (sqlite3_step(stmt) != SQLITE_ROW) {
		ret = store_db_error(st, "cannot read the schema version");
		goto out;
	}
	version = sqlite3_column_int(stmt, 0);
	if (version < 0 || (version == 0 && has_tables(st))) {
		ret = error("state store '%s/sweep.db' has schema version %d, which no sweep "
		            "writes: the file is damaged or not sweep's; move it away (sweep then "
		            "starts a new store) or restore it from a backup",
		            st->dir, version);
		goto out;
	}
	if (version > latest) {
		ret = error("state store '%s' has schema version %d, newer than this sweep "
		            "knows (%d); use a newer sweep",
		            st->dir, version, latest);
		goto out;
	}
	for (int v = version; v < latest; v++) {
		char pragma[64];

		if (exec(st, migrations[v]) < 0) {
			ret = SWEEP_ERR;
			goto out;
		}
		snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d", v + 1);
		if (exec(st, pragma) < 0) {
			ret = SWEEP_ERR;
			goto out;
		}
	}
	if (!ret)
		ret = check_schema(st);
out:
	sqlite3_finalize(stmt);
	return store_end(st, ret);
}

/*
 * A new store file is made here, owner-only, rather than by SQLite (0644
 * less the umask): SQLite gives its -journal and -wal files the mode of
 * the database file. An empty file is a new database to SQLite.
 */
static int create_db_file(const char *dbpath)
{
	int fd;

	if (access(dbpath, F_OK) == 0)
		return 0; /* there already (through a link, perhaps): SQLite opens it */
	fd = path_open_private(dbpath, O_RDWR, PATH_PRIVATE_FILE);

	if (fd < 0)
		return error("cannot create the state store '%s': %s", dbpath, strerror(errno));
	close(fd);
	return 0;
}

int store_open(struct store **out, const char *state_dir, int create)
{
	struct store *st;
	struct stat sb;
	char cwd[PATH_MAX];
	char *dbpath = NULL;
	int flags = SQLITE_OPEN_READWRITE;

	*out = NULL;
	if (stat(state_dir, &sb) < 0) {
		if (errno != ENOENT || !create)
			return error("no state store in '%s': %s (run 'sweep submit' first, or "
			             "give --state-dir)",
			             state_dir, strerror(errno));
		if (path_mkdir_private(state_dir, "state folder", false) < 0)
			return SWEEP_ERR;
	} else if (path_check_private(state_dir, "state folder") < 0) {
		return SWEEP_ERR;
	}

	if (state_dir[0] != '/' && !getcwd(cwd, sizeof(cwd)))
		return error("cannot resolve '%s': %s", state_dir, strerror(errno));
	st = xcalloc(1, sizeof(*st));
	st->dir = path_absolute(state_dir, cwd);
	dbpath = xstrfmt("%s/sweep.db", st->dir);
	if (create) {
		if (create_db_file(dbpath) < 0)
			goto fail;
		flags |= SQLITE_OPEN_CREATE;
	} else if (access(dbpath, F_OK) < 0) {
		error("no state store in '%s' (run 'sweep submit' first, or give --state-dir)",
		      st->dir);
		goto fail;
	}
	if (sqlite3_open_v2(dbpath, &st->db, flags, NULL) != SQLITE_OK) {
		error("cannot open state store '%s': %s", dbpath,
		      st->db ? sqlite3_errmsg(st->db) : "out of memory");
		goto fail;
	}
	sqlite3_busy_timeout(st->db, 10000);
	if (exec(st, "PRAGMA foreign_keys = ON") < 0 || migrate(st) < 0)
		goto fail;
	free(dbpath);
	*out = st;
	return 0;
fail:
	free(dbpath);
	store_close(st);
	return SWEEP_ERR;
}

void store_close(struct store *st)
{
	if (!st)
		return;
	sqlite3_close(st->db);
	free(st->dir);
	free(st);
}

const char *store_dir(const struct store *st)
{
	return st->dir;
}

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
	        " roll_chunk, id) VALUES (?, ?, ?, '', '', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
	        "?)") < 0) {
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
	" submitted_at, ntasks, nsettings, nseeds, max_concurrent, pack, roll_chunk"

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

static void read_sweep_row(struct sweep_rec *rec, sqlite3_stmt *stmt)
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
		read_sweep_row(out, stmt);
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
	int rc, ret = 0;

	*out = NULL;
	*n = 0;
	if (store_prepare(st, &stmt, "SELECT " SWEEP_COLUMNS " FROM sweeps ORDER BY id") < 0)
		return SWEEP_ERR;
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		ALLOC_GROW(recs, nr + 1, alloc);
		sweep_rec_init(&recs[nr]);
		read_sweep_row(&recs[nr++], stmt);
	}
	if (rc != SQLITE_DONE) {
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
