#include "store.h"

#include <sqlite3.h>

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
	assert_int_equal(sqlite3_exec(db,
	                              "DROP TABLE reused; DROP TABLE followups;"
	                              " DROP TABLE policies; ALTER TABLE sweeps DROP COLUMN pack;"
	                              " ALTER TABLE sweeps DROP COLUMN roll_chunk;"
	                              " ALTER TABLE arrays DROP COLUMN pack;"
	                              " ALTER TABLE arrays DROP COLUMN indices;"
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_store_round_trip),
	    cmocka_unit_test(test_store_find_latest_and_by_id),
	    cmocka_unit_test(test_store_errors),
	    cmocka_unit_test(test_store_begin_is_atomic),
	    cmocka_unit_test(test_store_interrupted_submission),
	    cmocka_unit_test(test_store_policy_and_followups),
	    cmocka_unit_test(test_store_migration_to_followups),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
