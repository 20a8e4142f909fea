#include "helpers.h"

#include "placeholder.h"

static void test_placeholder_next(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
	    {"", ""},
	    {"plain", "plain"},
	    {"{lr}", "<lr>"},
	    {"a {lr} b", "a <lr> b"},
	    {"{{lr}}", "{lr}"},
	    {"{{{lr}}}", "{<lr>}"},
	    {"{lr}}", "<lr>}"},
	    {"{ lr }", "{ lr }"},
	    {"{1x} {x1} {_}", "{1x} <x1> <_>"},
	    {"{", "{"},
	    {"}", "}"},
	    {"{a-b}", "{a-b}"},
	    {"${HOME} {seed}{index}", "$<HOME> <seed><index>"},
	    {"awk '{print $1}'", "awk '{print $1}'"},
	    {"{lr", "{lr"},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strbuf sb = STRBUF_INIT;
		struct placeholder_piece pc;
		const char *p;
		size_t n;

		for (p = cases[i].in; (n = placeholder_next(&pc, p)); p += n) {
			if (pc.kind == PLACEHOLDER_NAME)
				strbuf_addf(&sb, "<%.*s>", (int)pc.len, pc.start);
			else
				strbuf_add(&sb, pc.start, pc.len);
		}
		if (strcmp(sb.buf, cases[i].out))
			fail_msg("'%s' -> '%s', want '%s'", cases[i].in, sb.buf, cases[i].out);
		strbuf_release(&sb);
	}
}

static void test_placeholder_is_name(void **state)
{
	(void)state;
	assert_true(placeholder_is_name("lr", 2));
	assert_true(placeholder_is_name("_x1", 3));
	assert_true(placeholder_is_name("ab-", 2));
	assert_false(placeholder_is_name("", 0));
	assert_false(placeholder_is_name("1x", 2));
	assert_false(placeholder_is_name("a-b", 3));
	assert_false(placeholder_is_name("a b", 3));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_placeholder_next),
	    cmocka_unit_test(test_placeholder_is_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
