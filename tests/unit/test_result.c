#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "result.h"
#include "strbuf.h"

#include "helpers.h"

#include "banned.h"

#define FIXTURE(name) SWEEP_TEST_DATA "/results/" name

static void read_fixture(struct result *res, const char *path)
{
	result_init(res);
	result_read(res, path);
}

static char *describe(const struct result *res)
{
	struct strbuf sb = STRBUF_INIT;

	result_describe(&sb, res);
	return strbuf_detach(&sb, NULL);
}

static void assert_number(const struct result *res, const char *key, double value)
{
	const struct result_entry *e = result_find(res, key);

	assert_non_null(e);
	assert_int_equal(e->kind, RESULT_NUMBER);
	assert_true(e->value == value);
	assert_null(e->what);
}

static void assert_other(const struct result *res, const char *key, enum result_kind kind,
                         const char *what)
{
	const struct result_entry *e = result_find(res, key);

	assert_non_null(e);
	assert_int_equal(e->kind, kind);
	assert_true(isnan(e->value));
	assert_string_equal(e->what, what);
}

static void test_result_valid(void **state)
{
	struct result res;

	(void)state;
	read_fixture(&res, FIXTURE("valid.json"));
	assert_int_equal(res.status, RESULT_OK);
	assert_null(res.detail);
	assert_int_equal(res.nentries, 4);
	/* Sorted by key. */
	assert_string_equal(res.entries[0].key, "accuracy");
	assert_string_equal(res.entries[1].key, "checkpoint");
	assert_string_equal(res.entries[2].key, "converged");
	assert_string_equal(res.entries[3].key, "loss");
	assert_number(&res, "accuracy", 0.912);
	assert_number(&res, "loss", 0.31);
	assert_other(&res, "checkpoint", RESULT_OTHER, "a string");
	assert_other(&res, "converged", RESULT_OTHER, "a boolean");
	assert_null(result_find(&res, "epochs"));
	result_release(&res);
}

static void test_result_integers_are_numbers(void **state)
{
	struct result res;

	(void)state;
	read_fixture(&res, FIXTURE("ints.json"));
	assert_int_equal(res.status, RESULT_OK);
	assert_number(&res, "epochs", 20.0);
	assert_number(&res, "steps", -3.0);
	assert_number(&res, "zero", 0.0);
	result_release(&res);
}

static void test_result_nested_values_ignored(void **state)
{
	struct result res;

	(void)state;
	read_fixture(&res, FIXTURE("nested.json"));
	assert_int_equal(res.status, RESULT_OK);
	assert_number(&res, "accuracy", 0.9);
	assert_other(&res, "history", RESULT_OTHER, "an object");
	assert_other(&res, "tags", RESULT_OTHER, "an array");
	assert_other(&res, "note", RESULT_OTHER, "null");
	/* Keys inside nested objects are not metrics. */
	assert_null(result_find(&res, "loss"));
	result_release(&res);
}

static void test_result_invalid_json_has_position(void **state)
{
	struct result res;
	char *why;

	(void)state;
	read_fixture(&res, FIXTURE("invalid.json"));
	assert_int_equal(res.status, RESULT_INVALID);
	assert_int_equal(res.nentries, 0);
	assert_string_equal(res.detail, "line 4 column 1: unexpected token");
	why = describe(&res);
	assert_string_equal(why, "invalid result file: line 4 column 1: unexpected token");
	free(why);
	result_release(&res);
}

static void test_result_not_an_object(void **state)
{
	struct result res;
	char *why;

	(void)state;
	read_fixture(&res, FIXTURE("array.json"));
	assert_int_equal(res.status, RESULT_NOT_OBJECT);
	assert_string_equal(res.detail, "an array");
	why = describe(&res);
	assert_string_equal(why, "invalid result file: an array, not an object");
	free(why);
	result_release(&res);

	result_parse(&res, "0.93", 4);
	assert_int_equal(res.status, RESULT_NOT_OBJECT);
	assert_string_equal(res.detail, "a number");
	result_release(&res);
}

