#include "script_stage.h"

#include <sys/stat.h>

#include "helpers.h"

#include "banned.h"

/*
 * script_stage_remove against a stage someone else prepared. Each test
 * builds, with bash, a base (as /tmp) holding the stage "st" and a folder
 * "home" beside it standing for the caller's own files; the removal must
 * leave every file of home in place. The tests run as root: "someone else"
 * is uid 65534.
 */

/* A base with home/ (the caller's files) and home/leases/ (files named as leases). */
static char *make_base(void)
{
	char *base = make_tmpdir();
	const char *args[] = {base, NULL};

	free(run_bash("set -e; cd \"$1\"; umask 077; mkdir -p home/leases home/data;"
	              "echo precious >home/file; echo lease >home/leases/1.0.1;"
	              "echo data >home/data/x; : >home/lock",
	              args));
	return base;
}

/* Fails the test unless home/ still holds every file make_base put there. */
static void assert_home_intact(const char *base)
{
	static const char *files[] = {"home/file", "home/leases/1.0.1", "home/data/x", "home/lock"};

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *path = xstrfmt("%s/%s", base, files[i]);
		struct stat st;

		if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode))
			fail_msg("'%s' was removed", path);
		free(path);
	}
}

/* Runs script (with $1 the base) to plant the stage, then removes it, expecting an error. */
static void expect_refused(const char *plant, const char *message)
{
	char *base = make_base(), *stage = xstrfmt("%s/st", base);
	const char *args[] = {base, NULL};
	struct stat st;

	free(run_bash(plant, args));
	capture_errors();
	assert_int_equal(script_stage_remove(base, "st"), SWEEP_ERR);
	if (!strstr(captured.buf, message))
		fail_msg("expected '%s' in: %s", message, captured.buf);
	release_captured();
	assert_home_intact(base);
	assert_int_equal(lstat(stage, &st), 0); /* left where it was */
	remove_tree(base);
	free(stage);
	free(base);
}

static void test_script_stage_remove_refuses_symlink(void **state)
{
	(void)state;
	expect_refused("ln -s \"$1/home\" \"$1/st\"",
	               "it is a symbolic link (owned by user 'root' (uid 0)), not a folder "
	               "sweep made");
}

static void test_script_stage_remove_refuses_other_owner(void **state)
{
	(void)state;
	/* Made first by someone else, open to all, its leases a link into home. */
	expect_refused(
	    "set -e; mkdir -m 777 \"$1/st\"; : >\"$1/st/lock\"; chmod 666 \"$1/st/lock\";"
	    "ln -s \"$1/home/leases\" \"$1/st/leases\"; ln -s \"$1/home\" \"$1/st/data\";"
	    "chown -h -R 65534:65534 \"$1/st\"",
	    "belongs to user 'nobody' (uid 65534), not to you");
}

static void test_script_stage_remove_refuses_wrong_mode(void **state)
{
	(void)state;
	expect_refused("set -e; mkdir -m 755 \"$1/st\" \"$1/st/leases\"; : >\"$1/st/lock\";"
	               "echo copy >\"$1/st/x\"",
	               "its mode is 0755, not 0700 as sweep makes it");
}

static void test_script_stage_remove_follows_no_link_inside(void **state)
{
	(void)state;
	/* The caller's own stage, but its leases folder is a link out of it. */
	expect_refused("set -e; umask 077; mkdir \"$1/st\"; : >\"$1/st/lock\";"
	               "ln -s \"$1/home/leases\" \"$1/st/leases\"",
	               "is a symbolic link (owned by user 'root' (uid 0)), not a folder");
}

static void test_script_stage_remove_own_stage_keeps_link_targets(void **state)
{
	char *base = make_base(), *stage = xstrfmt("%s/st", base);
	const char *args[] = {base, NULL};
	struct stat st;

	(void)state;
	free(run_bash(
	    "set -e; umask 077; mkdir -p \"$1/st/leases\" \"$1/st/data/a/b\";"
	    ": >\"$1/st/lock\"; : >\"$1/st/leases/9.0.1\"; echo x >\"$1/st/data/a/b/f\";"
	    "ln -s \"$1/home\" \"$1/st/data/home\"; ln -s \"$1/home/file\" \"$1/st/data/a/f\";"
	    "ln -s \"$1/home/data\" \"$1/st/data/a/b/d\"; mkfifo \"$1/st/data/fifo\"",
	    args));
	assert_int_equal(script_stage_remove(base, "st"), 1);
	assert_int_equal(lstat(stage, &st), -1);
	assert_home_intact(base);
	/* Gone or absent is not an error, and removes nothing. */
	assert_int_equal(script_stage_remove(base, "st"), 0);
	assert_home_intact(base);
	remove_tree(base);
	free(stage);
	free(base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_script_stage_remove_refuses_symlink),
	    cmocka_unit_test(test_script_stage_remove_refuses_other_owner),
	    cmocka_unit_test(test_script_stage_remove_refuses_wrong_mode),
	    cmocka_unit_test(test_script_stage_remove_follows_no_link_inside),
	    cmocka_unit_test(test_script_stage_remove_own_stage_keeps_link_targets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
