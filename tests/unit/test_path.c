#include "path.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "helpers.h"

#include "banned.h"

static void test_path_absolute(void **state)
{
	static const struct {
		const char *path, *want;
	} cases[] = {
	    {"/a/b", "/a/b"}, {"a", "/w/a"}, {"./a", "/w/a"}, {"././a/./b", "/w/a/./b"},
	    {".", "/w"},      {"./.", "/w"}, {"..", "/w/.."}, {".sweep", "/w/.sweep"},
	    {"", "/w/"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = path_absolute(cases[i].path, "/w");

		if (strcmp(got, cases[i].want))
			fail_msg("'%s': '%s', not '%s'", cases[i].path, got, cases[i].want);
		free(got);
	}
}

static void test_path_mkdir_p(void **state)
{
	char *dir = make_tmpdir();
	char *deep = xstrfmt("%s/a/b/c", dir);
	char *file = xstrfmt("%s/file", dir);
	char *under_file = xstrfmt("%s/file/x", dir);
	char *want;
	struct stat st;
	FILE *f;

	(void)state;
	assert_int_equal(path_mkdir_p(deep), 0);
	assert_int_equal(stat(deep, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(path_mkdir_p(deep), 0); /* there already: fine */

	f = fopen(file, "w");
	assert_non_null(f);
	fclose(f);
	capture_errors();
	assert_int_equal(path_mkdir_p(under_file), SWEEP_ERR);
	want = xstrfmt("error: cannot create folder '%s': Not a directory", under_file);
	assert_string_equal(captured.buf, want);
	release_captured();

	remove_tree(dir);
	free(want);
	free(under_file);
	free(file);
	free(deep);
	free(dir);
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	assert_int_equal(lstat(path, &st), 0);
	return st.st_mode & 07777;
}

/* The umasks a caller may have: none, a group-sharing one, and one clearing owner bits. */
static const mode_t umasks[] = {0, 002, 022, 0277};

static void test_path_mkdir_p_not_writable_by_others(void **state)
{
	char *dir = make_tmpdir(), *deep = xstrfmt("%s/a/b", dir), *a = xstrfmt("%s/a", dir);
	mode_t old = umask(0);

	(void)state;
	assert_int_equal(path_mkdir_p(deep), 0);
	umask(old);
	assert_int_equal(mode_of(a), 0755);
	assert_int_equal(mode_of(deep), 0755);
	remove_tree(dir);
	free(a);
	free(deep);
	free(dir);
}

static void test_path_mkdir_private_modes(void **state)
{
	char *dir = make_tmpdir();

	(void)state;
	for (size_t i = 0; i < sizeof(umasks) / sizeof(umasks[0]); i++) {
		char *top = xstrfmt("%s/%zu", dir, i), *sub = xstrfmt("%s/%zu/x/state", dir, i);
		mode_t old = umask(umasks[i]);

		assert_int_equal(path_mkdir_private(sub, "state folder", false), 0);
		/* There already and private: fine. */
		assert_int_equal(path_mkdir_private(sub, "state folder", false), 0);
		umask(old);
		if (mode_of(sub) != PATH_PRIVATE_DIR)
			fail_msg("umask %03o: folder mode %03o", umasks[i], mode_of(sub));
		/* The folders above are the caller's, never writable by others. */
		assert_int_equal(mode_of(top) & 022, 0);
		chmod(top, 0700);
		free(top);
		free(sub);
	}
	remove_tree(dir);
	free(dir);
}

static void test_path_mkdir_private_errors(void **state)
{
	char *dir = make_tmpdir(), *sub = xstrfmt("%s/s", dir), *file = xstrfmt("%s/f", dir);
	char *under = xstrfmt("%s/f/x", dir), *want;
	int fd;

	(void)state;
	capture_errors();
	assert_int_equal(path_mkdir_private(sub, "sweep folder", true), 0);
	assert_int_equal(path_mkdir_private(sub, "sweep folder", true), SWEEP_ERR);
	want = xstrfmt("error: cannot make the sweep folder '%s': it exists already", sub);
	assert_string_equal(captured.buf, want);
	free(want);

	strbuf_reset(&captured);
	chmod(sub, 0770);
	assert_int_equal(path_mkdir_private(sub, "state folder", false), SWEEP_ERR);
	want = xstrfmt("error: refusing the state folder '%s': it is writable by its group, who "
	               "could change what sweep reads and runs; make it yours alone with: chmod "
	               "go-w '%s'",
	               sub, sub);
	assert_string_equal(captured.buf, want);
	free(want);

	strbuf_reset(&captured);
	fd = open(file, O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(path_mkdir_private(under, "state folder", false), SWEEP_ERR);
	want = xstrfmt("error: cannot create folder '%s': Not a directory", under);
	assert_string_equal(captured.buf, want);
	free(want);
	release_captured();
	remove_tree(dir);
	free(under);
	free(file);
	free(sub);
	free(dir);
}

static void test_path_check_private_messages(void **state)
{
	static const struct {
		mode_t mode;
		const char *who;
	} cases[] = {
	    {0770, "its group"},
	    {0702, "others"},
	    {0777, "group and others"},
	    {01777, "group and others"},
	};
	char *dir = make_tmpdir(), *sub = xstrfmt("%s/it's", dir), *file = xstrfmt("%s/f", dir);
	char *missing = xstrfmt("%s/none", dir), *want;
	int fd;

	(void)state;
	assert_int_equal(mkdir(sub, 0700), 0);
	capture_errors();
	assert_int_equal(path_check_private(sub, "task folder"), 0);
	chmod(sub, 0755); /* readable by others is fine */
	assert_int_equal(path_check_private(sub, "task folder"), 0);
	assert_string_equal(captured.buf, "");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		strbuf_reset(&captured);
		chmod(sub, cases[i].mode);
		assert_int_equal(path_check_private(sub, "task folder"), SWEEP_ERR);
		want = xstrfmt("error: refusing the task folder '%s': it is writable by %s, who "
		               "could change what sweep reads and runs; make it yours alone with: "
		               "chmod go-w '%s/it'\\''s'",
		               sub, cases[i].who, dir);
		assert_string_equal(captured.buf, want);
		free(want);
	}

	/* Owned by someone else (the tests run as root, who may give it away). */
	strbuf_reset(&captured);
	chmod(sub, 0700);
	if (geteuid() == 0) {
		assert_int_equal(chown(sub, 65534, 65534), 0);
		assert_int_equal(path_check_private(sub, "state folder"), SWEEP_ERR);
		assert_non_null(strstr(captured.buf, "uid 65534"));
		want = xstrfmt("error: refusing the state folder '%s': it belongs to ", sub);
		assert_memory_equal(captured.buf, want, strlen(want));
		free(want);
		assert_non_null(strstr(captured.buf, "), not to you, who could change what sweep "
		                                     "reads and runs; use a folder of your own"));
	}

	strbuf_reset(&captured);
	fd = open(file, O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(path_check_private(file, "state folder"), SWEEP_ERR);
	want = xstrfmt("error: the state folder '%s' is not a folder", file);
	assert_string_equal(captured.buf, want);
	free(want);

	strbuf_reset(&captured);
	assert_int_equal(path_check_private(missing, "state folder"), SWEEP_ERR);
	want =
	    xstrfmt("error: cannot read the state folder '%s': No such file or directory", missing);
	assert_string_equal(captured.buf, want);
	free(want);
	release_captured();
	remove_tree(dir);
	free(missing);
	free(file);
	free(sub);
	free(dir);
}

static void test_path_open_private_modes(void **state)
{
	char *dir = make_tmpdir(), *file = xstrfmt("%s/f", dir), *link = xstrfmt("%s/l", dir);
	char *old_file = xstrfmt("%s/old", dir);
	int fd;

	(void)state;
	for (size_t i = 0; i < sizeof(umasks) / sizeof(umasks[0]); i++) {
		mode_t old = umask(umasks[i]);

		unlink(file);
		fd = path_open_private(file, O_WRONLY | O_APPEND, PATH_PRIVATE_FILE);
		umask(old);
		assert_true(fd >= 0);
		assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
		close(fd);
		if (mode_of(file) != PATH_PRIVATE_FILE)
			fail_msg("umask %03o: file mode %03o", umasks[i], mode_of(file));
	}
	/* A file that is there keeps its mode, and is opened, not made again. */
	fd = open(old_file, O_WRONLY | O_CREAT, 0640);
	assert_true(fd >= 0);
	close(fd);
	chmod(old_file, 0640);
	fd = path_open_private(old_file, O_RDWR, PATH_PRIVATE_FILE);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(mode_of(old_file), 0640);
	/* Never through a link: someone else's file is never opened for us. */
	assert_int_equal(symlink(old_file, link), 0);
	assert_int_equal(path_open_private(link, O_WRONLY, PATH_PRIVATE_FILE), -1);
	assert_int_equal(errno, ELOOP);
	remove_tree(dir);
	free(old_file);
	free(link);
	free(file);
	free(dir);
}

static void test_path_write_file_modes(void **state)
{
	char *dir = make_tmpdir(), *file = xstrfmt("%s/script", dir);
	char *tmp = xstrfmt("%s.tmp", file), *want;
	struct strbuf got = STRBUF_INIT;
	mode_t old;
	int fd;

	(void)state;
	/* A left-over temporary file, writable by all, is not reused. */
	fd = open(tmp, O_WRONLY | O_CREAT, 0666);
	assert_true(fd >= 0);
	close(fd);
	chmod(tmp, 0666);
	old = umask(0);
	assert_int_equal(path_write_file(file, "#!/bin/bash\n", 12, PATH_PRIVATE_EXEC), 0);
	umask(old);
	assert_int_equal(mode_of(file), PATH_PRIVATE_EXEC);
	assert_int_equal(access(tmp, F_OK), -1);
	assert_int_equal(strbuf_read_file(&got, file), 0);
	assert_string_equal(got.buf, "#!/bin/bash\n");

	old = umask(002);
	assert_int_equal(path_write_file(file, "x", 1, PATH_PRIVATE_FILE), 0);
	umask(old);
	assert_int_equal(mode_of(file), PATH_PRIVATE_FILE);

	capture_errors();
	free(file);
	file = xstrfmt("%s/none/settings", dir);
	assert_int_equal(path_write_file(file, "x", 1, PATH_PRIVATE_FILE), SWEEP_ERR);
	want = xstrfmt("error: cannot write '%s.tmp': No such file or directory", file);
	assert_string_equal(captured.buf, want);
	free(want);
	release_captured();
	strbuf_release(&got);
	remove_tree(dir);
	free(tmp);
	free(file);
	free(dir);
}

static void test_path_umask(void **state)
{
	mode_t old = umask(027);

	(void)state;
	assert_int_equal(path_umask(), 027);
	assert_int_equal(path_umask(), 027); /* reading it leaves it */
	umask(old);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_path_absolute),
	    cmocka_unit_test(test_path_mkdir_p),
	    cmocka_unit_test(test_path_mkdir_p_not_writable_by_others),
	    cmocka_unit_test(test_path_mkdir_private_modes),
	    cmocka_unit_test(test_path_mkdir_private_errors),
	    cmocka_unit_test(test_path_check_private_messages),
	    cmocka_unit_test(test_path_open_private_modes),
	    cmocka_unit_test(test_path_write_file_modes),
	    cmocka_unit_test(test_path_umask),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
