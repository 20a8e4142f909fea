/*
 * The state store on SQLite. Every public function that writes does so in
 * one transaction (BEGIN IMMEDIATE ... COMMIT), so an interrupted command
 * leaves either all of its write or none of it. The default rollback
 * journal is kept rather than WAL: state folders often live on network
 * file systems, where WAL's shared memory does not work.
 */
#include "store.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "acct.h"
#include "error.h"
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
    /* 13: why a local task is still PENDING (the lab's GPU rules), or NULL. */
    "ALTER TABLE local_tasks ADD COLUMN reason TEXT;",
    /*
     * 11: where a sweep's task folders are (taskdir.h): 0, flat
     * (tasks/<index>), for every sweep submitted before; 1, grouped.
     */
    "ALTER TABLE sweeps ADD COLUMN task_layout INTEGER NOT NULL DEFAULT 0;",
    /*
     * 12: of an array job kept task by task, the time since which its
     * tasks not kept have rows (acct_cache_entry.since; NULL: unknown).
     */
    "ALTER TABLE acct_arrays ADD COLUMN since INTEGER;",
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
