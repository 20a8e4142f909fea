#include "sample.h"

#include <math.h>

#include "cfg.h"
#include "plan.h"

#include "helpers.h"

#include "banned.h"

/* SplitMix64 from 1234567: the published reference outputs (Rosetta Code's task). */
static void test_sample_splitmix64_reference(void **state)
{
	static const uint64_t want[] = {
	    UINT64_C(6457827717110365317),  UINT64_C(3203168211198807973),
	    UINT64_C(9817491932198370423),  UINT64_C(4593380528125082431),
	    UINT64_C(16408922859458223821),
	};
	uint64_t s = 1234567;

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_true(sample_splitmix64(&s) == want[i]);
}

/* xoshiro256** from the state {1, 2, 3, 4}: the reference implementation's outputs. */
static void test_sample_xoshiro_reference(void **state)
{
	static const uint64_t start[4] = {1, 2, 3, 4};
	static const uint64_t want[] = {
	    UINT64_C(11520),
	    UINT64_C(0),
	    UINT64_C(1509978240),
	    UINT64_C(1215971899390074240),
	    UINT64_C(1216172134540287360),
	    UINT64_C(607988272756665600),
	    UINT64_C(16172922978634559625),
	    UINT64_C(8476171486693032832),
	    UINT64_C(10595114339597558777),
	    UINT64_C(2904607092377533576),
	};
	struct sample_rng r;

	(void)state;
	sample_rng_set(&r, start);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_true(sample_rng_next(&r) == want[i]);
}

/* Trial k's stream is SplitMix64's output k, then four more from it (sample.h). */
static void test_sample_trial_stream(void **state)
{
	struct sample_rng a, b;
	uint64_t s = 7, x = 0;

	(void)state;
	for (int k = 0; k < 4; k++)
		x = sample_splitmix64(&s);
	sample_rng_trial(&a, 7, 3);
	for (int i = 0; i < 4; i++)
		assert_true(a.s[i] == sample_splitmix64(&x));
	sample_rng_trial(&b, 7, 4);
	assert_true(sample_rng_next(&a) != sample_rng_next(&b));
	sample_rng_trial(&b, 8, 3);
	sample_rng_trial(&a, 7, 3);
	assert_true(sample_rng_next(&a) != sample_rng_next(&b));
}

static void load(struct cfg *cfg, const char *yaml)
{
	cfg_init(cfg);
	assert_int_equal(cfg_load_string(cfg, "t.yaml", yaml, strlen(yaml)), 0);
}

#define SAMPLED                                                                                    \
	"name: x\ncommand: run {lr} {wd} {width} {w2} {act}\nseeds: 2\nsample_seed: 7\n"           \
	"sample:\n  lr: {loguniform: [1.0e-5, 1.0e-1]}\n  wd: {uniform: [0, 0.001]}\n"             \
	"  width: {int: [16, 512]}\n  w2: {int: [1, 1000], log: true}\n"                           \
	"  act: {choice: [relu, gelu, silu]}\n"

/* Trial k draws the same whatever `trials` is: more trials only add settings. */
static void test_sample_trials_are_stable(void **state)
{
	struct cfg small, big;
	struct plan ps, pb;

	(void)state;
	load(&small, SAMPLED "trials: 3\n");
	load(&big, SAMPLED "trials: 40\n");
	assert_int_equal(plan_expand(&ps, &small), 0);
	assert_int_equal(plan_expand(&pb, &big), 0);
	assert_int_equal(ps.nsettings, 3);
	assert_int_equal(pb.nsettings, 40);
	assert_int_equal(ps.ntasks, 6);
	assert_int_equal(pb.nparams, 5);
	assert_string_equal(pb.params[0], "lr");
	for (size_t s = 0; s < ps.nsettings; s++)
		for (size_t p = 0; p < ps.nparams; p++)
			assert_string_equal(plan_value(&ps, s, p), plan_value(&pb, s, p));
	/* Pinned: the same file draws these on every machine and release. */
	assert_string_equal(plan_value(&pb, 0, 0), "0.0001541");
	assert_string_equal(plan_value(&pb, 0, 1), "0.000981");
	assert_string_equal(plan_value(&pb, 1, 4), "gelu");
	plan_release(&ps);
	plan_release(&pb);
	cfg_release(&small);
	cfg_release(&big);
}

/* With a grid, each trial is a block of the grid's settings, trial outermost. */
static void test_sample_crossed_with_grid(void **state)
{
	static const char *const bs[] = {"32", "64", "128"};
	struct cfg cfg;
	struct plan plan;

	(void)state;
	load(&cfg, "name: x\ncommand: run {lr} {bs}\nsample: {lr: {uniform: [0, 1]}}\n"
	           "trials: 4\ngrid: {bs: [32, 64, 128]}\nseeds: [5, 6]\n");
	assert_int_equal(plan_expand(&plan, &cfg), 0);
	assert_int_equal(plan.nsettings, 12);
	assert_int_equal(plan.ntasks, 24);
	assert_string_equal(plan.params[0], "lr");
	assert_string_equal(plan.params[1], "bs");
	for (size_t t = 0; t < 4; t++)
		for (size_t g = 0; g < 3; g++) {
			assert_string_equal(plan_value(&plan, t * 3 + g, 0),
			                    plan_value(&plan, t * 3, 0));
			assert_string_equal(plan_value(&plan, t * 3 + g, 1), bs[g]);
		}
	assert_string_not_equal(plan_value(&plan, 0, 0), plan_value(&plan, 3, 0));
	plan_release(&plan);
	cfg_release(&cfg);
}

