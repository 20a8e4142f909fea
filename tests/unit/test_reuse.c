/*
 * Reuse matching for submit --extend: the same computation is the same
 * recipe (command text, setup, environment, template) and the same setting
 * and seed.
 */
#include "reuse.h"

#include "cfg.h"
#include "plan.h"

#include "helpers.h"

#include "banned.h"

static void load(struct cfg *cfg, const char *yaml)
{
	cfg_init(cfg);
	if (cfg_load_string(cfg, "t.yaml", yaml, strlen(yaml)) < 0)
		fail_msg("cannot load: %s", yaml);
}

static char *recipe_of(const char *yaml, const char *template_text)
{
	struct cfg cfg;
	char *r;

	load(&cfg, yaml);
	r = reuse_recipe(&cfg, template_text);
	cfg_release(&cfg);
	return r;
}

#define BASE "name: x\nseeds: 2\ngrid: {lr: [0.1, 0.01]}\n"

static void test_reuse_recipe_identity(void **state)
{
	static const struct {
		const char *yaml, *tmpl, *why;
	} cases[] = {
	    /* The same, written differently: env order, the sweep's name, seeds, grid. */
	    {"name: y\ncommand: run {lr}\nenv: {B: '2', A: '1'}\nseeds: 5\ngrid: {lr: [3]}\n", "T",
	     NULL},
	    {BASE "command: run {lr}\nenv: {A: '1', B: '2'}\nslurm: {mem: 1G}\n", "T", NULL},
	    {BASE "command: run  {lr}\nenv: {A: '1', B: '2'}\n", "T", "the command text"},
	    {BASE "command: run {lr}\nenv: {A: '1', B: '2'}\nsetup: module load x\n", "T",
	     "the setup"},
	    {BASE "command: run {lr}\nenv: {A: '1', B: '3'}\n", "T", "the environment"},
	    {BASE "command: run {lr}\nenv: {A: '1'}\n", "T", "the environment"},
	    {BASE "command: run {lr}\nenv: {A: '1', B: '2'}\n", "T2", "the script template"},
	};
	char *ref = recipe_of(BASE "command: run {lr}\nenv: {A: '1', B: '2'}\n", "T");

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *r = recipe_of(cases[i].yaml, cases[i].tmpl);
		const char *why = reuse_recipe_diff(ref, r);

		if (cases[i].why ? !why || strcmp(why, cases[i].why) : why != NULL)
			fail_msg("case %zu: '%s', expected '%s'", i, why ? why : "(same)",
			         cases[i].why ? cases[i].why : "(same)");
		free(r);
	}
	/* A sweep that recorded no recipe, or a damaged one, matches nothing. */
	assert_string_equal(reuse_recipe_diff(ref, NULL), "the recipe");
	assert_string_equal(reuse_recipe_diff(ref, "{not json"), "the recipe");
	free(ref);
}

static void expand(struct plan *plan, const char *yaml)
{
	struct cfg cfg;

	load(&cfg, yaml);
	plan_init(plan);
	assert_int_equal(plan_expand(plan, &cfg), 0);
	cfg_release(&cfg);
}

static void test_reuse_match_settings_and_seeds(void **state)
{
	struct plan have, want;
	size_t out[32];

	(void)state;
	/* 2 lr x 2 seeds, then 3 lr (one new) x 4 seeds (two new). */
	expand(&have, "name: x\ncommand: run {lr}\nseeds: 2\ngrid: {lr: [0.1, 0.01]}\n");
	expand(&want, "name: x\ncommand: run {lr}\nseeds: 4\ngrid: {lr: [0.1, 0.01, 0.001]}\n");
	reuse_match(out, &want, &have);
	{
		static const size_t expect[12] = {0,          1,          REUSE_NONE, REUSE_NONE,
		                                  2,          3,          REUSE_NONE, REUSE_NONE,
		                                  REUSE_NONE, REUSE_NONE, REUSE_NONE, REUSE_NONE};

		assert_memory_equal(out, expect, sizeof(expect));
	}
	plan_release(&want);

	/* Values are text: 0.10 is not 0.1. Seeds matched by value, not position. */
	expand(&want, "name: x\ncommand: run {lr}\nseeds: [1, 7]\ngrid: {lr: ['0.10', 0.01]}\n");
	reuse_match(out, &want, &have);
	{
		static const size_t expect[4] = {REUSE_NONE, REUSE_NONE, 3, REUSE_NONE};

		assert_memory_equal(out, expect, sizeof(expect));
	}
	plan_release(&want);
	plan_release(&have);

	/* Parameter order and where a parameter comes from do not matter; the set does. */
	expand(&have, "name: x\ncommand: run {a} {b}\ngrid: {a: [1, 2], b: [x]}\n");
	expand(&want, "name: x\ncommand: run {a} {b}\ncases: [{b: x, a: 2}]\n");
	reuse_match(out, &want, &have);
	assert_int_equal(out[0], 1);
	plan_release(&want);
	expand(&want, "name: x\ncommand: run {a} {b} {c}\ngrid: {a: [2], b: [x], c: [z]}\n");
	reuse_match(out, &want, &have);
	assert_int_equal(out[0], REUSE_NONE); /* one more parameter: another setting */
	plan_release(&want);
	/* An empty value is a value like any other. */
	expand(&want, "name: x\ncommand: run {a} {b}\ngrid: {a: [2], b: ['']}\n");
	reuse_match(out, &want, &have);
	assert_int_equal(out[0], REUSE_NONE);
	plan_release(&want);
	plan_release(&have);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reuse_recipe_identity),
	    cmocka_unit_test(test_reuse_match_settings_and_seeds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
