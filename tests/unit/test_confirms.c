#include "confirms.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cfg.h"
#include "helpers.h"
#include "plan.h"
#include "store.h"
#include "submission.h"

#include "banned.h"

static char *names[] = {"lr"};
static char *values[] = {"0.1", "0.2"};

/* A sweep of 2 settings on seeds[0..n) recorded with the sweep file text spec; its id. */
static int64_t add_sweep(struct store *st, const char *spec, int64_t *seeds, size_t n)
{
	struct plan plan;
	struct sweep_rec rec;
	int64_t id;

	plan_init(&plan);
	plan.params = names;
	plan.nparams = 1;
	plan.values = values;
	plan.nsettings = 2;
	plan.seeds = seeds;
	plan.nseeds = n;
	plan.ntasks = 2 * n;
	sweep_rec_init(&rec);
	rec.name = xstrdup("search");
	rec.source = xstrdup("/src/search.yaml");
	rec.logs = xstrdup("/src/logs");
	rec.backend = xstrdup("slurm");
	assert_int_equal(store_begin_sweep(st, &rec, &plan, spec), 0);
	id = rec.id;
	sweep_rec_release(&rec);
	return id;
}

static int cmp_seed(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* The seeds of a sweep's family, sorted and without repeats, as "0 1 2". */
static char *family_seeds(struct store *st, int64_t id, unsigned *others)
{
	struct sweep_rec rec;
	int64_t *used = NULL;
	size_t n = 0;
	struct strbuf sb = STRBUF_INIT;
	char which[32];

	snprintf(which, sizeof(which), "%lld", (long long)id);
	sweep_rec_init(&rec);
	assert_int_equal(store_find_sweep(st, &rec, which), 0);
	*others = 0;
	assert_int_equal(confirms_used_seeds(&used, &n, others, NULL, st, &rec), 0);
	qsort(used, n, sizeof(*used), cmp_seed);
	for (size_t i = 0; i < n; i++)
		if (!i || used[i] != used[i - 1])
			strbuf_addf(&sb, "%s%lld", sb.len ? " " : "", (long long)used[i]);
	free(used);
	sweep_rec_release(&rec);
	return strbuf_detach(&sb, NULL);
}

/*
 * A search (seeds 0-2), a confirm of it (3-4), a confirm of that confirm
 * (5), and an unrelated sweep (9): every sweep of the family sees the
 * seeds of all three, the unrelated one only its own.
 */
static void test_confirms_family(void **state)
{
	char *dir = make_tmpdir(), *got;
	struct store *st;
	int64_t s0[] = {0, 1, 2}, s1[] = {3, 4}, s2[] = {5}, s3[] = {9};
	int64_t search, first, second, other;
	unsigned others;
	char spec[128];

	(void)state;
	assert_int_equal(store_open(&st, dir, 1), 0);
	search = add_sweep(st, "name: search\ncommand: x\n", s0, 3);
	snprintf(spec, sizeof(spec), "name: c\ncommand: x\nconfirm_of: %lld\n", (long long)search);
	first = add_sweep(st, spec, s1, 2);
	snprintf(spec, sizeof(spec), "name: c\ncommand: x\nconfirm_of: %lld\n", (long long)first);
	second = add_sweep(st, spec, s2, 1);
	/* Names confirm_of only in a comment: not a confirm. */
	other = add_sweep(st, "name: o\ncommand: x  # not a confirm_of anything\n", s3, 1);

	got = family_seeds(st, search, &others);
	assert_string_equal(got, "0 1 2 3 4 5");
	assert_int_equal(others, 2);
	free(got);
	got = family_seeds(st, second, &others);
	assert_string_equal(got, "0 1 2 3 4 5");
	free(got);
	got = family_seeds(st, other, &others);
	assert_string_equal(got, "9");
	assert_int_equal(others, 0);
	free(got);
	store_close(st);
	remove_tree(dir);
	free(dir);
}

/*
 * With lock_fd, the seeds are read under the submission lock of the
 * family's first sweep, whichever sweep of the family is confirmed.
 */
static void test_confirms_used_seeds_lock(void **state)
{
	char *dir = make_tmpdir();
	struct store *st;
	struct sweep_rec root, rec;
	int64_t s0[] = {0, 1}, s1[] = {2, 3}, *used = NULL;
	int64_t search, first;
	size_t n = 0;
	unsigned others = 0;
	int fd = -1, held;
	char spec[128], which[32];

	(void)state;
	assert_int_equal(store_open(&st, dir, 1), 0);
	search = add_sweep(st, "name: search\ncommand: x\n", s0, 2);
	snprintf(spec, sizeof(spec), "name: c\ncommand: x\nconfirm_of: %lld\n", (long long)search);
	first = add_sweep(st, spec, s1, 2);
	sweep_rec_init(&root);
	sweep_rec_init(&rec);
	snprintf(which, sizeof(which), "%lld", (long long)search);
	assert_int_equal(store_find_sweep(st, &root, which), 0);
	snprintf(which, sizeof(which), "%lld", (long long)first);
	assert_int_equal(store_find_sweep(st, &rec, which), 0);
	assert_int_equal(confirms_used_seeds(&used, &n, &others, &fd, st, &rec), 0);
	assert_true(fd >= 0);
	assert_int_equal(n, 4);
	capture_errors();
	held = submission_lock(root.dir);
	release_captured();
	assert_true(held < 0);
	close(fd);
	held = submission_lock(root.dir);
	assert_true(held >= 0);
	close(held);
	free(used);
	sweep_rec_release(&root);
	sweep_rec_release(&rec);
	store_close(st);
	remove_tree(dir);
	free(dir);
}

/* Where a confirm's settings come from, and nothing for another sweep. */
static void test_confirms_provenance(void **state)
{
	char *dir = make_tmpdir(), *got;
	struct store *st;
	int64_t s0[] = {0, 1, 2, 3, 4}, s1[] = {5, 6, 7, 8, 9};
	struct plan plan;
	struct cfg cfg;

	(void)state;
	assert_int_equal(store_open(&st, dir, 1), 0);
	assert_int_equal(add_sweep(st, "name: s\ncommand: x\n", s0, 5), 1);
	plan_init(&plan);
	plan.seeds = s1;
	plan.nseeds = 5;
	cfg_init(&cfg);
	assert_null(confirms_provenance(st, &cfg, &plan));
	cfg.confirm_of = 1;
	got = confirms_provenance(st, &cfg, &plan);
	assert_string_equal(got, "selected on seeds 0-4 of sweep 1; estimated on seeds 5-9");
	free(got);
	/* The sweep it came from was removed from the store. */
	cfg.confirm_of = 7;
	capture_errors();
	got = confirms_provenance(st, &cfg, &plan);
	release_captured();
	assert_string_equal(
	    got, "selected in sweep 7 (no longer in the state store); estimated on seeds 5-9");
	free(got);
	cfg_release(&cfg);
	store_close(st);
	remove_tree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_confirms_family),
	    cmocka_unit_test(test_confirms_provenance),
	    cmocka_unit_test(test_confirms_used_seeds_lock),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
