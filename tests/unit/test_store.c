#include "store.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include "acct.h"
#include "acct_cache.h"
#include "plan.h"

#include "helpers.h"

#include "banned.h"

static char *names[] = {"lr", "note"};
static char *values[] = {"0.1", "it's \"quoted\"\nand \xe2\x9c\x93", "0.01", ""};
static int64_t seeds[] = {3, -1, 42};

static struct plan small_plan(void)
{
	struct plan plan;

	plan_init(&plan);
	plan.params = names;
	plan.nparams = 2;
	plan.values = values;
	plan.nsettings = 2;
	plan.seeds = seeds;
	plan.nseeds = 3;
	plan.ntasks = 6;
	return plan;
}

static int64_t begin(struct store *st, const char *name, const struct plan *plan)
{
	struct sweep_rec rec;
	int64_t id;

	sweep_rec_init(&rec);
	rec.name = xstrdup(name);
	rec.source = xstrdup("/src/sweep.yaml");
	rec.logs = xstrdup("/src/logs");
	rec.backend = xstrdup("slurm");
	rec.max_concurrent = 4;
	assert_int_equal(store_begin_sweep(st, &rec, plan, "name: x\n"), 0);
	assert_int_equal(rec.status, SWEEP_SUBMITTING);
	assert_non_null(strstr(rec.dir, "/sweeps/"));
	assert_int_equal(access(rec.dir, F_OK), 0);
	id = rec.id;
	sweep_rec_release(&rec);
	return id;
}

static void test_store_round_trip(void **state)
{
	char *dir = make_tmpdir();
	struct store *st;
	struct plan plan = small_plan(), back;
	struct sweep_rec rec;
	struct array_rec arr = {.job_id = 77, .offset = 50, .spec = "0-9%4", .attempt = 1};
	struct array_rec *arrs;
	size_t n;
	int64_t id;
	unsigned attempt;
	char *spec;

	(void)state;
	assert_int_equal(store_open(&st, dir, 1), 0);
	id = begin(st, "demo", &plan);
	assert_int_equal(store_add_array(st, id, &arr), 0);
	assert_int_equal(store_finish_sweep(st, id, SWEEP_SUBMITTED, NULL), 0);

	sweep_rec_init(&rec);
	assert_int_equal(store_find_sweep(st, &rec, "demo"), 0);
	assert_int_equal(rec.id, id);
	assert_int_equal(rec.status, SWEEP_SUBMITTED);
	assert_true(rec.submitted_at > 0);
	assert_int_equal(rec.ntasks, 6);
	assert_int_equal(rec.max_concurrent, 4);
	assert_string_equal(rec.logs, "/src/logs");
	assert_non_null(strstr(rec.script, "/demo.sbatch"));
	sweep_rec_release(&rec);

	plan_init(&back);
	assert_int_equal(store_load_plan(st, &back, id), 0);
	assert_int_equal(back.nparams, 2);
	assert_int_equal(back.nsettings, 2);
	assert_int_equal(back.nseeds, 3);
	assert_int_equal(back.ntasks, 6);
	assert_int_equal(back.seeds[1], -1);
	assert_string_equal(plan_value(&back, 0, 1), values[1]);
	assert_string_equal(plan_value(&back, 1, 1), "");
	assert_true(back.varies[0]);
	plan_release(&back);

	assert_int_equal(store_load_arrays(st, &arrs, &n, id), 0);
	assert_int_equal(n, 1);
	assert_int_equal(arrs[0].job_id, 77);
	assert_int_equal(arrs[0].offset, 50);
	assert_string_equal(arrs[0].spec, "0-9%4");
	array_recs_free(arrs, n);
	assert_int_equal(store_last_attempt(st, &attempt, id), 0);
	assert_int_equal(attempt, 1);
	assert_int_equal(store_load_spec(st, &spec, id), 0);
	assert_string_equal(spec, "name: x\n");
	free(spec);
	capture_errors();
	assert_true(store_load_spec(st, &spec, id + 100) < 0);
	assert_null(spec);
	assert_non_null(strstr(captured.buf, "no sweep with id"));
	release_captured();
	store_close(st);
	remove_tree(dir);
	free(dir);
}

