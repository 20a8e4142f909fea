#include "helpers.h"

#include "yamltree.h"

/* Every row: text that is refused, and the one message it gets. */
struct bad_case {
	const char *yaml;
	const char *msg; /* without the "error: " prefix */
};

/* Two lines of a sweep file, as in test_cfg.c. */
#define BASE "name: x\ncommand: run\n"

static const struct bad_case yaml_errors[] = {
    {BASE "grid: [a\n",
     "t.yaml:4:1: did not find expected ',' or ']' (while parsing a flow sequence at line 3, "
     "column 7): a value starting with '[' or '{' is read as a list or mapping: quote it"},
    {"name: x\n\tcommand: y\n",
     "t.yaml:2:1: found a tab character that violates indentation (while scanning a plain "
     "scalar at line 1, column 7): indent with spaces, not tabs"},
    {"name: x\ncommand: @run\n",
     "t.yaml:2:10: found character that cannot start any token (while scanning for the next "
     "token at line 2, column 10): indent with spaces, not tabs, and quote a value that "
     "starts with '@', '`', '%' or '!'"},
    {"name: x\ncommand: \"abc\n",
     "t.yaml:3:1: found unexpected end of stream (while scanning a quoted scalar at line 2, "
     "column 10): a quote or bracket opened here is never closed"},
    {"name: x\n  command: y\n",
     "t.yaml:2:10: mapping values are not allowed in this context: a value holding ': ' must "
     "be quoted ('...') or written as a block scalar (command: |)"},
    /* What users write: a command with ': ' or JSON in it, a regex in double quotes. */
    {"name: x\ncommand: echo {\"a\": 1}\n",
     "t.yaml:2:19: mapping values are not allowed in this context: a value holding ': ' must "
     "be quoted ('...') or written as a block scalar (command: |)"},
    {"name: x\ncommand: run\nresults:\n  log: {acc: \"acc \\d+\"}\n",
     "t.yaml:4:19: found unknown escape character (while parsing a quoted scalar at line 4, "
     "column 14): inside double quotes a backslash starts an escape: use single quotes for "
     "regexes and paths"},
    {"name: x\ncommand: [run] --fast\n",
     "t.yaml:2:16: did not find expected key (while parsing a block mapping at line 1, column "
     "1): check this line's indentation; a value starting with a quote must end with it, else "
     "quote the whole value"},
    {"name: x\ncommand: run\nslurm:\n  mem: 1G\n time: 5\n",
     "t.yaml:5:2: did not find expected key (while parsing a block mapping at line 1, column "
     "1): check this line's indentation; a value starting with a quote must end with it, else "
     "quote the whole value"},
    {"name: x\x01\n", "t.yaml:1:8: control characters are not allowed (byte 0x01)"},
    {"name: caf\xc3\xa9\x01\n", "t.yaml:1:11: control characters are not allowed (byte 0x01)"},
    {"name: \xff\n", "t.yaml:1:7: invalid leading UTF-8 octet (byte 0xff)"},
};

static const struct bad_case tree_errors[] = {
    {"a: 1\n---\nb: 2\n", "t.yaml:2:1: only one YAML document is allowed in a sweep file"},
    {"a: &x 1\n", "t.yaml:1:4: YAML anchors and aliases are not supported: write the values out"},
    {"a: !!int 5\n", "t.yaml:1:4: unsupported YAML tag 'tag:yaml.org,2002:int'"},
    {"a: !!seq {}\n", "t.yaml:1:4: unsupported YAML tag 'tag:yaml.org,2002:seq'"},
    {"a: \"x\\0y\"\n", "t.yaml:1:4: NUL bytes are not allowed"},
    {"? {k: v}\n: b\n", "t.yaml:1:3: mapping keys must be scalars, not a mapping"},
};

