#include "store.h"

#include <sqlite3.h>

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
	expect = xstrfmt("error: state store '%s' has schema version 99, newer than this sweep "
	                 "knows (3); use a newer sweep",
	                 dir);
	assert_string_equal(captured.buf, expect);
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
}

static void test_store_acct_round_trip(void **state)
{
	char *dir = make_tmpdir();
	struct store *st;
	struct plan plan = small_plan();
	struct acct_set set, back;
	struct acct_rec *r;
	struct acct_cache_entry keep[] = {{77, 1234, true}, {78, 1235, false}}, *kept = NULL;
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
	*r = (struct acct_rec){77,
	                       3,
	                       80,
	                       NULL,
	                       TS_REQUEUED,
	                       0,
	                       0,
	                       0,
	                       ACCT_NO_VALUE,
	                       100,
	                       true,
	                       2,
	                       ACCT_NO_VALUE,
	                       xstrdup("vm"),
	                       1700000000,
	                       1700000001,
	                       1700000002,
	                       true};
	r = acct_set_add(&set);
	*r = (struct acct_rec){77,
	                       3,
	                       80,
	                       NULL,
	                       TS_OUT_OF_MEMORY,
	                       0,
	                       9,
	                       61,
	                       300,
	                       4096,
	                       false,
	                       8,
	                       (uint64_t)5 << 40,
	                       xstrdup("n[1-3],gpu-7"),
	                       1700000100,
	                       1700000101,
	                       1700000162,
	                       true};
	r = acct_set_add(&set);
	*r = (struct acct_rec){78,
	                       ACCT_NO_TASK,
	                       78,
	                       xstrdup("0x21FFFFFFFFFF"),
	                       TS_CANCELLED,
	                       0,
	                       0,
	                       0,
	                       ACCT_NO_VALUE,
	                       0,
	                       false,
	                       0,
	                       ACCT_NO_VALUE,
	                       NULL,
	                       1700000000,
	                       0,
	                       1700000300,
	                       false};
	r = acct_set_add(&set); /* another array job's: not kept */
	*r = (struct acct_rec){79, 0,    79,    NULL, TS_RUNNING,    0,    0,          5,
	                       60, 1,    false, 1,    ACCT_NO_VALUE, NULL, 1700000000, 1700000001,
	                       0,  false};
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

/* A store of schema 2 (before kept records) gains their tables when opened. */
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
	assert_int_equal(sqlite3_exec(db,
	                              "DROP TABLE acct_records; DROP TABLE acct_arrays;"
	                              " PRAGMA user_version = 2",
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_store_round_trip),
	    cmocka_unit_test(test_store_find_latest_and_by_id),
	    cmocka_unit_test(test_store_errors),
	    cmocka_unit_test(test_store_begin_is_atomic),
	    cmocka_unit_test(test_store_interrupted_submission),
	    cmocka_unit_test(test_store_acct_round_trip),
	    cmocka_unit_test(test_store_acct_migration),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