static void test_store_find_latest_and_by_id(void **state)
{
	char *dir = make_tmpdir();
	struct store *st;
	struct plan plan = small_plan();
	struct sweep_rec rec, *all;
	size_t n;
	int64_t a, b, c;
	char idtext[32];

	(void)state;
	assert_int_equal(store_open(&st, dir, 1), 0);
	a = begin(st, "alpha", &plan);
	b = begin(st, "beta", &plan);
	c = begin(st, "alpha", &plan);
	sweep_rec_init(&rec);
	assert_int_equal(store_find_sweep(st, &rec, NULL), 0);
	assert_int_equal(rec.id, c);
	sweep_rec_release(&rec);
	assert_int_equal(store_find_sweep(st, &rec, "alpha"), 0);
	assert_int_equal(rec.id, c); /* the most recent of that name */
	sweep_rec_release(&rec);
	snprintf(idtext, sizeof(idtext), "%lld", (long long)a);
	assert_int_equal(store_find_sweep(st, &rec, idtext), 0);
	assert_int_equal(rec.id, a);
	assert_string_equal(rec.name, "alpha");
	sweep_rec_release(&rec);
	assert_int_equal(store_list_sweeps(st, &all, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(all[1].id, b);
	sweep_recs_free(all, n);
	store_close(st);
	remove_tree(dir);
	free(dir);
}

static void test_store_errors(void **state)
{
	char *dir = make_tmpdir();
	char *missing = xstrfmt("%s/nowhere", dir);
	char *expect;
	struct store *st;
	struct sweep_rec rec;

	(void)state;
	capture_errors();
	assert_int_equal(store_open(&st, missing, 0), SWEEP_ERR);
	assert_null(st);
	expect = xstrfmt("error: no state store in '%s': No such file or directory (run 'sweep "
	                 "submit' first, or give --state-dir)",
	                 missing);
	assert_string_equal(captured.buf, expect);
	free(expect);

	strbuf_reset(&captured);
	assert_int_equal(store_open(&st, dir, 0), SWEEP_ERR);
	expect = xstrfmt("error: no state store in '%s' (run 'sweep submit' first, or give "
	                 "--state-dir)",
	                 dir);
	assert_string_equal(captured.buf, expect);
	free(expect);

	assert_int_equal(store_open(&st, dir, 1), 0);
	strbuf_reset(&captured);
	sweep_rec_init(&rec);
	assert_int_equal(store_find_sweep(st, &rec, NULL), SWEEP_ERR);
	expect = xstrfmt("error: no sweeps in '%s' yet (run 'sweep submit FILE')", dir);
	assert_string_equal(captured.buf, expect);
	free(expect);
	strbuf_reset(&captured);
	assert_int_equal(store_find_sweep(st, &rec, "ghost"), SWEEP_ERR);
	expect = xstrfmt("error: no sweep named 'ghost' in '%s' (see 'sweep list')", dir);
	assert_string_equal(captured.buf, expect);
	free(expect);
	strbuf_reset(&captured);
	assert_int_equal(store_finish_sweep(st, 99, SWEEP_FAILED, "x"), SWEEP_ERR);
	expect = xstrfmt("error: state store '%s': no sweep with id 99", dir);
	assert_string_equal(captured.buf, expect);
	free(expect);
	store_close(st);

	/* A store written by a newer sweep is refused, not damaged. */
	{
		sqlite3 *db;
		char *path = xstrfmt("%s/sweep.db", dir);

		assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
		assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 99", NULL, NULL, NULL),
		                 SQLITE_OK);
		sqlite3_close(db);
		free(path);
	}
	strbuf_reset(&captured);
	assert_int_equal(store_open(&st, dir, 0), SWEEP_ERR);
	/* The version this sweep knows grows with every migration: not pinned here. */
	expect = xstrfmt("error: state store '%s' has schema version 99, newer than this sweep "
	                 "knows (",
	                 dir);
	assert_memory_equal(captured.buf, expect, strlen(expect));
	assert_non_null(strstr(captured.buf, "); use a newer sweep"));
	free(expect);
	release_captured();
	remove_tree(dir);
	free(missing);
	free(dir);
}

/* A failure inside store_begin_sweep leaves no trace: the transaction rolls back. */
static void test_store_begin_is_atomic(void **state)
{
	char *dir = make_tmpdir();
	struct store *st;
	struct plan plan = small_plan();
	static char *bad_values[] = {"ok", "\xff\xfe not utf-8", "0.01", "x"};
	struct sweep_rec rec, *all;
	size_t n;

	(void)state;
	assert_int_equal(store_open(&st, dir, 1), 0);
	plan.values = bad_values;
	sweep_rec_init(&rec);
	rec.name = xstrdup("bad");
	rec.source = xstrdup("/s");
	rec.logs = xstrdup("/l");
	capture_errors();
	assert_int_equal(store_begin_sweep(st, &rec, &plan, ""), SWEEP_ERR);
	assert_string_equal(captured.buf,
	                    "error: cannot encode setting 0 (a value is not valid UTF-8)");
	release_captured();
	sweep_rec_release(&rec);
	assert_int_equal(store_list_sweeps(st, &all, &n), 0);
	assert_int_equal(n, 0);
	sweep_recs_free(all, n);
	store_close(st);
	remove_tree(dir);
	free(dir);
}

/* A sweep whose submission never finished stays SUBMITTING, never SUBMITTED. */
static void test_store_interrupted_submission(void **state)
{
	char *dir = make_tmpdir();
	struct store *st;
	struct plan plan = small_plan();
	struct sweep_rec rec;
	int64_t id;

	(void)state;
	assert_int_equal(store_open(&st, dir, 1), 0);
	id = begin(st, "crashy", &plan);
	store_close(st); /* as if the process died here */
	assert_int_equal(store_open(&st, dir, 0), 0);
	sweep_rec_init(&rec);
	assert_int_equal(store_find_sweep(st, &rec, "crashy"), 0);
	assert_int_equal(rec.id, id);
	assert_int_equal(rec.status, SWEEP_SUBMITTING);
	assert_string_equal(sweep_status_name(rec.status), "submitting");
	sweep_rec_release(&rec);
	assert_int_equal(store_finish_sweep(st, id, SWEEP_FAILED, "sbatch said no"), 0);
	assert_int_equal(store_find_sweep(st, &rec, "crashy"), 0);
	assert_int_equal(rec.status, SWEEP_FAILED);
	assert_string_equal(rec.error, "sbatch said no");
	assert_int_equal(rec.submitted_at, 0);
	sweep_rec_release(&rec);
	store_close(st);
	remove_tree(dir);
	free(dir);
}

/* Policy and follow-ups: round trip, claims that succeed once, cancel. */
static void test_store_policy_and_followups(void **state)
{
	char *dir = make_tmpdir();
	struct store *st;
	struct plan plan = small_plan();
	struct sweep_policy p = {0}, back;
	struct followup_rec f = {0}, *fs;
	size_t n;
	int64_t id;
	bool claimed;

	(void)state;
	assert_int_equal(store_open(&st, dir, 1), 0);
	id = begin(st, "pol", &plan);
	/* A sweep without a policy has none of it. */
	assert_int_equal(store_load_policy(st, &back, id), 0);
	assert_int_equal(back.retries, 0);
	assert_null(back.mail);
	p.retries = 2;
	p.retry_on_exit = true;
	p.fail_fast = 3;
	p.mail = "me@lab.org";
	p.command = "echo 'done'";
	p.program = "/opt/sweep/bin/sweep";
	assert_int_equal(store_set_policy(st, id, &p), 0);
	assert_int_equal(store_load_policy(st, &back, id), 0);
	assert_int_equal(back.retries, 2);
	assert_true(back.retry_on_exit);
	assert_int_equal(back.fail_fast, 3);
	assert_string_equal(back.mail, "me@lab.org");
	assert_string_equal(back.command, "echo 'done'");
	assert_string_equal(back.program, "/opt/sweep/bin/sweep");
	assert_int_equal(back.notified_at, 0);
	sweep_policy_release(&back);

	/* One notification, however often it is claimed. */
	assert_int_equal(store_claim_notification(st, &claimed, id), 0);
	assert_true(claimed);
	assert_int_equal(store_claim_notification(st, &claimed, id), 0);
	assert_false(claimed);

	f.seq = 1;
	f.job_id = 501;
	f.after = "500,499";
	f.purpose = "retry round 1 of 2 if tasks failed, else the report";
	assert_int_equal(store_add_followup(st, id, &f), 0);
	f.seq = 2;
	f.job_id = 0;
	f.after = "510";
	f.mail = true;
	assert_int_equal(store_add_followup(st, id, &f), 0);
	assert_int_equal(store_claim_followup(st, &claimed, id, 1), 0);
	assert_true(claimed);
	assert_int_equal(store_claim_followup(st, &claimed, id, 1), 0);
	assert_false(claimed);
	assert_int_equal(store_end_followup(st, id, 1, FOLLOWUP_DONE, "retried 1 task"), 0);
	assert_int_equal(store_cancel_followups(st, id), 0);
	/* A cancelled follow-up cannot be claimed: it never acts. */
	assert_int_equal(store_claim_followup(st, &claimed, id, 2), 0);
	assert_false(claimed);
	assert_int_equal(store_load_followups(st, &fs, &n, id), 0);
	assert_int_equal(n, 2);
	assert_int_equal(fs[0].job_id, 501);
	assert_string_equal(fs[0].after, "500,499");
	assert_int_equal(fs[0].state, FOLLOWUP_DONE);
	assert_string_equal(fs[0].note, "retried 1 task");
	assert_int_equal(fs[1].state, FOLLOWUP_CANCELLED);
	assert_true(fs[1].mail);
	assert_string_equal(followup_state_name(fs[1].state), "cancelled");
	followup_recs_free(fs, n);
	store_close(st);
	remove_tree(dir);
	free(dir);
}

/* A store of schema 3 (before follow-ups) gains their tables when opened. */
/*
 * A store whose schema is not the one sweep wrote is refused with the
 * file named and what to do, never read (a version below 1 indexed the
 * migrations at -1).
 */
static void test_store_refuses_damaged_schema(void **state)
{
	static const struct {
		const char *sql, *what;
	} cases[] = {
	    {"PRAGMA user_version = -1",
	     "has schema version -1, which no sweep writes: the file is damaged or not sweep's; "
	     "move it away (sweep then starts a new store) or restore it from a backup"},
	    {"PRAGMA user_version = 0",
	     "has schema version 0, which no sweep writes: the file is damaged or not sweep's; "
	     "move it away (sweep then starts a new store) or restore it from a backup"},
	    {"DROP TABLE local_tasks", ": table 'local_tasks' is missing: the file is damaged or "
	                               "was changed by hand; restore it from a backup, or move it "
	                               "away (sweep then starts a new store)"},
	    {"ALTER TABLE local_tasks DROP COLUMN gpus",
	     ": column 'local_tasks.gpus' is missing: the file is damaged or was changed by hand; "
	     "restore it from a backup, or move it away (sweep then starts a new store)"},
	    {"ALTER TABLE sweeps RENAME COLUMN ntasks TO old; ALTER TABLE sweeps ADD ntasks TEXT",
	     ": column 'sweeps.ntasks' is TEXT, sweep expects INTEGER: the file is damaged or was "
	     "changed by hand; restore it from a backup, or move it away (sweep then starts a new "
	     "store)"},
	    {"ALTER TABLE programs DROP COLUMN submit_path; ALTER TABLE programs ADD submit_path",
	     ": column 'programs.submit_path' is untyped, sweep expects TEXT: the file is damaged "
	     "or was changed by hand; restore it from a backup, or move it away (sweep then "
	     "starts a new store)"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *dir = make_tmpdir(), *path = xstrfmt("%s/sweep.db", dir), *expect;
		struct store *st;
		sqlite3 *db;

		assert_int_equal(store_open(&st, dir, 1), 0);
		store_close(st);
		assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
		assert_int_equal(sqlite3_exec(db, cases[i].sql, NULL, NULL, NULL), SQLITE_OK);
		sqlite3_close(db);
		capture_errors();
		assert_int_equal(store_open(&st, dir, 0), SWEEP_ERR);
		assert_null(st);
		expect = xstrfmt("error: state store '%s/sweep.db'%s%s", dir,
		                 cases[i].what[0] == ':' ? "" : " ", cases[i].what);
		assert_string_equal(captured.buf, expect);
		release_captured();
		free(expect);
		free(path);
		remove_tree(dir);
		free(dir);
	}
}

/*
 * A sweep's task folder layout is kept: a new sweep's as given; a sweep of
 * a store from before layouts (schema 10) reads as flat; a value this
 * sweep does not know fails find and list, naming the sweep.
 */
static void test_store_task_layout(void **state)
{
	char *dir = make_tmpdir(), *path = xstrfmt("%s/sweep.db", dir), *want;
	struct store *st;
	struct plan plan = small_plan();
	struct sweep_rec rec, *recs;
	size_t n;
	sqlite3 *db;
	int64_t old, grouped;

	(void)state;
	assert_int_equal(store_open(&st, dir, 1), 0);
	old = begin(st, "old", &plan);
	store_close(st);
	/* The store as sweep left it before layouts: schema 10, no column. */
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db,
	                              "ALTER TABLE sweeps DROP COLUMN task_layout;"
	                              " ALTER TABLE acct_arrays DROP COLUMN since;"
	                              " PRAGMA user_version = 10",
	                              NULL, NULL, NULL),
	                 SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(store_open(&st, dir, 0), 0);
	sweep_rec_init(&rec);
	rec.name = xstrdup("new");
	rec.source = xstrdup("/src/sweep.yaml");
	rec.logs = xstrdup("/src/logs");
	rec.task_layout = TASKDIR_GROUPED;
	assert_int_equal(store_begin_sweep(st, &rec, &plan, "name: x\n"), 0);
	grouped = rec.id;
	sweep_rec_release(&rec);
	assert_int_equal(store_find_sweep(st, &rec, "old"), 0);
	assert_int_equal(rec.id, old);
	assert_int_equal(rec.task_layout, TASKDIR_FLAT);
	sweep_rec_release(&rec);
	assert_int_equal(store_find_sweep(st, &rec, "new"), 0);
	assert_int_equal(rec.id, grouped);
	assert_int_equal(rec.task_layout, TASKDIR_GROUPED);
	sweep_rec_release(&rec);
	assert_int_equal(store_list_sweeps(st, &recs, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(recs[0].task_layout, TASKDIR_FLAT);
	assert_int_equal(recs[1].task_layout, TASKDIR_GROUPED);
	sweep_recs_free(recs, n);
	store_close(st);

	/* A newer sweep's layout. */
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(
	    sqlite3_exec(db, "UPDATE sweeps SET task_layout = 9 WHERE name = 'new'", NULL, NULL,
	                 NULL),
	    SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(store_open(&st, dir, 0), 0);
	want = xstrfmt("error: sweep %lld has task folder layout 9, which this sweep does not "
	               "know: a newer sweep submitted it; read it with that version",
	               (long long)grouped);
	capture_errors();
	sweep_rec_init(&rec);
	assert_int_equal(store_find_sweep(st, &rec, "new"), SWEEP_ERR);
	sweep_rec_release(&rec);
	assert_string_equal(captured.buf, want);
	strbuf_reset(&captured);
	recs = (struct sweep_rec *)1;
	assert_int_equal(store_list_sweeps(st, &recs, &n), SWEEP_ERR);
	assert_null(recs);
	assert_int_equal(n, 0);
	assert_string_equal(captured.buf, want);
	release_captured();
	/* The old sweep still reads. */
	assert_int_equal(store_find_sweep(st, &rec, "old"), 0);
	sweep_rec_release(&rec);
	store_close(st);
	free(want);
	free(path);
	remove_tree(dir);
	free(dir);
}

static void test_store_migration_to_followups(void **state)
{
	char *dir = make_tmpdir(), *path;
	struct store *st;
	struct plan plan = small_plan();
	struct sweep_policy back;
	struct followup_rec *fs;
	size_t n;
	sqlite3 *db;
	int64_t id;

	(void)state;
	assert_int_equal(store_open(&st, dir, 1), 0);
	id = begin(st, "old", &plan);
	store_close(st);
	path = xstrfmt("%s/sweep.db", dir);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(
	    sqlite3_exec(db,
	                 "DROP TABLE acct_records; DROP TABLE acct_arrays; DROP TABLE causes;"
	                 " DROP TABLE programs;"
	                 " DROP TABLE reused; DROP TABLE followups;"
	                 " DROP TABLE policies; ALTER TABLE sweeps DROP COLUMN pack;"
	                 " ALTER TABLE sweeps DROP COLUMN roll_chunk;"
	                 " ALTER TABLE arrays DROP COLUMN pack;"
	                 " ALTER TABLE arrays DROP COLUMN indices;"
	                 " ALTER TABLE local_tasks DROP COLUMN reason;"
	                 " ALTER TABLE sweeps DROP COLUMN task_layout;"
	                 " PRAGMA user_version = 3",
	                 NULL, NULL, NULL),
	    SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(store_open(&st, dir, 0), 0);
	assert_int_equal(store_load_policy(st, &back, id), 0);
	assert_int_equal(back.retries, 0);
	assert_int_equal(store_load_followups(st, &fs, &n, id), 0);
	assert_int_equal(n, 0);
	store_close(st);
	free(path);
	remove_tree(dir);
	free(dir);
}

/* Every field of two records, one by one: kept records are what the query returned. */
static void assert_rec_equal(const struct acct_rec *a, const struct acct_rec *b)
{
	assert_int_equal(a->array_job_id, b->array_job_id);
	assert_int_equal(a->array_task_id, b->array_task_id);
	assert_int_equal(a->job_id, b->job_id);
	if (a->pending_tasks || b->pending_tasks)
		assert_string_equal(a->pending_tasks, b->pending_tasks);
	assert_int_equal(a->state, b->state);
	assert_int_equal(a->exit_code, b->exit_code);
	assert_int_equal(a->signal, b->signal);
	assert_true(a->elapsed_s == b->elapsed_s);
	assert_true(a->timelimit_s == b->timelimit_s);
	assert_true(a->req_mem_mb == b->req_mem_mb);
	assert_int_equal(a->req_mem_per_cpu, b->req_mem_per_cpu);
	assert_int_equal(a->ncpus, b->ncpus);
	assert_true(a->maxrss_bytes == b->maxrss_bytes);
	if (a->nodes || b->nodes)
		assert_string_equal(a->nodes, b->nodes);
	assert_int_equal(a->submit_time, b->submit_time);
	assert_int_equal(a->start_time, b->start_time);
	assert_int_equal(a->end_time, b->end_time);
	assert_int_equal(a->steps_final, b->steps_final);
	assert_true(a->total_cpu_us == b->total_cpu_us);
	assert_true(a->gpu_util == b->gpu_util);
	assert_true(a->gpu_mem_bytes == b->gpu_mem_bytes);
	assert_true(a->node_mem_bytes == b->node_mem_bytes);
	assert_int_equal(a->tasks_per_node, b->tasks_per_node);
	assert_int_equal(a->nnodes, b->nnodes);
	assert_int_equal(a->step_index, b->step_index);
}

static void test_store_acct_round_trip(void **state)
{
	char *dir = make_tmpdir();
	struct store *st;
	struct plan plan = small_plan();
	struct acct_set set, back;
	struct acct_rec *r;
	struct acct_cache_entry keep[] = {{77, 1234, true, NULL, 0, 0}, {78, 1235, false, NULL, 0, 0}},
	                        *kept = NULL;
	uint32_t drop = 77;
	size_t n = 0;
	int64_t id, other;

	(void)state;
	assert_int_equal(store_open(&st, dir, 1), 0);
	id = begin(st, "demo", &plan);
	other = begin(st, "other", &plan);
	acct_set_init(&set);
	/* Every kind of value: a requeued run, a pending bitmap, values Slurm leaves unset. */
	r = acct_set_add(&set);
	*r = (struct acct_rec){.array_job_id = 77,
	                       .array_task_id = 3,
	                       .job_id = 80,
	                       .pending_tasks = NULL,
	                       .state = TS_REQUEUED,
	                       .exit_code = 0,
	                       .signal = 0,
	                       .elapsed_s = 0,
	                       .timelimit_s = ACCT_NO_VALUE,
	                       .req_mem_mb = 100,
	                       .req_mem_per_cpu = true,
	                       .ncpus = 2,
	                       .maxrss_bytes = ACCT_NO_VALUE,
	                       .nodes = xstrdup("vm"),
	                       .submit_time = 1700000000,
	                       .start_time = 1700000001,
	                       .end_time = 1700000002,
	                       .steps_final = true,
	                       .total_cpu_us = ACCT_NO_VALUE,
	                       .gpu_util = ACCT_NO_VALUE,
	                       .gpu_mem_bytes = ACCT_NO_VALUE,
	                       .node_mem_bytes = ACCT_NO_VALUE,
	                       .tasks_per_node = 1,
	                       .step_index = ACCT_NO_STEP};
	r = acct_set_add(&set);
	*r = (struct acct_rec){.array_job_id = 77,
	                       .array_task_id = 3,
	                       .job_id = 80,
	                       .pending_tasks = NULL,
	                       .state = TS_OUT_OF_MEMORY,
	                       .exit_code = 0,
	                       .signal = 9,
	                       .elapsed_s = 61,
	                       .timelimit_s = 300,
	                       .req_mem_mb = 4096,
	                       .req_mem_per_cpu = false,
	                       .ncpus = 8,
	                       .maxrss_bytes = (uint64_t)5 << 40,
	                       .nodes = xstrdup("n[1-3],gpu-7"),
	                       .submit_time = 1700000100,
	                       .start_time = 1700000101,
	                       .end_time = 1700000162,
	                       .steps_final = true,
	                       .total_cpu_us = 61234567,
	                       .gpu_util = 87,
	                       .gpu_mem_bytes = (uint64_t)3 << 30,
	                       .node_mem_bytes = (uint64_t)10 << 40,
	                       .tasks_per_node = 2,
	                       .nnodes = 3,
	                       .step_index = 12};
	r = acct_set_add(&set);
	*r = (struct acct_rec){.array_job_id = 78,
	                       .array_task_id = ACCT_NO_TASK,
	                       .job_id = 78,
	                       .pending_tasks = xstrdup("0x21FFFFFFFFFF"),
	                       .state = TS_CANCELLED,
	                       .exit_code = 0,
	                       .signal = 0,
	                       .elapsed_s = 0,
	                       .timelimit_s = ACCT_NO_VALUE,
	                       .req_mem_mb = 0,
	                       .req_mem_per_cpu = false,
	                       .ncpus = 0,
	                       .maxrss_bytes = ACCT_NO_VALUE,
	                       .nodes = NULL,
	                       .submit_time = 1700000000,
	                       .start_time = 0,
	                       .end_time = 1700000300,
	                       .steps_final = false,
	                       .total_cpu_us = ACCT_NO_VALUE,
	                       .gpu_util = ACCT_NO_VALUE,
	                       .gpu_mem_bytes = ACCT_NO_VALUE,
	                       .node_mem_bytes = ACCT_NO_VALUE,
	                       .tasks_per_node = 1,
	                       .step_index = ACCT_NO_STEP};
	r = acct_set_add(&set); /* another array job's: not kept */
	*r = (struct acct_rec){.array_job_id = 79,
	                       .array_task_id = 0,
	                       .job_id = 79,
	                       .pending_tasks = NULL,
	                       .state = TS_RUNNING,
	                       .exit_code = 0,
	                       .signal = 0,
	                       .elapsed_s = 5,
	                       .timelimit_s = 60,
	                       .req_mem_mb = 1,
	                       .req_mem_per_cpu = false,
	                       .ncpus = 1,
	                       .maxrss_bytes = ACCT_NO_VALUE,
	                       .nodes = NULL,
	                       .submit_time = 1700000000,
	                       .start_time = 1700000001,
	                       .end_time = 0,
	                       .steps_final = false,
	                       .total_cpu_us = ACCT_NO_VALUE,
	                       .gpu_util = ACCT_NO_VALUE,
	                       .gpu_mem_bytes = ACCT_NO_VALUE,
	                       .node_mem_bytes = ACCT_NO_VALUE,
	                       .tasks_per_node = 1,
	                       .step_index = ACCT_NO_STEP};
	assert_int_equal(store_acct_update(st, id, keep, 2, &set, NULL, 0), 0);

	acct_set_init(&back);
	assert_int_equal(store_acct_load(st, &kept, &n, &back, id), 0);
	assert_int_equal(n, 2);
	assert_int_equal(kept[0].job_id, 77);
	assert_int_equal(kept[0].submitted_at, 1234);
	assert_true(kept[0].with_steps);
	assert_int_equal(kept[1].job_id, 78);
	assert_false(kept[1].with_steps);
	assert_int_equal(back.n, 3);
	for (size_t i = 0; i < 3; i++)
		assert_rec_equal(&back.recs[i], &set.recs[i]);
	acct_set_release(&back);
	free(kept);

	/* Another sweep keeps nothing; keeping again replaces; dropping forgets. */
	acct_set_init(&back);
	assert_int_equal(store_acct_load(st, &kept, &n, &back, other), 0);
	assert_int_equal(n, 0);
	assert_int_equal(back.n, 0);
	set.recs[1].maxrss_bytes = 42;
	assert_int_equal(store_acct_update(st, id, keep, 1, &set, NULL, 0), 0);
	assert_int_equal(store_acct_update(st, id, NULL, 0, &set, &drop, 1), 0);
	assert_int_equal(store_acct_update(st, id, keep, 1, &set, NULL, 0), 0);
	assert_int_equal(store_acct_load(st, &kept, &n, &back, id), 0);
	assert_int_equal(n, 2);
	assert_int_equal(back.n, 3);
	assert_int_equal(back.recs[0].array_job_id, 77);
	assert_int_equal(back.recs[1].maxrss_bytes, 42);
	assert_int_equal(back.recs[2].array_job_id, 78);
	acct_set_release(&back);
	free(kept);
	assert_int_equal(store_acct_update(st, id, NULL, 0, &set, &drop, 1), 0);
	assert_int_equal(store_acct_load(st, &kept, &n, &back, id), 0);
	assert_int_equal(n, 1);
	assert_int_equal(back.n, 1);
	assert_int_equal(back.recs[0].array_job_id, 78);
	acct_set_release(&back);
	free(kept);

	acct_set_release(&set);
	store_close(st);
	remove_tree(dir);
	free(dir);
}

/* One run of task a of array job 90, completed. */
static void add_run(struct acct_set *set, uint32_t a)
{
	struct acct_rec *r = acct_set_add(set);

	r->array_job_id = 90;
	r->array_task_id = a;
	r->job_id = 90 + a;
	r->state = TS_COMPLETED;
	r->submit_time = 1700000000;
	r->start_time = 1700000001;
	r->end_time = 1700000002 + a;
	r->maxrss_bytes = 1000 + a;
	r->steps_final = true;
	r->step_index = ACCT_NO_STEP;
}

/* Tasks of a running array job kept one by one: only theirs are kept, the list comes back. */
static void test_store_acct_tasks(void **state)
{
	char *dir = make_tmpdir();
	struct store *st;
	struct plan plan = small_plan();
	struct acct_set set, back;
	uint32_t tasks[] = {0, 2, 3, 7};
	struct acct_cache_entry keep = {90, 99, true, tasks, 4, 1700000500}, *kept = NULL;
	size_t n = 0;
	int64_t id;

	(void)state;
	assert_int_equal(store_open(&st, dir, 1), 0);
	id = begin(st, "demo", &plan);
	acct_set_init(&set);
	for (uint32_t a = 0; a < 8; a++)
		add_run(&set, a);
	assert_int_equal(store_acct_update(st, id, &keep, 1, &set, NULL, 0), 0);
	acct_set_init(&back);
	assert_int_equal(store_acct_load(st, &kept, &n, &back, id), 0);
	assert_int_equal(n, 1);
	assert_int_equal(kept[0].submitted_at, 99);
	assert_int_equal(kept[0].ntasks, 4);
	for (size_t t = 0; t < 4; t++)
		assert_int_equal(kept[0].tasks[t], tasks[t]);
	/* The time since which the tasks not kept have rows comes back with them. */
	assert_int_equal(kept[0].since, 1700000500);
	assert_int_equal(back.n, 4);
	for (size_t i = 0; i < 4; i++)
		assert_rec_equal(&back.recs[i], &set.recs[tasks[i]]);
	acct_set_release(&back);
	acct_cache_entries_free(kept, n);

	/*
	 * Task 5 kept later: its rows are added, and the rows kept before are
	 * not written again (task 0's changed copy in set stays out).
	 */
	{
		uint32_t more[] = {0, 2, 3, 5, 7};
		uint64_t rss0 = set.recs[0].maxrss_bytes;

		keep.tasks = more;
		keep.ntasks = 5;
		keep.since = 1700000900;
		set.recs[0].maxrss_bytes = rss0 + 1;
		assert_int_equal(store_acct_update(st, id, &keep, 1, &set, NULL, 0), 0);
		set.recs[0].maxrss_bytes = rss0;
		acct_set_init(&back);
		assert_int_equal(store_acct_load(st, &kept, &n, &back, id), 0);
		assert_int_equal(n, 1);
		assert_int_equal(kept[0].ntasks, 5);
		assert_int_equal(kept[0].since, 1700000900);
		assert_int_equal(back.n, 5);
		for (size_t i = 0; i < 4; i++)
			assert_rec_equal(&back.recs[i], &set.recs[tasks[i]]);
		assert_rec_equal(&back.recs[4], &set.recs[5]);
		acct_set_release(&back);
		acct_cache_entries_free(kept, n);
	}

	/*
	 * A command that read the store before task 5 was kept keeps task 1:
	 * its list lacks 5, so it replaces what is kept (task 5's row is not
	 * left behind to be kept twice later).
	 */
	{
		uint32_t stale[] = {0, 1, 2, 3, 7};

		keep.tasks = stale;
		assert_int_equal(store_acct_update(st, id, &keep, 1, &set, NULL, 0), 0);
		acct_set_init(&back);
		assert_int_equal(store_acct_load(st, &kept, &n, &back, id), 0);
		assert_int_equal(kept[0].ntasks, 5);
		assert_false(acct_cache_task_kept(&kept[0], 5));
		assert_int_equal(back.n, 5);
		for (size_t i = 0; i < 5; i++)
			assert_rec_equal(&back.recs[i], &set.recs[stale[i]]);
		acct_set_release(&back);
		acct_cache_entries_free(kept, n);
	}

	/* The whole array job kept later replaces the list. */
	keep.tasks = NULL;
	keep.ntasks = 0;
	assert_int_equal(store_acct_update(st, id, &keep, 1, &set, NULL, 0), 0);
	acct_set_init(&back);
	assert_int_equal(store_acct_load(st, &kept, &n, &back, id), 0);
	assert_int_equal(n, 1);
	assert_null(kept[0].tasks);
	assert_int_equal(kept[0].since, 0); /* kept whole: nothing is read since */
	assert_int_equal(back.n, 8);
	acct_set_release(&back);
	acct_cache_entries_free(kept, n);

	acct_set_release(&set);
	store_close(st);
	remove_tree(dir);
	free(dir);
}

/* A store of schema 5 (before kept records) gains their tables when opened. */
static void test_store_acct_migration(void **state)
{
	char *dir = make_tmpdir(), *path;
	struct store *st = NULL;
	struct acct_cache_entry *kept = NULL;
	struct acct_set back;
	size_t n = 5;
	sqlite3 *db;

	(void)state;
	assert_int_equal(store_open(&st, dir, 1), 0);
	store_close(st);
	path = xstrfmt("%s/sweep.db", dir);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(
	    sqlite3_exec(db,
	                 "DROP TABLE acct_records; DROP TABLE acct_arrays; DROP TABLE causes;"
	                 " DROP TABLE programs;"
	                 " ALTER TABLE local_tasks DROP COLUMN reason;"
	                 " ALTER TABLE sweeps DROP COLUMN task_layout;"
	                 " PRAGMA user_version = 5",
	                 NULL, NULL, NULL),
	    SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(store_open(&st, dir, 0), 0);
	acct_set_init(&back);
	assert_int_equal(store_acct_load(st, &kept, &n, &back, 1), 0);
	assert_int_equal(n, 0);
	store_close(st);
	free(path);
	remove_tree(dir);
	free(dir);
}

/*
 * After the store is deleted, a new sweep must not get the id, and so the
 * folder and the tasks' checkpoints, of an old one (issue 16.5).
 */
static void test_store_fresh_store_never_reuses_folders(void **state)
{
	char *dir = make_tmpdir();
	char *db = xstrfmt("%s/sweep.db", dir), *old = xstrfmt("%s/sweeps/7", dir);
	struct store *st;
	struct plan plan = small_plan();

	(void)state;
	assert_int_equal(store_open(&st, dir, 1), 0);
	assert_int_equal(begin(st, "a", &plan), 1);
	assert_int_equal(begin(st, "b", &plan), 2);
	store_close(st);
	assert_int_equal(unlink(db), 0);

	assert_int_equal(store_open(&st, dir, 1), 0);
	assert_int_equal(begin(st, "c", &plan), 3);
	store_close(st);

	/* Folders count, whatever made them. */
	assert_int_equal(unlink(db), 0);
	assert_int_equal(mkdir(old, 0777), 0);
	assert_int_equal(store_open(&st, dir, 1), 0);
	assert_int_equal(begin(st, "d", &plan), 8);
	store_close(st);
	remove_tree(dir);
	free(db);
	free(old);
	free(dir);
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_mode & 07777;
}

/* Issue 20.2: the store is owner-only whatever the umask of its user. */
static void test_store_private_whatever_the_umask(void **state)
{
	static const mode_t umasks[] = {0, 002};
	char *dir = make_tmpdir();
	struct plan plan = small_plan();

	(void)state;
	for (size_t i = 0; i < sizeof(umasks) / sizeof(umasks[0]); i++) {
		char *state_dir = xstrfmt("%s/%zu/.sweep", dir, i);
		char *db = xstrfmt("%s/sweep.db", state_dir);
		char *sweeps = xstrfmt("%s/sweeps", state_dir), *one = xstrfmt("%s/1", sweeps);
		mode_t old = umask(umasks[i]);
		struct store *st;

		assert_int_equal(store_open(&st, state_dir, 1), 0);
		assert_int_equal(begin(st, "a", &plan), 1);
		store_close(st);
		umask(old);
		assert_int_equal(mode_of(state_dir), 0700);
		assert_int_equal(mode_of(db), 0600);
		assert_int_equal(mode_of(sweeps), 0700);
		assert_int_equal(mode_of(one), 0700);
		free(one);
		free(sweeps);
		free(db);
		free(state_dir);
	}
	remove_tree(dir);
	free(dir);
}

static void test_store_refuses_a_folder_others_may_write(void **state)
{
	char *dir = make_tmpdir(), *want;
	char *sweeps = xstrfmt("%s/sweeps", dir);
	struct store *st;
	struct plan plan = small_plan();
	struct sweep_rec rec;

	(void)state;
	assert_int_equal(store_open(&st, dir, 1), 0);
	store_close(st);
	chmod(dir, 0775);
	capture_errors();
	for (int create = 0; create <= 1; create++) {
		strbuf_reset(&captured);
		assert_int_equal(store_open(&st, dir, create), SWEEP_ERR);
		assert_null(st);
		want =
		    xstrfmt("error: refusing the state folder '%s': it is writable by its group, "
		            "who could change what sweep reads and runs; make it yours alone "
		            "with: chmod go-w '%s'",
		            dir, dir);
		assert_string_equal(captured.buf, want);
		free(want);
	}

	/* A link where the store would be made leads nowhere: it is not followed. */
	chmod(dir, 0700);
	strbuf_reset(&captured);
	{
		char *db = xstrfmt("%s/sweep.db", dir), *other = xstrfmt("%s/elsewhere.db", dir);

		assert_int_equal(rename(db, other), 0);
		assert_int_equal(symlink("nowhere.db", db), 0);
		assert_int_equal(store_open(&st, dir, 1), SWEEP_ERR);
		want = xstrfmt("error: cannot create the state store '%s': Too many levels of "
		               "symbolic links",
		               db);
		assert_string_equal(captured.buf, want);
		free(want);
		/* A link to a store that is there is the user's choice: it is used. */
		assert_int_equal(unlink(db), 0);
		assert_int_equal(symlink("elsewhere.db", db), 0);
		assert_int_equal(store_open(&st, dir, 1), 0);
		store_close(st);
		free(other);
		free(db);
	}

	/* The folder of the sweeps, too, before a new one is made in it. */
	chmod(dir, 0700);
	assert_int_equal(mkdir(sweeps, 0700), 0);
	chmod(sweeps, 0777);
	assert_int_equal(store_open(&st, dir, 0), 0);
	strbuf_reset(&captured);
	sweep_rec_init(&rec);
	rec.name = xstrdup("a");
	rec.source = xstrdup("/src/sweep.yaml");
	rec.logs = xstrdup("/src/logs");
	assert_int_equal(store_begin_sweep(st, &rec, &plan, ""), SWEEP_ERR);
	want = xstrfmt("error: refusing the store folder '%s': it is writable by group and "
	               "others, who could change what sweep reads and runs; make it yours alone "
	               "with: chmod go-w '%s'",
	               sweeps, sweeps);
	assert_string_equal(captured.buf, want);
	free(want);
	sweep_rec_release(&rec);
	store_close(st);
	release_captured();
	remove_tree(dir);
	free(sweeps);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_store_fresh_store_never_reuses_folders),
	    cmocka_unit_test(test_store_round_trip),
	    cmocka_unit_test(test_store_private_whatever_the_umask),
	    cmocka_unit_test(test_store_refuses_a_folder_others_may_write),
	    cmocka_unit_test(test_store_find_latest_and_by_id),
	    cmocka_unit_test(test_store_errors),
	    cmocka_unit_test(test_store_refuses_damaged_schema),
	    cmocka_unit_test(test_store_begin_is_atomic),
	    cmocka_unit_test(test_store_interrupted_submission),
	    cmocka_unit_test(test_store_acct_round_trip),
	    cmocka_unit_test(test_store_acct_migration),
	    cmocka_unit_test(test_store_acct_tasks),
	    cmocka_unit_test(test_store_policy_and_followups),
	    cmocka_unit_test(test_store_migration_to_followups),
	    cmocka_unit_test(test_store_task_layout),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
