#include "confirm.h"

#include <math.h>

#include "sample.h"
#include "stats.h"

#include "helpers.h"

#include "banned.h"

static void test_confirm_fresh_seeds(void **state)
{
	static const int64_t sweep[] = {0, 1, 2, 3, 4};
	static const int64_t holes[] = {7, 0, 2, 2, 9, 1};
	static const int64_t negative[] = {-3, -1, 1};
	int64_t *got;

	(void)state;
	got = confirm_fresh_seeds(sweep, 5, 5);
	for (int i = 0; i < 5; i++)
		assert_int_equal(got[i], 5 + i);
	free(got);
	/* Unsorted, repeated, with gaps: the gaps first, in order. */
	got = confirm_fresh_seeds(holes, 6, 5);
	assert_int_equal(got[0], 3);
	assert_int_equal(got[1], 4);
	assert_int_equal(got[2], 5);
	assert_int_equal(got[3], 6);
	assert_int_equal(got[4], 8);
	free(got);
	got = confirm_fresh_seeds(negative, 3, 2);
	assert_int_equal(got[0], 0);
	assert_int_equal(got[1], 2);
	free(got);
	got = confirm_fresh_seeds(NULL, 0, 3);
	assert_int_equal(got[2], 2);
	free(got);
}

/* A second confirm of the same sweep takes seeds neither the sweep nor the first used. */
static void test_confirm_fresh_after_confirm(void **state)
{
	int64_t used[15] = {0, 1, 2, 3, 4};
	int64_t *first, *second;

	(void)state;
	first = confirm_fresh_seeds(used, 5, 5);
	for (int i = 0; i < 5; i++)
		used[5 + i] = first[i];
	second = confirm_fresh_seeds(used, 10, 5);
	for (int i = 0; i < 5; i++) {
		assert_int_equal(second[i], 10 + i);
		for (int j = 0; j < 10; j++)
			assert_int_not_equal(second[i], used[j]);
	}
	free(first);
	free(second);
}

static void test_confirm_provenance(void **state)
{
	static const int64_t sel[] = {4, 3, 2, 1, 0}, est[] = {5, 6, 7, 8, 9};
	static const int64_t odd[] = {10, 3, 11, 12, 7, 1}, one[] = {42};
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	confirm_add_provenance(&sb, 12, sel, 5, est, 5);
	assert_string_equal(sb.buf, "selected on seeds 0-4 of sweep 12; estimated on seeds 5-9");
	strbuf_reset(&sb);
	confirm_add_ranges(&sb, odd, 6);
	assert_string_equal(sb.buf, "1, 3, 7, 10-12");
	strbuf_reset(&sb);
	confirm_add_ranges(&sb, one, 1);
	assert_string_equal(sb.buf, "42");
	strbuf_reset(&sb);
	confirm_add_ranges(&sb, NULL, 0);
	assert_string_equal(sb.buf, "none");
	strbuf_release(&sb);
}

/*
 * The known truth: a task's metric is TRUTH plus standard normal noise that
 * depends only on (repetition, setting, seed), as a program's result
 * depends on its seed. Every setting has the same true mean.
 */
#define TRUTH     0.0
#define NSETTINGS 20
#define NSEEDS    5
#define NREPS     2000

static double task_metric(size_t rep, size_t setting, int64_t seed)
{
	struct sample_rng r;
	double u1, u2;

	sample_rng_trial(&r, (uint64_t)rep << 20 | setting, (uint64_t)seed);
	u1 = sample_rng_uniform(&r);
	u2 = sample_rng_uniform(&r);
	return TRUTH + sqrt(-2 * log1p(-u1)) * cos(2 * 3.14159265358979323846 * u2);
}

static void summarize(struct stats_summary *out, size_t rep, size_t setting, const int64_t *seeds,
                      size_t n)
{
	struct stats_acc acc;

	stats_init(&acc);
	for (size_t i = 0; i < n; i++)
		stats_add(&acc, task_metric(rep, setting, seeds[i]));
	stats_summarize(out, &acc);
}

struct tally {
	struct stats_acc est; /* the estimates over the repetitions */
	size_t covered;       /* repetitions whose 95% CI holds the truth */
};

static void tally_add(struct tally *t, const struct stats_summary *s)
{
	stats_add(&t->est, s->mean);
	t->covered += fabs(s->mean - TRUTH) <= s->ci95;
}

static void tally_print(const char *what, const struct tally *t)
{
	struct stats_summary s;

	stats_summarize(&s, &t->est);
	print_message("%-34s mean %+.3f ± %.3f (95%% CI of the mean), truth %.1f; "
	              "CI holds the truth in %.1f%%\n",
	              what, s.mean, s.ci95, TRUTH, 100.0 * (double)t->covered / NREPS);
}

/*
 * The winner's curse, over NREPS repetitions of a 20-setting sweep on seeds
 * 0-4: the best setting's mean is above the truth (the expected maximum of
 * 20 normal means of sd 1/sqrt(5) is 0.835), the same setting re-run on the
 * same seeds repeats it exactly, and on fresh seeds (confirm_fresh_seeds)
 * it is the truth within its error.
 */
static void test_confirm_winners_curse(void **state)
{
	static const int64_t seeds[NSEEDS] = {0, 1, 2, 3, 4};
	struct tally best, same, fresh;
	struct stats_summary b, f;
	int64_t *new_seeds = confirm_fresh_seeds(seeds, NSEEDS, NSEEDS);

	(void)state;
	memset(&best, 0, sizeof(best));
	memset(&same, 0, sizeof(same));
	memset(&fresh, 0, sizeof(fresh));
	stats_init(&best.est);
	stats_init(&same.est);
	stats_init(&fresh.est);
	for (size_t rep = 0; rep < NREPS; rep++) {
		struct stats_summary s;
		size_t win = 0;
		double top = -INFINITY;

		for (size_t k = 0; k < NSETTINGS; k++) {
			summarize(&s, rep, k, seeds, NSEEDS);
			if (s.mean > top) {
				top = s.mean;
				win = k;
				b = s;
			}
		}
		tally_add(&best, &b);
		summarize(&s, rep, win, seeds, NSEEDS);
		tally_add(&same, &s);
		summarize(&s, rep, win, new_seeds, NSEEDS);
		tally_add(&fresh, &s);
	}
	free(new_seeds);
	tally_print("best of 20, on the seeds chosen on", &best);
	tally_print("the same, re-run on the same seeds", &same);
	tally_print("the same, re-run on fresh seeds", &fresh);
	stats_summarize(&b, &best.est);
	stats_summarize(&f, &fresh.est);
	assert_true(b.mean - b.ci95 > TRUTH + 0.7 && b.mean < TRUTH + 1.0);
	assert_true(fabs(f.mean - TRUTH) <= f.ci95);
	assert_true(best.covered < NREPS * 85 / 100);
	assert_true(fresh.covered > NREPS * 93 / 100 && fresh.covered < NREPS * 97 / 100);
	assert_int_equal(same.covered, best.covered);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_confirm_fresh_seeds),
	    cmocka_unit_test(test_confirm_fresh_after_confirm),
	    cmocka_unit_test(test_confirm_provenance),
	    cmocka_unit_test(test_confirm_winners_curse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
