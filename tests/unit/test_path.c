#include "path.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_path_absolute),
	    cmocka_unit_test(test_path_mkdir_p),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