static void test_result_nonfinite_tokens(void **state)
{
	struct result res;

	(void)state;
	read_fixture(&res, FIXTURE("nonfinite.json"));
	assert_int_equal(res.status, RESULT_OK);
	assert_other(&res, "loss", RESULT_NONFINITE, "NaN");
	assert_other(&res, "up", RESULT_NONFINITE, "Infinity");
	assert_other(&res, "down", RESULT_NONFINITE, "-Infinity");
	assert_other(&res, "c_nan", RESULT_NONFINITE, "nan");
	assert_number(&res, "accuracy", 0.5);
	/* A token inside a string stays text. */
	assert_other(&res, "label", RESULT_OTHER, "a string");
	result_release(&res);
}

static void test_result_nonfinite_does_not_hide_errors(void **state)
{
	struct result res;

	(void)state;
	/* The position is the original file's, not that of the rewritten text. */
	read_fixture(&res, FIXTURE("nonfinite_invalid.json"));
	assert_int_equal(res.status, RESULT_INVALID);
	assert_string_equal(res.detail, "line 1 column 12: invalid token");
	result_release(&res);
}

static void test_result_nonfinite_word_boundaries(void **state)
{
	static const char *const texts[] = {
	    "{\"a\": NaNx}",
	    "{\"a\": xnan}",
	    "{\"a\": infinity}",
	    "{\"a\": 1inf}",
	};
	struct result res;

	(void)state;
	result_init(&res);
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		result_parse(&res, texts[i], strlen(texts[i]));
		assert_int_equal(res.status, RESULT_INVALID);
	}
	/* Escaped quotes do not end a string early. */
	result_parse(&res, "{\"a\": \"x\\\" NaN\", \"b\": inf}",
	             strlen("{\"a\": \"x\\\" NaN\", \"b\": inf}"));
	assert_int_equal(res.status, RESULT_OK);
	assert_other(&res, "a", RESULT_OTHER, "a string");
	assert_other(&res, "b", RESULT_NONFINITE, "inf");
	result_release(&res);
}

static void test_result_empty_file(void **state)
{
	struct result res;
	char *why;

	(void)state;
	read_fixture(&res, FIXTURE("empty.json"));
	assert_int_equal(res.status, RESULT_EMPTY);
	why = describe(&res);
	assert_string_equal(why, "empty result file");
	free(why);
	result_parse(&res, " \n\t\n", 4);
	assert_int_equal(res.status, RESULT_EMPTY);
	result_release(&res);
}

static void test_result_missing_file(void **state)
{
	struct result res;
	char *why;

	(void)state;
	read_fixture(&res, FIXTURE("no-such-file.json"));
	assert_int_equal(res.status, RESULT_ABSENT);
	why = describe(&res);
	assert_string_equal(why, "no result file");
	free(why);
	/* A task folder that was never made is as absent as the file. */
	result_read(&res, FIXTURE("valid.json/result.json"));
	assert_int_equal(res.status, RESULT_ABSENT);
	result_release(&res);
}

static void test_result_unreadable(void **state)
{
	struct result res;
	char *why;

	(void)state;
	/* A folder where the file should be (root reads any file, so no chmod test). */
	read_fixture(&res, SWEEP_TEST_DATA "/results");
	assert_int_equal(res.status, RESULT_UNREADABLE);
	why = describe(&res);
	assert_string_equal(why, "unreadable result file: not a regular file");
	free(why);
	result_release(&res);
}

static void test_result_strict_json(void **state)
{
	struct result res;

	(void)state;
	read_fixture(&res, FIXTURE("duplicate.json"));
	assert_int_equal(res.status, RESULT_INVALID);
	assert_non_null(strstr(res.detail, "duplicate object key"));
	result_read(&res, FIXTURE("two_objects.json"));
	assert_int_equal(res.status, RESULT_INVALID);
	assert_string_equal(res.detail, "line 2 column 1: end of file expected");
	result_release(&res);
}

static void test_result_reuse_releases(void **state)
{
	struct result res;

	(void)state;
	/* Reading into a used result frees what it held (the leak checker watches). */
	read_fixture(&res, FIXTURE("valid.json"));
	result_read(&res, FIXTURE("invalid.json"));
	result_read(&res, FIXTURE("nonfinite.json"));
	assert_int_equal(res.status, RESULT_OK);
	result_release(&res);
	results_free(NULL, 3);
}

