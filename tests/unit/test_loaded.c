#include "loaded.h"

#include "plan.h"

#include "helpers.h"

#include "banned.h"

static char *names[] = {"lr"};
static char *values[] = {"0.1"};
static int64_t seeds[] = {0};

/* Records a sweep whose kept sweep file is text; rec gets its record. */
static void record(struct sweep_rec *rec, struct store *st, const char *text)
{
	struct plan plan;

	plan_init(&plan);
	plan.params = names;
	plan.nparams = 1;
	plan.values = values;
	plan.nsettings = 1;
	plan.seeds = seeds;
	plan.nseeds = 1;
	plan.ntasks = 1;
	sweep_rec_init(rec);
	rec->name = xstrdup("x");
	rec->source = xstrdup("/src/sweep.yaml");
	rec->logs = xstrdup("/src/logs");
	rec->backend = xstrdup("local");
	assert_int_equal(store_begin_sweep(st, rec, &plan, text), 0);
}

/* Read and parsed once, however often asked; the text is kept too. */
static void test_loaded_sweepfile_parsed_once(void **state)
{
	char *dir = make_tmpdir();
	struct store *st;
	struct sweep_rec rec;
	struct kept_file kf;
	const struct cfg *cfg = NULL;
	unsigned before = loaded_sweepfile_parses();

	(void)state;
	assert_int_equal(store_open(&st, dir, 1), 0);
	record(&rec, st, "name: x\ncommand: run\ngrid: {lr: [0.1]}\nconfirm_of: 3\n");
	kept_file_init(&kf);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(kept_file_get(&cfg, &kf, st, &rec, LOADED_ERROR), 0);
		assert_int_equal(cfg->confirm_of, 3);
	}
	assert_int_equal(kf.state, KEPT_READ);
	assert_string_equal(kf.text, "name: x\ncommand: run\ngrid: {lr: [0.1]}\nconfirm_of: 3\n");
	assert_int_equal(loaded_sweepfile_parses(), before + 1);
	kept_file_release(&kf);
	sweep_rec_release(&rec);
	store_close(st);
	remove_tree(dir);
	free(dir);
}

/* A sweep recorded without its file: an empty sweep file, no failure, nothing parsed. */
static void test_loaded_sweepfile_none(void **state)
{
	char *dir = make_tmpdir();
	struct store *st;
	struct sweep_rec rec;
	struct kept_file kf;
	const struct cfg *cfg = NULL;
	unsigned before = loaded_sweepfile_parses();

	(void)state;
	assert_int_equal(store_open(&st, dir, 1), 0);
	record(&rec, st, "");
	kept_file_init(&kf);
	assert_int_equal(kept_file_get(&cfg, &kf, st, &rec, LOADED_ERROR), 0);
	assert_int_equal(kf.state, KEPT_NONE);
	assert_string_equal(kf.text, "");
	assert_int_equal(cfg->nstage, 0);
	assert_int_equal(loaded_sweepfile_parses(), before);
	kept_file_release(&kf);
	sweep_rec_release(&rec);
	store_close(st);
	remove_tree(dir);
	free(dir);
}

/*
 * One that no longer reads fails in one wording: not at all when only
 * asked, once as a warning, once more as an error, never twice alike,
 * and it is parsed once for all of them.
 */
static void test_loaded_sweepfile_broken(void **state)
{
	char *dir = make_tmpdir();
	struct store *st;
	struct sweep_rec rec;
	struct kept_file kf;
	const struct cfg *cfg = NULL;
	unsigned before = loaded_sweepfile_parses();
	char *want;

	(void)state;
	assert_int_equal(store_open(&st, dir, 1), 0);
	record(&rec, st, "name: x\ncommand: run\ngrid: {lr: [0.1]}\nbogus_key: 1\n");
	kept_file_init(&kf);
	capture_errors();
	assert_int_equal(kept_file_get(&cfg, &kf, st, &rec, LOADED_QUIET), SWEEP_ERR);
	assert_int_equal(captured.len, 0);
	assert_int_equal(cfg->nmetrics, 0);
	assert_int_equal(kept_file_get(&cfg, &kf, st, &rec, LOADED_WARN), SWEEP_ERR);
	want = xstrfmt("warning: the sweep file kept for sweep %lld does not read: "
	               "/src/sweep.yaml:4:1: ",
	               (long long)rec.id);
	assert_memory_equal(captured.buf, want, strlen(want));
	assert_non_null(strstr(captured.buf, "bogus_key"));
	assert_null(strchr(captured.buf, '\n'));
	free(want);
	strbuf_reset(&captured);
	assert_int_equal(kept_file_get(&cfg, &kf, st, &rec, LOADED_WARN), SWEEP_ERR);
	assert_int_equal(captured.len, 0);
	assert_int_equal(kept_file_get(&cfg, &kf, st, &rec, LOADED_ERROR), SWEEP_ERR);
	want =
	    xstrfmt("error: the sweep file kept for sweep %lld does not read: ", (long long)rec.id);
	assert_memory_equal(captured.buf, want, strlen(want));
	free(want);
	release_captured();
	assert_int_equal(loaded_sweepfile_parses(), before + 1);
	kept_file_release(&kf);
	sweep_rec_release(&rec);
	store_close(st);
	remove_tree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_loaded_sweepfile_parsed_once),
	    cmocka_unit_test(test_loaded_sweepfile_none),
	    cmocka_unit_test(test_loaded_sweepfile_broken),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
