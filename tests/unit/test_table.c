#include "helpers.h"

#include <math.h>

#include "output.h"
#include "table.h"

static char *printed(const struct table *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	table_print(f, t);
	fclose(f);
	return buf;
}

/* Columns as wide as their widest cell, two spaces apart; "±" is one column. */
static void test_table_left_aligned(void **state)
{
	static const char *const head[] = {"NAME", "MEAN", "LOG"};
	struct table t;
	char *out;

	(void)state;
	table_init_head(&t, head, 3);
	table_addstr(&t, "a");
	table_addstr(&t, "1 ± 2");
	table_addstr(&t, "x.log");
	table_add(&t, xstrdup("longer"));
	table_addstr(&t, "3");
	table_addstr(&t, "y");
	out = printed(&t);
	assert_string_equal(out, "NAME    MEAN   LOG\n"
	                         "a       1 ± 2  x.log\n"
	                         "longer  3      y\n");
	free(out);
	table_release(&t);
}

/* A right-aligned column pads on the left, its header too. */
static void test_table_right_aligned(void **state)
{
	static const char *const head[] = {"ID", "TASKS", "NAME"};
	struct table t;
	char *out;

	(void)state;
	table_init_head(&t, head, 3);
	table_align_right(&t, 0);
	table_align_right(&t, 1);
	table_addstr(&t, "7");
	table_addstr(&t, "1200");
	table_addstr(&t, "a");
	table_addstr(&t, "12");
	table_addstr(&t, "3");
	table_addstr(&t, "b");
	out = printed(&t);
	assert_string_equal(out, "ID  TASKS  NAME\n"
	                         " 7   1200  a\n"
	                         "12      3  b\n");
	free(out);
	table_release(&t);
}

/* Empty cells at the end of a row leave no trailing blanks. */
static void test_table_no_trailing_blanks(void **state)
{
	static const char *const head[] = {"A", "OVERHEAD", ""};
	struct table t;
	char *out;

	(void)state;
	table_init_head(&t, head, 3);
	table_align_right(&t, 1);
	table_addstr(&t, "x");
	table_addstr(&t, "1.5%");
	table_addstr(&t, "best");
	table_addstr(&t, "yy");
	table_addstr(&t, "20.0%");
	table_addstr(&t, "");
	out = printed(&t);
	assert_string_equal(out, "A   OVERHEAD\n"
	                         "x       1.5%  best\n"
	                         "yy     20.0%\n");
	free(out);
	table_release(&t);
}

static void test_table_output_helpers(void **state)
{
	json_t *j;

	(void)state;
	assert_string_equal(output_plural(1, "", "s"), "");
	assert_string_equal(output_plural(0, "", "s"), "s");
	assert_string_equal(output_plural(2, "it", "they"), "they");
	j = output_json_number_or_null(true, 0.5);
	assert_true(json_is_real(j));
	json_decref(j);
	j = output_json_number_or_null(false, 0.5);
	assert_true(json_is_null(j));
	json_decref(j);
	j = output_json_number_or_null(true, NAN);
	assert_true(json_is_null(j));
	json_decref(j);
}

static void test_table_json_print(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json_t *root = json_object();

	(void)state;
	json_object_set_new(root, "a", json_integer(1));
	output_json_print(f, root, JSON_COMPACT);
	fclose(f);
	assert_string_equal(buf, "{\"a\":1}\n");
	free(buf);
}

/*
 * A value or key with an escape sequence or a newline reaches the terminal
 * escaped, as CSV and JSON already do, and keeps the columns (issue 16.9).
 */
static void test_table_escapes_control_bytes(void **state)
{
	static const char *const head[] = {"value", "n"};
	struct table t;
	char *out;

	(void)state;
	table_init_head(&t, head, 2);
	table_addstr(&t, "\x1b[2Jred\nline\ttab\\");
	table_addstr(&t, "1");
	table_addstr(&t, "a\\b");
	table_addstr(&t, "\x7f");
	out = printed(&t);
	assert_string_equal(out, "value                    n\n"
	                         "\\x1b[2Jred\\nline\\ttab\\\\  1\n"
	                         "a\\b                      \\x7f\n");
	free(out);
	table_release(&t);
}

/* Bytes that are not UTF-8 (Latin-1 from a CSV header), a C1 control: escaped too. */
static void test_table_escapes_invalid_utf8(void **state)
{
	static const char *const head[] = {"metric", "n"};
	struct table t;
	char *out;

	(void)state;
	table_init_head(&t, head, 2);
	table_addstr(&t, "pr\351cision");
	table_addstr(&t, "\302\2332J");
	table_addstr(&t, "\xc3\xa9t\xc3\xa9");
	table_addstr(&t, "\xed\xa0\x80");
	out = printed(&t);
	assert_string_equal(out, "metric        n\n"
	                         "pr\\xe9cision  \\xc2\\x9b2J\n"
	                         "\xc3\xa9t\xc3\xa9           \\xed\\xa0\\x80\n");
	free(out);
	table_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_table_left_aligned),
	    cmocka_unit_test(test_table_right_aligned),
	    cmocka_unit_test(test_table_no_trailing_blanks),
	    cmocka_unit_test(test_table_output_helpers),
	    cmocka_unit_test(test_table_json_print),
	    cmocka_unit_test(test_table_escapes_control_bytes),
	    cmocka_unit_test(test_table_escapes_invalid_utf8),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