static void check_bad(const struct bad_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct ytree_node *root = (struct ytree_node *)1;
		char *want = xstrfmt("error: %s", cases[i].msg);

		capture_errors();
		if (ytree_parse(&root, "t.yaml", cases[i].yaml, strlen(cases[i].yaml)) >= 0)
			fail_msg("row %zu accepted:\n%s", i, cases[i].yaml);
		if (strcmp(captured.buf, want))
			fail_msg("row %zu:\n%s\nwant: %s\ngot:  %s", i, cases[i].yaml, want,
			         captured.buf);
		assert_null(root);
		free(want);
		release_captured();
	}
}

#define CHECK_BAD(table) check_bad(table, sizeof(table) / sizeof(table[0]))

static void test_yamltree_yaml_errors(void **state)
{
	(void)state;
	CHECK_BAD(yaml_errors);
}

static void test_yamltree_refused(void **state)
{
	(void)state;
	CHECK_BAD(tree_errors);
}

static void test_yamltree_nesting_limit(void **state)
{
	struct strbuf yaml = STRBUF_INIT;
	struct ytree_node *root;
	int i;

	(void)state;
	for (i = 0; i < YTREE_MAX_DEPTH + 1; i++)
		strbuf_addch(&yaml, '[');
	for (i = 0; i < YTREE_MAX_DEPTH + 1; i++)
		strbuf_addch(&yaml, ']');
	capture_errors();
	assert_int_equal(ytree_parse(&root, "t.yaml", yaml.buf, yaml.len), SWEEP_ERR);
	/* The outermost list is level 0; the 65th '[' is level 64. */
	assert_string_equal(captured.buf, "error: t.yaml:1:65: nested deeper than 64 levels");
	release_captured();
	strbuf_release(&yaml);
}

/* Nodes carry their kind, text, null-ness and 1-based position. */
static void test_yamltree_shape_and_positions(void **state)
{
	static const char yaml[] = "a: x\nb:\n  - ~\n  - ''\n  - {c: 5e-4}\n";
	struct ytree_node *root, *list, *map;

	(void)state;
	assert_int_equal(ytree_parse(&root, "t.yaml", yaml, strlen(yaml)), 0);
	assert_int_equal(root->kind, YTREE_MAP);
	assert_int_equal(root->n, 4);
	assert_string_equal(root->items[0]->text, "a");
	assert_string_equal(root->items[1]->text, "x");
	assert_int_equal(root->items[1]->line, 1);
	assert_int_equal(root->items[1]->column, 4);
	list = root->items[3];
	assert_int_equal(list->kind, YTREE_LIST);
	assert_int_equal(list->n, 3);
	assert_true(list->items[0]->null);
	assert_string_equal(ytree_kind_name(list->items[0]), "an empty value");
	assert_false(list->items[1]->null);
	assert_string_equal(list->items[1]->text, "");
	map = list->items[2];
	assert_string_equal(ytree_kind_name(map), "a mapping");
	assert_int_equal(map->line, 5);
	assert_int_equal(map->column, 5);
	assert_string_equal(map->items[1]->text, "5e-4");
	assert_string_equal(ytree_kind_name(list), "a list");
	assert_string_equal(ytree_kind_name(root->items[0]), "a scalar");
	ytree_free(root);
	ytree_free(NULL);
}

/* No document at all is not an error: the tree is NULL. */
static void test_yamltree_empty(void **state)
{
	struct ytree_node *root = (struct ytree_node *)1;

	(void)state;
	assert_int_equal(ytree_parse(&root, "t.yaml", "", 0), 0);
	assert_null(root);
	assert_int_equal(ytree_parse(&root, "t.yaml", "# c\n", 4), 0);
	assert_null(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_yamltree_yaml_errors),
	    cmocka_unit_test(test_yamltree_refused),
	    cmocka_unit_test(test_yamltree_nesting_limit),
	    cmocka_unit_test(test_yamltree_shape_and_positions),
	    cmocka_unit_test(test_yamltree_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
