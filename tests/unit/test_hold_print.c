/*
 * status's words on held tasks (hold_print.h): the counts by kind and the
 * line per kind that says what releases them, every path.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

#include "hold_print.h"

#include "banned.h"

/* Task array_task of array_job, held by h for reason; job 0: still in the pending record. */
static struct task_outcome held(uint32_t array_job, uint32_t array_task, uint32_t job,
                                enum acct_hold h, const char *reason)
{
	struct task_outcome o;

	memset(&o, 0, sizeof(o));
	o.state = TS_HELD;
	o.hold = h;
	o.pending_reason = reason;
	o.array_job_id = array_job;
	o.array_task_id = array_task;
	o.job_id = job;
	return o;
}

static struct task_outcome other(enum task_state s)
{
	struct task_outcome o;

	memset(&o, 0, sizeof(o));
	o.state = s;
	o.array_job_id = 700;
	o.array_task_id = 9;
	o.job_id = 709;
	return o;
}

static char *hints(const struct task_outcome *t, size_t n)
{
	struct strbuf sb = STRBUF_INIT;

	hold_add_hints(&sb, t, n);
	return strbuf_detach(&sb, NULL);
}

static char *counts(const struct task_outcome *t, size_t n)
{
	struct strbuf sb = STRBUF_INIT;

	hold_add_counts(&sb, t, n);
	return strbuf_detach(&sb, NULL);
}

static void expect(char *got, const char *want)
{
	assert_string_equal(got, want);
	free(got);
}

static void test_hold_print_kind_text(void **state)
{
	(void)state;
	assert_string_equal(hold_kind_text(ACCT_HOLD_USER), "held by the user");
	assert_string_equal(hold_kind_text(ACCT_HOLD_ADMIN), "held by an administrator");
	assert_string_equal(hold_kind_text(ACCT_HOLD_DEPENDENCY), "waiting for a dependency");
	assert_string_equal(hold_kind_text(ACCT_HOLD_DEP_NEVER),
	                    "waiting for a dependency that can never be met");
	assert_string_equal(hold_kind_text(ACCT_HOLD_BEGIN), "waiting for a begin time");
	assert_string_equal(hold_kind_text(ACCT_HOLD_NONE), "");
	assert_string_equal(hold_kind_text(ACCT_NHOLDS), "");
}

static void test_hold_print_counts(void **state)
{
	struct task_outcome t[5];

	(void)state;
	t[0] = other(TS_PENDING);
	t[1] = other(TS_COMPLETED);
	expect(counts(t, 2), "");
	expect(counts(t, 0), "");
	t[2] = held(700, 3, 713, ACCT_HOLD_USER, "held by the user");
	t[3] = held(700, 4, 714, ACCT_HOLD_BEGIN, "begins at 2026-12-06T09:33:10");
	t[4] = held(700, 5, 715, ACCT_HOLD_USER, "held by the user");
	expect(counts(t, 5), " (2 held by the user, 1 waiting for a begin time)");
}

static void test_hold_print_none(void **state)
{
	struct task_outcome t[2] = {other(TS_PENDING), other(TS_RUNNING)};
	json_t *j;

	(void)state;
	expect(hints(t, 2), "");
	expect(hints(t, 0), "");
	j = hold_counts_json(t, 2);
	assert_int_equal(json_object_size(j), 0);
	json_decref(j);
}

/* One line per kind; the jobs as scontrol takes them. */
static void test_hold_print_user(void **state)
{
	struct task_outcome t[4];

	(void)state;
	t[0] = held(700, 3, 713, ACCT_HOLD_USER, "held by the user");
	expect(hints(t, 1), "1 task held by the user: release it with 'scontrol release 700_3'\n");
	t[1] = held(700, 4, 714, ACCT_HOLD_USER, "held by the user");
	t[2] = held(700, 7, 717, ACCT_HOLD_USER, "held by the user");
	t[3] = other(TS_PENDING);
	expect(hints(t, 4),
	       "3 tasks held by the user: release them with 'scontrol release 700_[3-4,7]'\n");
	/* A task still in the array's pending record: the whole array is held. */
	t[3] = held(700, 8, 0, ACCT_HOLD_USER, "held by the user");
	expect(hints(t, 4), "4 tasks held by the user: release them with 'scontrol release 700'\n");
	/* Several array jobs, comma-separated, ascending. */
	t[0] = held(800, 0, 800, ACCT_HOLD_USER, "held by the user");
	t[3] = other(TS_RUNNING);
	expect(hints(t, 4),
	       "3 tasks held by the user: release them with 'scontrol release 700_[4,7],800_0'\n");
}

static void test_hold_print_many_arrays(void **state)
{
	struct task_outcome t[8];

	(void)state;
	for (uint32_t i = 0; i < 8; i++)
		t[i] = held(900 + i, 0, 0, ACCT_HOLD_USER, "held by the user");
	expect(hints(t, 8), "8 tasks held by the user: release them with 'scontrol release "
	                    "900,901,902,903,904' (and 3 more array jobs)\n");
	expect(hints(t, 6), "6 tasks held by the user: release them with 'scontrol release "
	                    "900,901,902,903,904' (and 1 more array job)\n");
}

static void test_hold_print_admin(void **state)
{
	struct task_outcome t[2];

	(void)state;
	t[0] = held(700, 4, 714, ACCT_HOLD_ADMIN, "held by an administrator");
	expect(hints(t, 1), "1 task held by an administrator: only an operator or administrator "
	                    "can release it ('scontrol release 700_4'); ask one\n");
	t[1] = held(700, 5, 715, ACCT_HOLD_ADMIN,
	            "held by an administrator: launch failed requeued held");
	expect(hints(t, 2), "2 tasks held by an administrator: only an operator or administrator "
	                    "can release them ('scontrol release 700_[4-5]'); ask one\n");
}

