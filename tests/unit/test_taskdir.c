#include "taskdir.h"

#include <sys/stat.h>

#include "helpers.h"

#include "banned.h"

static void test_taskdir_layout_from(void **state)
{
	static const int64_t bad[] = {2, -1, 1000};
	enum taskdir_layout got = TASKDIR_GROUPED;

	(void)state;
	assert_int_equal(taskdir_layout_from(&got, 0, 7), 0);
	assert_int_equal(got, TASKDIR_FLAT);
	assert_int_equal(taskdir_layout_from(&got, 1, 7), 0);
	assert_int_equal(got, TASKDIR_GROUPED);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *want = xstrfmt("error: sweep 7 has task folder layout %lld, which this sweep "
		                     "does not know: a newer sweep submitted it; read it with that "
		                     "version",
		                     (long long)bad[i]);

		capture_errors();
		got = TASKDIR_GROUPED;
		assert_int_equal(taskdir_layout_from(&got, bad[i], 7), SWEEP_ERR);
		assert_int_equal(got, TASKDIR_GROUPED); /* left alone */
		assert_string_equal(captured.buf, want);
		release_captured();
		free(want);
	}
}

static const struct {
	enum taskdir_layout layout;
	size_t index;
	const char *want;
} paths[] = {
    {TASKDIR_FLAT, 0, "/s p/tasks/0"},
    {TASKDIR_FLAT, 123456, "/s p/tasks/123456"},
    {TASKDIR_GROUPED, 0, "/s p/tasks/0/0"},
    {TASKDIR_GROUPED, 999, "/s p/tasks/0/999"},
    {TASKDIR_GROUPED, 1000, "/s p/tasks/1/1000"},
    {TASKDIR_GROUPED, 123456, "/s p/tasks/123/123456"},
    {TASKDIR_GROUPED, 999999, "/s p/tasks/999/999999"},
};

static void test_taskdir_paths(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		char *got = taskdir_path("/s p", paths[i].layout, paths[i].index);
		char *want = xstrfmt("%s/.ran", paths[i].want);

		assert_string_equal(got, paths[i].want);
		free(got);
		got = taskdir_file("/s p", paths[i].layout, paths[i].index, ".ran");
		assert_string_equal(got, want);
		free(got);
		free(want);
	}
}

/* The script's computation (taskdir_shell) names the same folder as the C readers. */
static void test_taskdir_shell_matches_path(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		struct strbuf body = STRBUF_INIT;
		char *index = xstrfmt("%zu", paths[i].index), *got;

		strbuf_addstr(&body, "SWEEP_DIR=$1 SWEEP_TASK_INDEX=$2\nSWEEP_TASK_DIR=");
		taskdir_shell(&body, paths[i].layout);
		strbuf_addstr(&body, "\nprintf %s \"$SWEEP_TASK_DIR\"");
		got = run_bash(body.buf, (const char *[]){"/s p", index, NULL});
		assert_string_equal(got, paths[i].want);
		free(got);
		free(index);
		strbuf_release(&body);
	}
}

static void test_taskdir_pattern(void **state)
{
	char *got;

	(void)state;
	got = taskdir_pattern("/s", TASKDIR_FLAT);
	assert_string_equal(got, "/s/tasks/<index>");
	free(got);
	got = taskdir_pattern("/s", TASKDIR_GROUPED);
	assert_string_equal(got, "/s/tasks/<index / 1000>/<index>");
	free(got);
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	return st.st_mode & 07777;
}

static void test_taskdir_make(void **state)
{
	char *dir = make_tmpdir();
	mode_t old = umask(0);
	char *p;

	(void)state;
	assert_int_equal(taskdir_make(dir, TASKDIR_GROUPED, 1042), 0);
	assert_int_equal(taskdir_make(dir, TASKDIR_GROUPED, 1043), 0); /* group there already */
	assert_int_equal(taskdir_make(dir, TASKDIR_GROUPED, 1042), 0); /* and the task's */
	assert_int_equal(taskdir_make(dir, TASKDIR_FLAT, 7), 0);
	umask(old);
	for (size_t i = 0; i < 4; i++) {
		static const char *const made[] = {"tasks", "tasks/1", "tasks/1/1042", "tasks/7"};

		p = xstrfmt("%s/%s", dir, made[i]);
		if (mode_of(p) != 0700)
			fail_msg("%s: mode %03o", made[i], mode_of(p));
		free(p);
	}
	remove_tree(dir);
	free(dir);
}

