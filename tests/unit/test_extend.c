#include "extend.h"

#include "helpers.h"

#include "banned.h"

/* Per earlier sweep, how many tasks it gave and which, runs of indices as ranges. */
static void test_extend_describe(void **state)
{
	const int64_t from[10] = {0, 4, 4, 4, 0, 2, 4, 0, 2, 2};
	const int64_t none[3] = {0, 0, 0};
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	extend_describe(&sb, from, 10);
	assert_string_equal(sb.buf, "4 tasks reused from sweep 4 (indices 1-3,6)\n"
	                            "3 tasks reused from sweep 2 (indices 5,8-9)\n");
	strbuf_reset(&sb);
	extend_describe(&sb, from + 5, 1);
	assert_string_equal(sb.buf, "1 task reused from sweep 2 (indices 0)\n");
	strbuf_reset(&sb);
	extend_describe(&sb, none, 3);
	assert_string_equal(sb.buf, "");
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_extend_describe),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
