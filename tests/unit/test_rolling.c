#include "rolling.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>

#include "backend.h"
#include "followup.h"
#include "quota.h"
#include "store.h"

#include "helpers.h"

#include "banned.h"

/* The next index to submit: past every chunk of the first submission, however recorded. */
static void test_rolling_next_index(void **state)
{
	struct sweep_rec rec;
	struct array_rec arrays[4];

	(void)state;
	sweep_rec_init(&rec);
	memset(arrays, 0, sizeof(arrays));
	rec.ntasks = 1000;
	assert_int_equal(rolling_next_index(&rec, arrays, 0), 0);
	arrays[0] = (struct array_rec){.offset = 0, .spec = "0-99%10", .attempt = 1};
	arrays[1] = (struct array_rec){.offset = 100, .spec = "0-99%10", .attempt = 1};
	assert_int_equal(rolling_next_index(&rec, arrays, 2), 200);
	/* A retry round's array (attempt 2) runs tasks again: it submits nothing new. */
	arrays[2] = (struct array_rec){.offset = 900, .spec = "0-99", .attempt = 2};
	/* The order of the records does not matter. */
	arrays[3] = (struct array_rec){.offset = 200, .spec = "0-49", .attempt = 1};
	assert_int_equal(rolling_next_index(&rec, arrays, 4), 250);
}

/* Packed: each array task runs pack tasks; the last chunk ends at the sweep's end. */
static void test_rolling_next_index_packed(void **state)
{
	struct sweep_rec rec;
	struct array_rec arrays[2];

	(void)state;
	sweep_rec_init(&rec);
	memset(arrays, 0, sizeof(arrays));
	rec.ntasks = 250;
	rec.pack = 4;
	arrays[0] = (struct array_rec){.offset = 0, .spec = "0-49", .attempt = 1};
	assert_int_equal(rolling_next_index(&rec, arrays, 1), 200);
	arrays[1] = (struct array_rec){.offset = 200, .spec = "0-49", .attempt = 1};
	assert_int_equal(rolling_next_index(&rec, arrays, 2), 250);
}

/* ---- rolling_continue_on, with a fake side ------------------------------ */

/* What the fake side saw. */
static struct {
	char *account, *qos;
	const char *dir;    /* the sweep's folder */
	unsigned calls;     /* submits */
	unsigned refuse_at; /* the submit that sbatch refuses (1-based), 0 none */
	char arrays[4][64], deps[4][64];
	uint32_t offsets[4];
	bool locked[4], intent[4], reserve[4], blocked[4];
} fake;

static int fake_limits(struct quota *out, const char *account, const char *qos)
{
	(void)out; /* no limits: everything fits */
	fake.account = account ? xstrdup(account) : NULL;
	fake.qos = qos ? xstrdup(qos) : NULL;
	return 0;
}

static bool exists_in(const char *dir, const char *name)
{
	char *path = xstrfmt("%s/%s", dir, name);
	bool ret = access(path, F_OK) == 0;

	free(path);
	return ret;
}

/* Held by someone else: another descriptor cannot take the submission lock. */
static bool lock_held(const char *dir)
{
	char *path = xstrfmt("%s/submit.lock", dir);
	int fd = open(path, O_RDWR | O_CLOEXEC);
	bool held = fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK;

	if (fd >= 0)
		close(fd);
	free(path);
	return held;
}

static int fake_submit(uint32_t *job_id, const struct backend_submit *req)
{
	unsigned i = fake.calls++;
	sigset_t now;

	if (fake.refuse_at == i + 1)
		return error("sbatch: QOSMaxSubmitJobPerUserLimit");
	sigprocmask(SIG_BLOCK, NULL, &now);
	snprintf(fake.arrays[i], sizeof(fake.arrays[i]), "%s", req->array);
	snprintf(fake.deps[i], sizeof(fake.deps[i]), "%s",
	         req->extra_args && req->extra_args[0] ? req->extra_args[0] : "");
	fake.offsets[i] = req->offset;
	fake.locked[i] = req->hold_fd > 0 && lock_held(fake.dir);
	fake.intent[i] = exists_in(fake.dir, "submit.intent");
	fake.reserve[i] = exists_in(fake.dir, "space.reserve");
	fake.blocked[i] = sigismember(&now, SIGTERM) && sigismember(&now, SIGINT);
	*job_id = 100 + i;
	return 0;
}

static int fake_cancel(struct store *st, const struct sweep_rec *rec,
                       const struct array_rec *arrays, size_t narrays)
{
	(void)st;
	(void)rec;
	(void)arrays;
	(void)narrays;
	return 0;
}

static const struct backend_ops fake_ops = {
    .name = "local", .submit = fake_submit, .cancel = fake_cancel, .limits = fake_limits};

/*
 * A rolling sweep of 10 tasks in chunks of 4, throttled to 2, whose first
 * chunk (job 40) is in: the store, its folder and its script.
 */
