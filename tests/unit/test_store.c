#include "store.h"

#include <sqlite3.h>
#include <sys/stat.h>

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
	                 "knows (2); use a newer sweep",
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_store_fresh_store_never_reuses_folders),
	    cmocka_unit_test(test_store_round_trip),
	    cmocka_unit_test(test_store_find_latest_and_by_id),
	    cmocka_unit_test(test_store_errors),
	    cmocka_unit_test(test_store_begin_is_atomic),
	    cmocka_unit_test(test_store_interrupted_submission),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
