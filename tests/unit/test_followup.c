#include "followup.h"

#include <stdlib.h>
#include <string.h>

#include "cfg.h"
#include "helpers.h"
#include "outcome.h"
#include "plan.h"
#include "store.h"

#include "banned.h"

/* Which sweep files want a follow-up job, and the binary it runs. */
static void test_followup_policy(void **state)
{
	struct cfg cfg;
	struct sweep_policy p;

	(void)state;
	cfg_init(&cfg);
	assert_int_equal(followup_policy_from_cfg(&p, &cfg), 0);
	assert_false(followup_wanted(&p));
	assert_null(p.program); /* none wanted: no binary looked for */
	sweep_policy_release(&p);

	cfg.retries = 2;
	cfg.retry_on_exit = true;
	cfg.fail_fast = 3;
	assert_int_equal(followup_policy_from_cfg(&p, &cfg), 0);
	assert_true(followup_wanted(&p));
	assert_int_equal(p.retries, 2);
	assert_true(p.retry_on_exit);
	assert_int_equal(p.fail_fast, 3);
	/* The binary follow-ups run is this very one, by its absolute path. */
	assert_non_null(p.program);
	assert_true(p.program[0] == '/');
	assert_non_null(strstr(p.program, "test_followup"));
	sweep_policy_release(&p);
	cfg_release(&cfg);

	memset(&p, 0, sizeof(p));
	p.mail = "me@lab.org";
	assert_true(followup_wanted(&p));
}

/* What status says of a sweep that finishes itself: its policy and each follow-up. */
static void test_followup_describe(void **state)
{
	static char *names[] = {"lr"};
	static char *values[] = {"0.1"};
	static int64_t seeds[] = {0};
	char *dir = make_tmpdir();
	struct store *st;
	struct plan plan;
	struct sweep_rec rec;
	struct sweep_policy p = {.retries = 2, .retry_on_exit = true, .mail = "me@lab.org"};
	struct followup_rec done = {.seq = 1, .job_id = 41, .after = "40", .purpose = "retry round 1 of 2"};
	struct followup_rec pending = {.seq = 2, .job_id = 43, .after = "40,42",
	                               .purpose = "retry round 2 of 2, notify", .mail = true};
	struct task_outcome oc[1];
	struct strbuf sb = STRBUF_INIT;
	bool active;

	(void)state;
	memset(oc, 0, sizeof(oc));
	plan_init(&plan);
	plan.params = names;
	plan.nparams = 1;
	plan.values = values;
	plan.nsettings = 1;
	plan.seeds = seeds;
	plan.nseeds = 1;
	plan.ntasks = 1;
	assert_int_equal(store_open(&st, dir, 1), 0);
	sweep_rec_init(&rec);
	rec.name = xstrdup("heal");
	rec.source = xstrdup("/src/heal.yaml");
	rec.logs = xstrdup("/src/logs");
	rec.backend = xstrdup("slurm");
	assert_int_equal(store_begin_sweep(st, &rec, &plan, "name: heal\n"), 0);

	/* No policy, no follow-up: nothing to say. */
	assert_int_equal(followup_describe(&sb, &active, st, &rec, oc, 1), 0);
	assert_string_equal(sb.buf, "");
	assert_false(active);

	assert_int_equal(store_set_policy(st, rec.id, &p), 0);
	assert_int_equal(store_add_followup(st, rec.id, &done), 0);
	assert_int_equal(store_end_followup(st, rec.id, 1, FOLLOWUP_DONE,
	                                    "retry round 1: 1 task resubmitted"),
	                 0);
	assert_int_equal(store_add_followup(st, rec.id, &pending), 0);
	assert_int_equal(followup_describe(&sb, &active, st, &rec, oc, 1), 0);
	assert_string_equal(sb.buf,
	                    "finishes itself: retries 2 (0 used), exits too, mail to me@lab.org\n"
	                    "  follow-up 1 (job 41) done: retry round 1: 1 task resubmitted\n"
	                    "  follow-up 2 (job 43) pending, when jobs 40,42 end: retry round 2 "
	                    "of 2, notify (mail at its end)\n");
	assert_true(active); /* a pending follow-up may start more tasks */
	strbuf_release(&sb);
	sweep_rec_release(&rec);
	store_close(st);
	remove_tree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_followup_policy),
	    cmocka_unit_test(test_followup_describe),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
