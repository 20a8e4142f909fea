/* The --array module: writing and reading --array values, and chunking. */
#include "array.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "strbuf.h"

#include "banned.h"

static void test_array_spec(void **state)
{
	char buf[64];

	(void)state;
	array_spec(buf, sizeof(buf), 100, 10);
	assert_string_equal(buf, "0-99%10");
	array_spec(buf, sizeof(buf), 1, 0);
	assert_string_equal(buf, "0-0");
}

/* ---- --array values and chunks ---- */

static void test_array_spec_of_ids(void **state)
{
	static const struct {
		uint32_t ids[8];
		size_t n;
		unsigned throttle;
		const char *want;
	} cases[] = {
	    {{3, 17, 42}, 3, 5, "3,17,42%5"},
	    {{3, 4, 5, 9}, 4, 0, "3-5,9"},
	    {{0}, 1, 0, "0"},
	    {{7}, 1, 2, "7%2"},
	    {{1, 2}, 2, 0, "1-2"},
	    {{0, 2, 3, 4, 6, 8, 9, 49}, 8, 10, "0,2-4,6,8-9,49%10"},
	    {{0}, 0, 0, ""},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strbuf sb = STRBUF_INIT;
		uint32_t *back;
		size_t n;
		const char *why;

		array_spec_of_ids(&sb, cases[i].ids, cases[i].n, cases[i].throttle);
		assert_string_equal(sb.buf, cases[i].want);
		/* What outcome_build will read back from the store names the same tasks. */
		if (cases[i].n) {
			assert_int_equal(array_parse_tasks(&back, &n, sb.buf, 100, &why), 0);
			assert_int_equal(n, cases[i].n);
			assert_memory_equal(back, cases[i].ids, n * sizeof(*back));
			free(back);
		}
		strbuf_release(&sb);
	}
}

static void test_array_chunk_of(void **state)
{
	static const struct {
		size_t index;
		uint32_t max, offset, task;
	} cases[] = {
	    {0, 50, 0, 0},         {49, 50, 0, 49},       {50, 50, 50, 0},  {123, 50, 100, 23},
	    {1000, 1001, 0, 1000}, {1001, 1001, 1001, 0}, {123, 0, 0, 123},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t offset, id;

		array_chunk_of(&offset, &id, cases[i].index, cases[i].max);
		assert_int_equal(offset, cases[i].offset);
		assert_int_equal(id, cases[i].task);
		assert_int_equal(offset + id, cases[i].index);
		if (cases[i].max)
			assert_true(id < cases[i].max);
	}
}

/* ---- array_parse_tasks ---- */

static void test_array_parse_tasks(void **state)
{
	static const struct {
		const char *spec;
		uint32_t limit;
		const char *want; /* the ids, comma-separated */
	} cases[] = {
	    {"0-9", 100, "0,1,2,3,4,5,6,7,8,9"},
	    {"0-49%10", 5, "0,1,2,3,4"},
	    {"3,17,42%5", 100, "3,17,42"},
	    {"0-9:2", 100, "0,2,4,6,8"},
	    {"1-10:3", 100, "1,4,7,10"},
	    {"7", 100, "7"},
	    {"7", 7, ""},
	    {"0-4000000000", 3, "0,1,2"},
	    {"4294967295", 10, ""},
	    {"0-3,7%2", 100, "0,1,2,3,7"},
	    {"5,1-2", 100, "5,1,2"},
	    /* Slurm's hex bitmaps: the last digit holds tasks 0-3. */
	    {"0x1", 100, "0"},
	    {"0x8", 100, "3"},
	    {"0x10", 100, "4"},
	    {"0x0", 100, ""},
	    {"0xA5", 100, "0,2,5,7"},
	    {"0xa5", 100, "0,2,5,7"},
	    {"0X3", 100, "0,1"},
	    {"0x21FFFFFFFFFF", 100,
	     "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,"
	     "30,31,32,33,34,35,36,37,38,39,40,45"},
	    {"0x21FFFFFFFFFF", 3, "0,1,2"},
	    {"0x000F", 100, "0,1,2,3"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strbuf got = STRBUF_INIT;
		uint32_t *tasks;
		size_t n;
		const char *why = NULL;

		if (array_parse_tasks(&tasks, &n, cases[i].spec, cases[i].limit, &why) < 0)
			fail_msg("'%s': %s", cases[i].spec, why);
		for (size_t k = 0; k < n; k++)
			strbuf_addf(&got, "%s%u", k ? "," : "", tasks[k]);
		if (strcmp(got.buf, cases[i].want))
			fail_msg("'%s' (limit %u): got '%s', want '%s'", cases[i].spec,
			         cases[i].limit, got.buf, cases[i].want);
		strbuf_release(&got);
		free(tasks);
	}
}

static void test_array_parse_tasks_errors(void **state)
{
	static const struct {
		const char *spec;
		const char *why;
	} cases[] = {
	    {"", "the task list is empty"},
	    {"%4", "the task list is empty"},
	    {"x", "expected a task id"},
	    {"-3", "expected a task id"},
	    {"1,,2", "expected a task id"},
	    {"1,", "expected a task id"},
	    {"3-1", "a range ends before it starts"},
	    {"0-9:0", "a range's step must be at least 1"},
	    {"0-9:", "expected a task id"},
	    {"4294967296", "a task id is too large"},
	    {"0-3%", "the throttle after '%' must be a number"},
	    {"0-3%x", "the throttle after '%' must be a number"},
	    {"0-3%2%2", "the throttle after '%' must be a number"},
	    {"0-3 ", "expected ',' between task ids"},
	    {"1;2", "expected ',' between task ids"},
	    {"0x", "the hex bitmap has no digits after '0x'"},
	    {"0xFG", "the hex bitmap has a character that is not a hex digit"},
	    {"0x1%2", "the hex bitmap has a character that is not a hex digit"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t *tasks = (uint32_t *)&cases; /* must be reset */
		size_t n = 99;
		const char *why = NULL;

		if (array_parse_tasks(&tasks, &n, cases[i].spec, 100, &why) == 0)
			fail_msg("'%s' was accepted", cases[i].spec);
		assert_null(tasks);
		assert_int_equal(n, 0);
		if (!why || strcmp(why, cases[i].why))
			fail_msg("'%s': got '%s', want '%s'", cases[i].spec, why ? why : "(null)",
			         cases[i].why);
	}
}

/* ---- array_chunks ---- */

static void test_array_chunks(void **state)
{
	struct array_chunk *c;
	size_t n;

	(void)state;
	c = array_chunks(2500, 1001, &n);
	assert_int_equal(n, 3);
	assert_int_equal(c[0].offset, 0);
	assert_int_equal(c[0].count, 1001);
	assert_int_equal(c[1].offset, 1001);
	assert_int_equal(c[1].count, 1001);
	assert_int_equal(c[2].offset, 2002);
	assert_int_equal(c[2].count, 498);
	free(c);
	c = array_chunks(7, 0, &n); /* no limit: one array */
	assert_int_equal(n, 1);
	assert_int_equal(c[0].offset, 0);
	assert_int_equal(c[0].count, 7);
	free(c);
	c = array_chunks(1001, 1001, &n);
	assert_int_equal(n, 1);
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_array_spec),
	    cmocka_unit_test(test_array_spec_of_ids),
	    cmocka_unit_test(test_array_chunk_of),
	    cmocka_unit_test(test_array_parse_tasks),
	    cmocka_unit_test(test_array_parse_tasks_errors),
	    cmocka_unit_test(test_array_chunks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
