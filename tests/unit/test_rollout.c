#include "rollout.h"

#include "helpers.h"

#include "banned.h"

static struct rollout_limit lim(uint32_t max, uint32_t used, const char *what)
{
	struct rollout_limit l = {.max = max, .used = used};

	snprintf(l.what, sizeof(l.what), "%s", what);
	return l;
}

/* Headroom: 10% of the limit, rounded up, stays free; never below 0. */
static void test_rollout_free_keeps_headroom(void **state)
{
	static const struct {
		uint32_t max, used, want;
	} cases[] = {
	    {100, 0, 90}, {100, 89, 1}, {100, 90, 0},       {100, 150, 0},
	    {5, 0, 4},    {1, 0, 0},    {10000, 200, 8800},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rollout_limit l = lim(cases[i].max, cases[i].used, "x");

		assert_int_equal(rollout_free(&l, ROLLOUT_HEADROOM), cases[i].want);
	}
	{
		struct rollout_limit l = lim(ROLLOUT_UNLIMITED, 5, "none");

		assert_int_equal(rollout_free(&l, ROLLOUT_HEADROOM), ROLLOUT_UNLIMITED);
	}
}

/* Everything fits: MaxArraySize chunks, all now, no bound when nothing limits. */
static void test_rollout_plan_fits(void **state)
{
	struct rollout_limit limits[] = {lim(10000, 100, "MaxJobCount"),
	                                 lim(ROLLOUT_UNLIMITED, 0, "QOS 'normal'")};
	struct rollout_plan p;

	(void)state;
	assert_int_equal(rollout_plan_make(&p, 120, 50, limits, 2, ROLLOUT_HEADROOM), 0);
	assert_int_equal(p.nchunks, 3);
	assert_int_equal(p.nnow, 3);
	assert_int_equal(p.chunks[2].first, 100);
	assert_int_equal(p.chunks[2].count, 20);
	assert_int_equal(p.budget, 8900);
	assert_int_equal(p.bound, 0);
	rollout_plan_release(&p);

	assert_int_equal(rollout_plan_make(&p, 7, 0, NULL, 0, ROLLOUT_HEADROOM), 0);
	assert_int_equal(p.nchunks, 1);
	assert_int_equal(p.nnow, 1);
	assert_int_equal(p.bound, -1);
	assert_true(p.budget == UINT64_MAX);
	rollout_plan_release(&p);
}

/* 500 tasks under MaxSubmitJobsPerUser=100 with 10 queued: chunks of 22, 3 now. */
static void test_rollout_plan_rolls_under_qos(void **state)
{
	struct rollout_limit limits[] = {lim(10000, 40, "MaxJobCount"),
	                                 lim(100, 10, "QOS 'small' MaxSubmitJobsPerUser")};
	struct rollout_plan p;

	(void)state;
	assert_int_equal(rollout_plan_make(&p, 500, 50, limits, 2, ROLLOUT_HEADROOM), 0);
	assert_int_equal(p.bound, 1);
	assert_int_equal(p.budget, 80);
	assert_int_equal(p.capacity, 90);
	assert_int_equal(p.chunks[0].count, 22);
	assert_int_equal(p.nchunks, 23); /* 22 x 22 = 484, then 16 */
	assert_int_equal(p.chunks[22].count, 16);
	assert_int_equal(p.chunks[22].first, 484);
	assert_int_equal(p.nnow, 3);
	assert_int_equal(rollout_units(&p, p.nnow), 66);
	assert_int_equal(rollout_units(&p, p.nchunks), 500);
	rollout_plan_release(&p);
}

/* The user's queue is full already: nothing now, the chunks wait. */
static void test_rollout_plan_nothing_now(void **state)
{
	struct rollout_limit limits[] = {lim(100, 95, "QOS 'small' MaxSubmitJobsPerUser"),
	                                 lim(10000, 9990, "MaxJobCount")};
	struct rollout_plan p;

	(void)state;
	assert_int_equal(rollout_plan_make(&p, 10, 50, limits, 2, ROLLOUT_HEADROOM), 0);
	assert_int_equal(p.budget, 0);
	assert_int_equal(p.nnow, 0);
	assert_int_equal(p.bound, 0); /* the first limit at zero names the cause */
	assert_int_equal(rollout_units(&p, p.nchunks), 10);
	rollout_plan_release(&p);
}

/* MaxJobCount can bind before a user limit does. */
static void test_rollout_plan_bound_by_job_count(void **state)
{
	struct rollout_limit limits[] = {lim(5000, 0, "association MaxSubmitJobs"),
	                                 lim(10000, 8500, "MaxJobCount")};
	struct rollout_plan p;

	(void)state;
	assert_int_equal(rollout_plan_make(&p, 10000, 1000, limits, 2, ROLLOUT_HEADROOM), 0);
	assert_int_equal(p.bound, 1);
	assert_int_equal(p.budget, 500);
	assert_int_equal(p.capacity, 4500);
	assert_int_equal(p.chunks[0].count, 1000); /* MaxArraySize is below a quarter of 4500 */
	assert_int_equal(p.nnow, 0);               /* one chunk of 1000 does not fit in 500 */
	rollout_plan_release(&p);
}

static void test_rollout_pack_to_fit(void **state)
{
	(void)state;
	assert_int_equal(rollout_pack_to_fit(500, 90), 6);
	assert_int_equal(rollout_pack_to_fit(90, 90), 1);
	assert_int_equal(rollout_pack_to_fit(10000, 90), 112);
	assert_int_equal(rollout_pack_to_fit(10, 0), 0);
	/* the pack found does fit */
	assert_true((10000 + 112 - 1) / 112 <= 90);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rollout_free_keeps_headroom),
	    cmocka_unit_test(test_rollout_plan_fits),
	    cmocka_unit_test(test_rollout_plan_rolls_under_qos),
	    cmocka_unit_test(test_rollout_plan_nothing_now),
	    cmocka_unit_test(test_rollout_plan_bound_by_job_count),
	    cmocka_unit_test(test_rollout_pack_to_fit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
