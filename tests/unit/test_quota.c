#include "quota.h"

#include "helpers.h"

#include "banned.h"

static void test_quota_count_tasks(void **state)
{
	static const struct {
		const char *spec;
		uint64_t want;
	} cases[] = {
	    {"0-49%10", 50}, {"3,17-19", 4}, {"0-9:2", 5}, {"5", 1},   {"0x0F", 4},
	    {"0x1", 1},      {"", 0},        {"x", 0},     {"7-3", 0}, {"0-3,x", 4},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (quota_count_tasks(cases[i].spec) != cases[i].want)
			fail_msg("'%s': want %llu, got %llu", cases[i].spec,
			         (unsigned long long)cases[i].want,
			         (unsigned long long)quota_count_tasks(cases[i].spec));
	assert_int_equal(quota_count_tasks(NULL), 0);
}

static struct rollout_limit limits[] = {
    {.max = 10000, .used = 9990, .what = "MaxJobCount (slurmctld's job records, everyone's)"},
    {.max = 100, .used = 92, .what = "QOS 'small' MaxSubmitJobsPerUser"},
    {.max = 500, .used = 3, .what = "association (user 'root', account 'sweep') MaxSubmitJobs"},
};

/* sbatch's refusal names the limit it hit; the message names the same one, with figures. */
static void test_quota_explain_refusal(void **state)
{
	struct quota q;
	static const struct {
		const char *text, *want;
	} cases[] = {
	    {"sbatch: error: QOSMaxSubmitJobPerUserLimit; sbatch: error: Batch job submission "
	     "failed: Job violates accounting/QOS policy (job submit limit, user's size and/or "
	     "time limits)",
	     "QOS 'small' MaxSubmitJobsPerUser (100; 92 in use when sweep looked)"},
	    {"sbatch: error: AssocMaxSubmitJobLimit",
	     "association (user 'root', account 'sweep') MaxSubmitJobs (500; 3 in use when sweep "
	     "looked)"},
	    {"sbatch: error: Slurm temporarily unable to accept job, sleeping and retrying.",
	     "MaxJobCount (slurmctld's job records, everyone's) (10000; 9990 in use when sweep "
	     "looked)"},
	    {"sbatch: error: QOSGrpSubmitJobsLimit", "the limit Slurm calls QOSGrpSubmitJobsLimit"},
	    /* no reason code: the association or QOS limit with the least room left */
	    {"sbatch: error: Batch job submission failed: Job violates accounting/QOS policy",
	     "QOS 'small' MaxSubmitJobsPerUser (100; 92 in use when sweep looked)"},
	};

	(void)state;
	quota_init(&q);
	q.submit = limits;
	q.nsubmit = 3;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = quota_explain_refusal(cases[i].text, &q);

		assert_non_null(got);
		assert_string_equal(got, cases[i].want);
		free(got);
	}
	assert_null(quota_explain_refusal("sbatch: error: invalid partition specified: x", &q));
}

/* Without limits read (dry run, slurmdbd down), the message still names the cause. */
static void test_quota_explain_refusal_unknown_limits(void **state)
{
	char *got;

	(void)state;
	got = quota_explain_refusal("sbatch: error: Slurm temporarily unable to accept job", NULL);
	assert_string_equal(got, "slurmctld's MaxJobCount (every array task is a job record, kept "
	                         "MinJobAge seconds after it ends)");
	free(got);
	got = quota_explain_refusal("Job violates accounting/QOS policy", NULL);
	assert_string_equal(got, "an association or QOS limit ('sacctmgr show assoc user=$USER' "
	                         "and 'sacctmgr show qos' list them)");
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_quota_count_tasks),
	    cmocka_unit_test(test_quota_explain_refusal),
	    cmocka_unit_test(test_quota_explain_refusal_unknown_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
