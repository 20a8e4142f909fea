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

static void test_quote_visible_table(void **state)
{
	static const struct {
		const char *in, *want;
		size_t len;
	} cases[] = {
	    {"plain text\n\tindented", "plain text\n\tindented", 0},
	    /* OSC 52 (set the clipboard), clear screen, OSC 8 (a link) */
	    {"\033]52;c;cm0gLXJmIH4=\a", "^[]52;c;cm0gLXJmIH4=^G", 0},
	    {"\033[2J\033[H", "^[[2J^[[H", 0},
	    {"\033]8;;http://x\033\\here\033]8;;\033\\", "^[]8;;http://x^[\\here^[]8;;^[\\", 0},
	    {"a\rb\bc\x7f\x01\x1f", "a^Mb^Hc^?^A^_", 0},
	    {"\xc3\xa9t\xc3\xa9 \xe2\x80\x94 ok", "\xc3\xa9t\xc3\xa9 \xe2\x80\x94 ok", 0},
	    {"nul\0byte", "nul^@byte", 8},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strbuf sb = STRBUF_INIT;
		size_t len = cases[i].len ? cases[i].len : strlen(cases[i].in);

		quote_visible(&sb, cases[i].in, len);
		if (strcmp(sb.buf, cases[i].want))
			fail_msg("case %zu: '%s', not '%s'", i, sb.buf, cases[i].want);
		strbuf_release(&sb);
	}
}

/* Every ASCII byte shows as cat -v shows it. */
static void test_quote_visible_matches_cat_v(void **state)
{
	char *dir = make_tmpdir(), *path = xstrfmt("%s/bytes", dir), *want;
	const char *args[] = {path, NULL};
	struct strbuf got = STRBUF_INIT;
	char bytes[128];
	FILE *f;

	(void)state;
	for (int c = 0; c < 128; c++)
		bytes[c] = (char)c;
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(bytes, 1, sizeof(bytes), f), sizeof(bytes));
	assert_int_equal(fclose(f), 0);
	want = run_bash("cat -v \"$1\"", args);
	quote_visible(&got, bytes, sizeof(bytes));
	assert_string_equal(got.buf, want);
	strbuf_release(&got);
	free(want);
	remove_tree(dir);
	free(path);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_quote_round_trip_through_bash),
	    cmocka_unit_test(test_quote_is_one_line),
	    cmocka_unit_test(test_quote_single_quote),
	    cmocka_unit_test(test_quote_identifiers),
	    cmocka_unit_test(test_quote_visible_table),
	    cmocka_unit_test(test_quote_visible_matches_cat_v),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
