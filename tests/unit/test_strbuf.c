#include "strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "helpers.h"
#include "path.h"

#include "banned.h"

/* Appending past any first size keeps every byte, and buf stays a C string. */
static void test_strbuf_grows(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	assert_string_equal(sb.buf, "");
	for (int i = 0; i < 1000; i++)
		strbuf_addf(&sb, "%d,", i % 10);
	assert_int_equal(sb.len, 2000);
	assert_int_equal(strlen(sb.buf), 2000);
	assert_memory_equal(sb.buf + 1990, "5,6,7,8,9,", 10);
	strbuf_release(&sb);
	assert_string_equal(sb.buf, "");
}

/* detach hands the buffer over and leaves an empty strbuf that still works. */
static void test_strbuf_detach(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	size_t len = 0;
	char *s, *empty;

	(void)state;
	strbuf_addstr(&sb, "held");
	s = strbuf_detach(&sb, &len);
	assert_string_equal(s, "held");
	assert_int_equal(len, 4);
	assert_int_equal(sb.len, 0);
	strbuf_addch(&sb, 'x');
	assert_string_equal(sb.buf, "x");
	strbuf_release(&sb);
	/* Never NULL, even when nothing was added. */
	empty = strbuf_detach(&sb, NULL);
	assert_non_null(empty);
	assert_string_equal(empty, "");
	free(empty);
	free(s);
}

static void test_strbuf_trim_trailing_newlines(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	strbuf_addstr(&sb, "line\nlast\n\n\n");
	strbuf_trim_trailing_newlines(&sb);
	assert_string_equal(sb.buf, "line\nlast");
	strbuf_release(&sb);
}

/* A user's text in a message: control bytes escaped, invalid UTF-8 as \xHH, cut after 60 bytes. */
static void test_strbuf_add_shown(void **state)
{
	static const struct {
		const char *in, *shown;
	} cases[] = {
	    {"plain", "plain"},
	    {"two\nlines\tand tab", "two\\nlines\\tand tab"},
	    {"bell\a", "bell\\x07"},
	    {"caf\xe9", "caf\\xe9"},
	    {"ünïcødé", "ünïcødé"},
	    {"123456789012345678901234567890123456789012345678901234567890",
	     "123456789012345678901234567890123456789012345678901234567890"},
	    {"1234567890123456789012345678901234567890123456789012345678901",
	     "123456789012345678901234567890123456789012345678901234567890..."},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strbuf sb = STRBUF_INIT;

		strbuf_add_shown(&sb, cases[i].in);
		assert_string_equal(sb.buf, cases[i].shown);
		strbuf_release(&sb);
	}
}

static void test_strbuf_plain_and_escaped(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	assert_true(strbuf_is_plain("ünïcødé ✓"));
	assert_false(strbuf_is_plain("esc\x1b[2J"));
	assert_false(strbuf_is_plain("caf\xe9"));
	assert_false(strbuf_is_plain("\xc2\x85")); /* C1 NEL */
	strbuf_add_escaped(&sb, "plain ✓");
	assert_string_equal(sb.buf, "plain ✓");
	strbuf_reset(&sb);
	strbuf_add_escaped(&sb, "a\\b\nc\x1b\xe9");
	assert_string_equal(sb.buf, "a\\\\b\\nc\\x1b\\xe9");
	assert_true(strbuf_is_plain(sb.buf));
	strbuf_release(&sb);
}

/* strbuf_read_file_max refuses what is larger than max, not a regular file, or a link. */
static void test_strbuf_read_file_max(void **state)
{
	char *dir = make_tmpdir();
	char *file = xstrfmt("%s/a file", dir), *link = xstrfmt("%s/link", dir);
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	assert_int_equal(path_write_file(file, "0123456789", 10, PATH_PRIVATE_FILE), 0);
	assert_int_equal(strbuf_read_file_max(&sb, file, 10, 0), 0);
	assert_string_equal(sb.buf, "0123456789");
	strbuf_reset(&sb);
	errno = 0;
	assert_int_equal(strbuf_read_file_max(&sb, file, 9, 0), -1);
	assert_int_equal(errno, EFBIG);
	strbuf_reset(&sb);
	errno = 0;
	assert_int_equal(strbuf_read_file_max(&sb, dir, 100, 0), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(symlink(file, link), 0);
	strbuf_reset(&sb);
	assert_int_equal(strbuf_read_file_max(&sb, link, 100, 0), 0);
	assert_string_equal(sb.buf, "0123456789");
	strbuf_reset(&sb);
	errno = 0;
	assert_int_equal(strbuf_read_file_max(&sb, link, 100, STRBUF_READ_NOFOLLOW), -1);
	assert_int_equal(errno, ELOOP);
	strbuf_release(&sb);
	remove_tree(dir);
	free(link);
	free(file);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_strbuf_grows),
	    cmocka_unit_test(test_strbuf_detach),
	    cmocka_unit_test(test_strbuf_trim_trailing_newlines),
	    cmocka_unit_test(test_strbuf_add_shown),
	    cmocka_unit_test(test_strbuf_plain_and_escaped),
	    cmocka_unit_test(test_strbuf_read_file_max),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
