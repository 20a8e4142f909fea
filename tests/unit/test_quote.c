#include "quote.h"

#include "helpers.h"

#include "banned.h"

static const char *const hostile[] = {
    "plain",
    "",
    "it's",
    "''",
    "$(touch /tmp/sweep-pwned)",
    "`touch /tmp/sweep-pwned`",
    "two\nlines\n",
    "# not a comment",
    "back\\slash \\\\ \\n \\'",
    "ünïcødé ✓",
    "\"double\" quotes",
    "; rm -rf / ;",
    "$HOME ${PATH} $1 $@ $$",
    " spaced  out ",
    "*",
    "-n",
    "tab\there",
    "cr\rhere",
    "!!",
    "a'b\"c`d$e\\f",
};

/* Every hostile string, quoted and read back by bash, arrives byte for byte. */
static void test_quote_round_trip_through_bash(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		struct strbuf script = STRBUF_INIT;
		char *out;

		strbuf_addstr(&script, "printf '%s' ");
		quote_sh(&script, hostile[i]);
		out = run_bash(script.buf, NULL);
		assert_string_equal(out, hostile[i]);
		free(out);
		strbuf_release(&script);
	}
	assert_int_equal(access("/tmp/sweep-pwned", F_OK), -1);
}

/* Quoted values never span lines, so the settings table stays one line each. */
static void test_quote_is_one_line(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	quote_sh(&sb, "a\nb\nc");
	assert_null(strchr(sb.buf, '\n'));
	assert_string_equal(sb.buf, "'a'$'\\n''b'$'\\n''c'");
	strbuf_release(&sb);
}

static void test_quote_single_quote(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	quote_sh(&sb, "it's");
	assert_string_equal(sb.buf, "'it'\\''s'");
	strbuf_release(&sb);
}

static void test_quote_identifiers(void **state)
{
	(void)state;
	assert_true(quote_is_identifier("lr"));
	assert_true(quote_is_identifier("_x9"));
	assert_false(quote_is_identifier("9x"));
	assert_false(quote_is_identifier(""));
	assert_false(quote_is_identifier("a-b"));
	assert_false(quote_is_identifier("a b"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_quote_round_trip_through_bash),
	    cmocka_unit_test(test_quote_is_one_line),
	    cmocka_unit_test(test_quote_single_quote),
	    cmocka_unit_test(test_quote_identifiers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