static void test_hold_print_dependency(void **state)
{
	struct task_outcome t[2];

	(void)state;
	t[0] = held(700, 0, 0, ACCT_HOLD_DEPENDENCY, "waiting for dependency afterok:699_*");
	expect(hints(t, 1), "1 task waiting for dependency afterok:699_*: it starts once it is "
	                    "met; 'scontrol update JobId=700 Dependency=' drops it\n");
	t[1] = held(700, 1, 0, ACCT_HOLD_DEPENDENCY, "waiting for dependency afterok:699_*");
	expect(hints(t, 2), "2 tasks waiting for dependency afterok:699_*: they start once it is "
	                    "met; 'scontrol update JobId=700 Dependency=' drops it\n");
	/* Different dependencies: the first, and that there are others. */
	t[1] = held(701, 1, 711, ACCT_HOLD_DEPENDENCY, "waiting for dependency afterany:650");
	expect(hints(t, 2), "2 tasks waiting for dependency afterok:699_* (and others): they "
	                    "start once it is met; 'scontrol update JobId=700,701_1 Dependency=' "
	                    "drops it\n");
	/* No reason in words: the kind's. */
	t[0].pending_reason = NULL;
	t[1].pending_reason = NULL;
	expect(hints(t, 2), "2 tasks waiting for a dependency: they start once it is met; "
	                    "'scontrol update JobId=700,701_1 Dependency=' drops it\n");
}

static void test_hold_print_dependency_never(void **state)
{
	struct task_outcome t[2];

	(void)state;
	t[0] = held(700, 2, 712, ACCT_HOLD_DEP_NEVER,
	            "waiting for a dependency that can never be met: afterok:699_*(failed)");
	expect(hints(t, 1), "1 task waiting for a dependency that can never be met: "
	                    "afterok:699_*(failed): it will never start; 'scontrol update "
	                    "JobId=700_2 Dependency=' drops it, or cancel it\n");
	t[1] = held(700, 3, 713, ACCT_HOLD_DEP_NEVER,
	            "waiting for a dependency that can never be met: afterok:699_*(failed)");
	expect(hints(t, 2), "2 tasks waiting for a dependency that can never be met: "
	                    "afterok:699_*(failed): they will never start; 'scontrol update "
	                    "JobId=700_[2-3] Dependency=' drops it, or cancel them\n");
}

static void test_hold_print_begin(void **state)
{
	struct task_outcome t[2];

	(void)state;
	t[0] = held(700, 5, 715, ACCT_HOLD_BEGIN, "begins at 2026-12-06T09:33:10");
	expect(hints(t, 1),
	       "1 task waiting for a begin time (begins at 2026-12-06T09:33:10): it starts by "
	       "itself then; "
	       "'scontrol update JobId=700_5 StartTime=now' starts it now\n");
	t[1] = held(700, 6, 716, ACCT_HOLD_BEGIN, "begins at 2026-12-06T09:33:10");
	expect(hints(t, 2),
	       "2 tasks waiting for a begin time (begins at 2026-12-06T09:33:10): they start by "
	       "themselves then; 'scontrol update JobId=700_[5-6] StartTime=now' starts "
	       "them now\n");
	/* Different times: the first, and that there are others; none: the kind alone. */
	t[1].pending_reason = "begins at 2026-12-07T00:00:00";
	expect(hints(t, 2), "2 tasks waiting for a begin time (begins at 2026-12-06T09:33:10, and "
	                    "others): they start by themselves then; 'scontrol update "
	                    "JobId=700_[5-6] StartTime=now' starts them now\n");
	t[0].pending_reason = NULL;
	t[1].pending_reason = NULL;
	expect(hints(t, 2), "2 tasks waiting for a begin time: they start by themselves then; "
	                    "'scontrol update JobId=700_[5-6] StartTime=now' starts them now\n");
}

/* Kinds in a fixed order (user, admin, dependency, never, begin), whatever the tasks' order. */
static void test_hold_print_kinds_in_order(void **state)
{
	struct task_outcome t[3];
	json_t *j;

	(void)state;
	t[0] = held(700, 5, 715, ACCT_HOLD_BEGIN, "begins at 2026-12-06T09:33:10");
	t[1] = held(700, 4, 714, ACCT_HOLD_ADMIN, "held by an administrator");
	t[2] = held(700, 3, 713, ACCT_HOLD_USER, "held by the user");
	expect(hints(t, 3),
	       "1 task held by the user: release it with 'scontrol release 700_3'\n"
	       "1 task held by an administrator: only an operator or administrator can release "
	       "it ('scontrol release 700_4'); ask one\n"
	       "1 task waiting for a begin time (begins at 2026-12-06T09:33:10): it starts by "
	       "itself then; 'scontrol update JobId=700_5 StartTime=now' starts it now\n");
	j = hold_counts_json(t, 3);
	assert_int_equal(json_object_size(j), 3);
	assert_int_equal(json_integer_value(json_object_get(j, "user")), 1);
	assert_int_equal(json_integer_value(json_object_get(j, "admin")), 1);
	assert_int_equal(json_integer_value(json_object_get(j, "begin")), 1);
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hold_print_kind_text),
	    cmocka_unit_test(test_hold_print_counts),
	    cmocka_unit_test(test_hold_print_none),
	    cmocka_unit_test(test_hold_print_user),
	    cmocka_unit_test(test_hold_print_many_arrays),
	    cmocka_unit_test(test_hold_print_admin),
	    cmocka_unit_test(test_hold_print_dependency),
	    cmocka_unit_test(test_hold_print_dependency_never),
	    cmocka_unit_test(test_hold_print_begin),
	    cmocka_unit_test(test_hold_print_kinds_in_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