static void test_result_path(void **state)
{
	char *path = result_path("/state/sweeps/7", 42);

	(void)state;
	assert_string_equal(path, "/state/sweeps/7/tasks/42/result.json");
	free(path);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void assert_unreadable(const char *path, const char *detail)
{
	struct result res;

	read_fixture(&res, path);
	assert_int_equal(res.status, RESULT_UNREADABLE);
	assert_string_equal(res.detail, detail);
	result_release(&res);
}

/*
 * A task writes its result file, so report reads it as hostile: never
 * through a link (to /dev/zero, to a secret), never a FIFO (it would hang)
 * or a device, never more than the limit (issue 16.6).
 */
static void test_result_hostile_files(void **state)
{
	char *dir = make_tmpdir();
	char *secret = xstrfmt("%s/secret", dir), *path = xstrfmt("%s/result.json", dir);
	struct result res;

	(void)state;
	write_text(secret, "{\"root\": 1}");
	assert_int_equal(symlink(secret, path), 0);
	assert_unreadable(path, "a symbolic link, not a regular file");
	unlink(path);
	assert_int_equal(symlink("/dev/zero", path), 0);
	assert_unreadable(path, "a symbolic link, not a regular file");
	unlink(path);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_unreadable(path, "not a regular file");
	unlink(path);
	assert_unreadable("/dev/zero", "not a regular file");

	/* 20 bytes: refused under a limit of 19, read under one of 20. */
	write_text(path, "{\"loss\": 0.25}      ");
	result_set_max_bytes(19);
	assert_unreadable(path, "larger than 19 bytes (SWEEP_RESULT_MAX sets the limit)");
	result_set_max_bytes(20);
	read_fixture(&res, path);
	assert_int_equal(res.status, RESULT_OK);
	assert_number(&res, "loss", 0.25);
	result_release(&res);
	result_set_max_bytes(RESULT_MAX_BYTES);

	remove_tree(dir);
	free(secret);
	free(path);
	free(dir);
}

/* What an invalid file holds is never shown: it may be someone's secret. */
static void test_result_errors_never_echo_bytes(void **state)
{
	static const char *const texts[] = {
	    "root:x:0:0:s3cret", "{\"a\": s3cret}", "[s3cret", "{\"a\": 1} s3cret", "\"s3cret",
	};
	struct result res;

	(void)state;
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		char *why;

		result_init(&res);
		result_parse(&res, texts[i], strlen(texts[i]));
		assert_int_equal(res.status, RESULT_INVALID);
		why = describe(&res);
		assert_null(strstr(why, "s3cret"));
		assert_null(strstr(why, "root"));
		free(why);
		result_release(&res);
	}
}

/* One task's million keys must not make a report of a hundred megabytes. */
static void test_result_too_many_keys(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct result res;

	(void)state;
	strbuf_addch(&sb, '{');
	for (int i = 0; i < RESULT_MAX_KEYS; i++)
		strbuf_addf(&sb, "%s\"k%d\": %d", i ? ", " : "", i, i);
	strbuf_addch(&sb, '}');
	result_init(&res);
	result_parse(&res, sb.buf, sb.len);
	assert_int_equal(res.status, RESULT_OK);
	assert_int_equal(res.nentries, RESULT_MAX_KEYS);
	strbuf_setlen(&sb, sb.len - 1);
	strbuf_addstr(&sb, ", \"one more\": 1}");
	result_parse(&res, sb.buf, sb.len);
	assert_int_equal(res.status, RESULT_INVALID);
	assert_string_equal(res.detail, "1025 keys, more than 1024");
	result_release(&res);
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_result_valid),
	    cmocka_unit_test(test_result_integers_are_numbers),
	    cmocka_unit_test(test_result_nested_values_ignored),
	    cmocka_unit_test(test_result_invalid_json_has_position),
	    cmocka_unit_test(test_result_not_an_object),
	    cmocka_unit_test(test_result_nonfinite_tokens),
	    cmocka_unit_test(test_result_nonfinite_does_not_hide_errors),
	    cmocka_unit_test(test_result_nonfinite_word_boundaries),
	    cmocka_unit_test(test_result_empty_file),
	    cmocka_unit_test(test_result_missing_file),
	    cmocka_unit_test(test_result_unreadable),
	    cmocka_unit_test(test_result_strict_json),
	    cmocka_unit_test(test_result_reuse_releases),
	    cmocka_unit_test(test_result_path),
	    cmocka_unit_test(test_result_hostile_files),
	    cmocka_unit_test(test_result_errors_never_echo_bytes),
	    cmocka_unit_test(test_result_too_many_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