/* Every draw within its bounds; int reaches both ends; choice takes each item. */
static void test_sample_bounds(void **state)
{
	struct cfg cfg;
	struct plan plan;
	int seen_lo = 0, seen_hi = 0, seen_log_lo = 0, acts[3] = {0};

	(void)state;
	load(&cfg, SAMPLED "trials: 3000\n");
	assert_int_equal(plan_expand(&plan, &cfg), 0);
	for (size_t s = 0; s < plan.nsettings; s++) {
		double lr = strtod(plan_value(&plan, s, 0), NULL);
		double wd = strtod(plan_value(&plan, s, 1), NULL);
		long width = strtol(plan_value(&plan, s, 2), NULL, 10);
		long w2 = strtol(plan_value(&plan, s, 3), NULL, 10);
		const char *act = plan_value(&plan, s, 4);

		assert_true(lr >= 1e-5 && lr <= 1e-1);
		assert_true(wd >= 0 && wd <= 0.001);
		assert_true(width >= 16 && width <= 512);
		assert_true(w2 >= 1 && w2 <= 1000);
		seen_lo |= width == 16;
		seen_hi |= width == 512;
		seen_log_lo += w2 <= 10;
		acts[!strcmp(act, "gelu") + 2 * !strcmp(act, "silu")]++;
	}
	assert_true(seen_lo && seen_hi);
	/* log: true puts a third of the draws in 1..10 (uniform would put 1%). */
	assert_in_range(seen_log_lo, 800, 1200);
	for (int i = 0; i < 3; i++)
		assert_in_range(acts[i], 850, 1150);
	plan_release(&plan);
	cfg_release(&cfg);
}

/* loguniform spreads evenly over decades: each of the four holds about a quarter. */
static void test_sample_loguniform_decades(void **state)
{
	struct cfg cfg;
	struct plan plan;
	int decade[4] = {0};

	(void)state;
	load(&cfg, SAMPLED "trials: 4000\n");
	assert_int_equal(plan_expand(&plan, &cfg), 0);
	for (size_t s = 0; s < plan.nsettings; s++) {
		int d = (int)floor(log10(strtod(plan_value(&plan, s, 0), NULL))) + 5;

		decade[d < 0 ? 0 : d > 3 ? 3 : d]++;
	}
	for (int i = 0; i < 4; i++)
		assert_in_range(decade[i], 900, 1100);
	plan_release(&plan);
	cfg_release(&cfg);
}

/* The digits rule: "%.*g"; the text read back and printed again is the same text. */
static void test_sample_digits(void **state)
{
	static const struct {
		double x;
		unsigned digits;
		const char *want;
	} rows[] = {
	    {0.000123456, 4, "0.0001235"},    {0.000123456, 2, "0.00012"},
	    {1.23456e-5, 4, "1.235e-05"},     {0.5, 4, "0.5"},
	    {123456.0, 4, "1.235e+05"},       {-0.0, 4, "0"},
	    {0.1, 17, "0.10000000000000001"}, {2.0 / 3.0, 1, "0.7"},
	};
	struct cfg cfg;
	struct plan plan;

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char *got = sample_format(rows[i].x, rows[i].digits);

		assert_string_equal(got, rows[i].want);
		free(got);
	}
	load(&cfg, SAMPLED "trials: 200\nsample_digits: 3\n");
	assert_int_equal(cfg.sample_digits, 3);
	assert_int_equal(plan_expand(&plan, &cfg), 0);
	for (size_t s = 0; s < plan.nsettings; s++)
		for (size_t p = 0; p < 2; p++) {
			const char *v = plan_value(&plan, s, p);
			char *again = sample_format(strtod(v, NULL), 3);

			assert_string_equal(again, v);
			free(again);
		}
	plan_release(&plan);
	cfg_release(&cfg);
	load(&cfg, SAMPLED "trials: 1\n");
	assert_int_equal(cfg.sample_digits, CFG_SAMPLE_DIGITS_DEFAULT);
	cfg_release(&cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sample_splitmix64_reference),
	    cmocka_unit_test(test_sample_xoshiro_reference),
	    cmocka_unit_test(test_sample_trial_stream),
	    cmocka_unit_test(test_sample_trials_are_stable),
	    cmocka_unit_test(test_sample_crossed_with_grid),
	    cmocka_unit_test(test_sample_bounds),
	    cmocka_unit_test(test_sample_loguniform_decades),
	    cmocka_unit_test(test_sample_digits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