static void rolling_sweep(struct store **st, struct sweep_rec *rec, const char *dir)
{
	static char *names[] = {"x"};
	static char *values[] = {"1"};
	static int64_t seeds[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
	struct array_rec first = {.job_id = 40, .offset = 0, .spec = "0-3%2", .attempt = 1};
	struct plan plan;
	FILE *f;

	plan_init(&plan);
	plan.params = names;
	plan.nparams = 1;
	plan.values = values;
	plan.nsettings = 1;
	plan.seeds = seeds;
	plan.nseeds = 10;
	plan.ntasks = 10;
	assert_int_equal(store_open(st, dir, 1), 0);
	sweep_rec_init(rec);
	rec->name = xstrdup("roll");
	rec->source = xstrdup("/src/roll.yaml");
	rec->logs = xstrdup("/src/logs");
	rec->backend = xstrdup("local");
	rec->max_concurrent = 2;
	rec->roll_chunk = 4;
	assert_int_equal(store_begin_sweep(*st, rec, &plan, "name: roll\n"), 0);
	assert_int_equal(store_add_array(*st, rec->id, &first), 0);
	assert_int_equal(store_finish_sweep(*st, rec->id, SWEEP_SUBMITTED, NULL), 0);
	rec->status = SWEEP_SUBMITTED;
	f = fopen(rec->script, "w");
	assert_non_null(f);
	fputs("#!/bin/bash\n#SBATCH --account=\"my lab\"\n#SBATCH -q high\n"
	      "#SBATCH --account=lab2 # the last one counts\n\necho \"#SBATCH --qos=no\"\n",
	      f);
	assert_int_equal(fclose(f), 0);
	memset(&fake, 0, sizeof(fake));
	fake.dir = rec->dir;
}

static void fake_release(void)
{
	free(fake.account);
	free(fake.qos);
	memset(&fake, 0, sizeof(fake));
}

/*
 * The next chunks go through the submission protocol: under the lock, with
 * the intent file written, room kept on the disk and signals blocked; each
 * recorded at once, chained after the one before; the limits read for the
 * script's account and QOS (sbatch's parsing, not a text search).
 */
static void test_rolling_continue_protocol(void **state)
{
	char *dir = make_tmpdir();
	struct store *st;
	struct sweep_rec rec;
	struct sweep_policy p = {0};
	struct array_rec *arrays = NULL;
	size_t n = 0;
	struct strbuf note = STRBUF_INIT;

	(void)state;
	rolling_sweep(&st, &rec, dir);
	assert_int_equal(store_load_arrays(st, &arrays, &n, rec.id), 0);
	assert_int_equal(rolling_continue_on(&fake_ops, &note, st, &rec, &p, arrays, n, 1), 0);
	array_recs_free(arrays, n);
	assert_string_equal(fake.account, "lab2");
	assert_string_equal(fake.qos, "high");
	assert_int_equal(fake.calls, 2);
	assert_string_equal(fake.arrays[0], "0-3%2");
	assert_int_equal(fake.offsets[0], 4);
	assert_string_equal(fake.deps[0], "--dependency=afterany:40");
	assert_string_equal(fake.arrays[1], "0-1%2");
	assert_int_equal(fake.offsets[1], 8);
	assert_string_equal(fake.deps[1], "--dependency=afterany:100");
	for (unsigned i = 0; i < 2; i++) {
		assert_true(fake.locked[i]);
		assert_true(fake.intent[i]);
		assert_true(fake.reserve[i]);
		assert_true(fake.blocked[i]);
	}
	assert_string_equal(note.buf, "rolling: submitted array jobs 100, 101 (10 of 10 tasks "
	                              "submitted)");
	/* Recorded, and the protocol's files gone; the lock is free again. */
	assert_int_equal(store_load_arrays(st, &arrays, &n, rec.id), 0);
	assert_int_equal(n, 3);
	assert_int_equal(rolling_next_index(&rec, arrays, n), 10);
	array_recs_free(arrays, n);
	assert_false(exists_in(rec.dir, "submit.intent"));
	assert_false(exists_in(rec.dir, "space.reserve"));
	assert_false(lock_held(rec.dir));
	strbuf_release(&note);
	fake_release();
	sweep_rec_release(&rec);
	store_close(st);
	remove_tree(dir);
	free(dir);
}

/* sbatch refuses the second chunk: the first stays in, and the follow-up backs off (the plan
 * had two chunks, hence "jobs"). */
static void test_rolling_continue_refused(void **state)
{
	char *dir = make_tmpdir();
	struct store *st;
	struct sweep_rec rec;
	struct sweep_policy p = {0};
	struct array_rec *arrays = NULL;
	struct followup_rec *fs = NULL;
	size_t n = 0, nf = 0;
	struct strbuf note = STRBUF_INIT;

	(void)state;
	rolling_sweep(&st, &rec, dir);
	fake.refuse_at = 2;
	assert_int_equal(store_load_arrays(st, &arrays, &n, rec.id), 0);
	capture_errors();
	assert_int_equal(rolling_continue_on(&fake_ops, &note, st, &rec, &p, arrays, n, 1), 0);
	release_captured();
	array_recs_free(arrays, n);
	assert_string_equal(note.buf,
	                    "rolling: submitted array jobs 100; backing off: sbatch: "
	                    "QOSMaxSubmitJobPerUserLimit (8 of 10 tasks submitted); follow-up 2 "
	                    "(job 0) when the first of these ends");
	assert_int_equal(store_load_arrays(st, &arrays, &n, rec.id), 0);
	assert_int_equal(n, 2);
	assert_int_equal(rolling_next_index(&rec, arrays, n), 8);
	array_recs_free(arrays, n);
	assert_int_equal(store_load_followups(st, &fs, &nf, rec.id), 0);
	assert_int_equal(nf, 1);
	assert_int_equal(fs[0].seq, 2);
	followup_recs_free(fs, nf);
	assert_false(exists_in(rec.dir, "submit.intent"));
	assert_false(lock_held(rec.dir));
	strbuf_release(&note);
	fake_release();
	sweep_rec_release(&rec);
	store_close(st);
	remove_tree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rolling_next_index),
	    cmocka_unit_test(test_rolling_next_index_packed),
	    cmocka_unit_test(test_rolling_continue_protocol),
	    cmocka_unit_test(test_rolling_continue_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