/* A folder on the way that others may write is refused, named as what it is. */
static void test_taskdir_make_errors(void **state)
{
	static const struct {
		const char *open; /* made writable by others */
		const char *what;
	} cases[] = {
	    {"tasks", "tasks folder"},
	    {"tasks/1", "task group folder"},
	    {"tasks/1/1042", "task folder"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *dir = make_tmpdir();
		char *open = xstrfmt("%s/%s", dir, cases[i].open), *want;

		assert_int_equal(taskdir_make(dir, TASKDIR_GROUPED, 1042), 0);
		assert_int_equal(chmod(open, 0777), 0);
		capture_errors();
		assert_int_equal(taskdir_make(dir, TASKDIR_GROUPED, 1042), SWEEP_ERR);
		want = xstrfmt("error: refusing the %s '%s': it is writable by group and others, "
		               "who could change what sweep reads and runs; make it yours alone "
		               "with: chmod go-w '%s'",
		               cases[i].what, open, open);
		assert_string_equal(captured.buf, want);
		release_captured();
		free(want);
		free(open);
		remove_tree(dir);
		free(dir);
	}
	{
		/* Something not a folder where the group folder goes. */
		char *dir = make_tmpdir(), *tasks = xstrfmt("%s/tasks", dir);
		char *group = xstrfmt("%s/1", tasks), *want;
		FILE *f;

		assert_int_equal(taskdir_make(dir, TASKDIR_FLAT, 0), 0);
		f = fopen(group, "w");
		assert_non_null(f);
		fclose(f);
		capture_errors();
		assert_int_equal(taskdir_make(dir, TASKDIR_GROUPED, 1042), SWEEP_ERR);
		want = xstrfmt("error: the task group folder '%s' is not a folder", group);
		assert_string_equal(captured.buf, want);
		release_captured();
		free(want);
		free(group);
		free(tasks);
		remove_tree(dir);
		free(dir);
	}
}

static void test_taskdir_private_problem(void **state)
{
	char *dir = make_tmpdir(), *group = xstrfmt("%s/tasks/1", dir);
	char *task = xstrfmt("%s/1042", group), *why, *want;

	(void)state;
	/* Nothing there yet: nothing to refuse. */
	assert_null(taskdir_private_problem(dir, TASKDIR_GROUPED, 1042, NULL));
	assert_int_equal(taskdir_make(dir, TASKDIR_GROUPED, 1042), 0);
	assert_null(taskdir_private_problem(dir, TASKDIR_GROUPED, 1042, NULL));
	assert_null(
	    taskdir_private_problem(dir, TASKDIR_FLAT, 1, NULL)); /* tasks/1: the group, fine */
	assert_int_equal(chmod(task, 0702), 0);
	why = taskdir_private_problem(dir, TASKDIR_GROUPED, 1042, NULL);
	want = xstrfmt("refusing the task folder '%s': it is writable by others, who could "
	               "change what sweep reads and runs; make it yours alone with: chmod go-w "
	               "'%s'",
	               task, task);
	assert_string_equal(why, want);
	free(why);
	free(want);
	/* The group folder first: it guards every task folder in it. */
	assert_int_equal(chmod(group, 0720), 0);
	why = taskdir_private_problem(dir, TASKDIR_GROUPED, 1042, NULL);
	want = xstrfmt("refusing the task group folder '%s': it is writable by its group, who "
	               "could change what sweep reads and runs; make it yours alone with: chmod "
	               "go-w '%s'",
	               group, group);
	assert_string_equal(why, want);
	free(why);
	free(want);
	/* A memo that found the group fine skips it; one that did not checks again. */
	{
		struct taskdir_memo memo = {true, 1};

		assert_int_equal(chmod(task, 0700), 0);
		why = taskdir_private_problem(dir, TASKDIR_GROUPED, 1042, &memo);
		assert_null(why); /* group 1 taken as fine, the task folder is */
		memo.group = 2;
		why = taskdir_private_problem(dir, TASKDIR_GROUPED, 1042, &memo);
		assert_non_null(strstr(why, "refusing the task group folder '"));
		assert_false(memo.ok);
		assert_int_equal(memo.group, 1);
		free(why);
		why = taskdir_private_problem(dir, TASKDIR_GROUPED, 1042, &memo);
		assert_non_null(strstr(why, "refusing the task group folder '")); /* still */
		free(why);
		assert_int_equal(chmod(group, 0700), 0);
		why = taskdir_private_problem(dir, TASKDIR_GROUPED, 1042, &memo);
		assert_null(why);
		assert_true(memo.ok);
		assert_int_equal(chmod(group, 0720), 0);
	}
	/* A flat sweep's task 1 is that folder, named as a task folder. */
	why = taskdir_private_problem(dir, TASKDIR_FLAT, 1, NULL);
	assert_non_null(strstr(why, "refusing the task folder '"));
	free(why);
	remove_tree(dir);
	free(task);
	free(group);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_taskdir_layout_from),
	    cmocka_unit_test(test_taskdir_paths),
	    cmocka_unit_test(test_taskdir_shell_matches_path),
	    cmocka_unit_test(test_taskdir_pattern),
	    cmocka_unit_test(test_taskdir_make),
	    cmocka_unit_test(test_taskdir_make_errors),
	    cmocka_unit_test(test_taskdir_private_problem),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
