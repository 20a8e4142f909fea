/*
 * The lab rule file (rules.h): a full file, every message of a wrong one,
 * the file's absence, and the rules' small decisions (rank, debug GPUs,
 * the hours for long runs).
 */
#include "rules.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "helpers.h"

#include "banned.h"

static int parse(struct rules *r, const char *text)
{
	rules_init(r);
	return rules_parse(r, "rules.yaml", text, strlen(text));
}

static void test_rules_full_file(void **state)
{
	struct rules r;
	const char *text = "# the lab's rules\n"
	                   "max_gpus_per_user: 2\n"
	                   "debug_gpus:\n"
	                   "  gpus: [3, 0]\n"
	                   "  max_time: \"1:00:00\"\n"
	                   "long_runs:\n"
	                   "  longer_than: \"4:00:00\"\n"
	                   "  start: \"20:00-08:00\"\n"
	                   "priority:\n"
	                   "  - user: alice\n"
	                   "    until: 2026-12-20\n"
	                   "  - group: phd\n";

	(void)state;
	assert_int_equal(parse(&r, text), 0);
	assert_string_equal(r.file, "rules.yaml");
	assert_int_equal(r.max_gpus, 2);
	assert_int_equal(r.ndebug, 2);
	assert_int_equal(r.debug_gpus[0], 0);
	assert_int_equal(r.debug_gpus[1], 3);
	assert_int_equal(r.debug_max_s, 3600);
	assert_true(r.long_runs);
	assert_int_equal(r.long_over_s, 4 * 3600);
	assert_int_equal(r.long_from, 20 * 60);
	assert_int_equal(r.long_to, 8 * 60);
	assert_int_equal(r.nprio, 2);
	assert_string_equal(r.prio[0].user, "alice");
	assert_null(r.prio[0].group);
	assert_int_equal(r.prio[0].line, 10);
	assert_true(r.prio[0].until > 0);
	assert_string_equal(r.prio[1].group, "phd");
	assert_int_equal(r.prio[1].until, 0);
	rules_release(&r);
	rules_release(&r); /* released twice: nothing left to free */
}

static void test_rules_empty_file_keeps_no_rule(void **state)
{
	struct rules r;

	(void)state;
	assert_int_equal(parse(&r, "# nothing yet\n"), 0);
	assert_int_equal(r.max_gpus, 0);
	assert_int_equal(r.ndebug, 0);
	assert_int_equal(r.nprio, 0);
	assert_false(r.long_runs);
	rules_release(&r);
}

static void test_rules_until_ends_after_the_day(void **state)
{
	struct rules r;
	struct tm tm = {0};
	time_t day_end;

	(void)state;
	assert_int_equal(parse(&r, "priority: [{user: bob, until: 2026-02-28}]\n"), 0);
	tm.tm_year = 126;
	tm.tm_mon = 2;
	tm.tm_mday = 1;
	tm.tm_isdst = -1;
	day_end = mktime(&tm);
	assert_int_equal(r.prio[0].until, (int64_t)day_end);
	assert_int_equal(rules_rank(&r, "bob", NULL, 0, (int64_t)day_end - 1, NULL), 0);
	assert_int_equal(rules_rank(&r, "bob", NULL, 0, (int64_t)day_end, NULL), 1);
	rules_release(&r);
}

struct bad_case {
	const char *yaml;
	const char *msg;
};

static const struct bad_case bad[] = {
    {"- a\n", "rules.yaml:1:1: the top level must be a mapping (max_gpus_per_user: ..., "
              "debug_gpus: ...), found a list"},
    {"max_gpus_per_usr: 2\n",
     "rules.yaml:1:1: unknown key 'max_gpus_per_usr'; did you mean 'max_gpus_per_user'?"},
    {"colour: red\n", "rules.yaml:1:1: unknown key 'colour'"},
    {"max_gpus_per_user: 2\nmax_gpus_per_user: 3\n",
     "rules.yaml:2:1: duplicate key 'max_gpus_per_user' (first at line 1)"},
    {"max_gpus_per_user: 0\n",
     "rules.yaml:1:20: 'max_gpus_per_user': expected a positive integer, found '0'"},
    {"max_gpus_per_user: [2]\n",
     "rules.yaml:1:20: 'max_gpus_per_user': expected a scalar, found a list"},
    {"debug_gpus: 0\n", "rules.yaml:1:13: 'debug_gpus': expected a mapping, found a scalar"},
    {"debug_gpus: {gpu: [0], max_time: 60}\n",
     "rules.yaml:1:14: unknown key 'gpu' in 'debug_gpus'; did you mean 'gpus'?"},
    {"debug_gpus: {max_time: 60}\n",
     "rules.yaml:1:13: 'debug_gpus' needs 'gpus', the GPUs kept for short work"},
    {"debug_gpus: {gpus: [0]}\n",
     "rules.yaml:1:13: 'debug_gpus' needs 'max_time', the longest time limit a task on them "
     "may have"},
    {"debug_gpus: {gpus: [0], max_time: soon}\n",
     "rules.yaml:1:35: 'debug_gpus.max_time': expected a time such as \"1:00:00\" (minutes, "
     "H:M:S or D-H:M:S), found 'soon'"},
    {"debug_gpus: {gpus: [0], max_time: UNLIMITED}\n",
     "rules.yaml:1:35: 'debug_gpus.max_time': expected a time such as \"1:00:00\" (minutes, "
     "H:M:S or D-H:M:S), found 'UNLIMITED'"},
    {"long_runs: {longer_than: 0, start: '20:00-08:00'}\n",
     "rules.yaml:1:26: 'long_runs.longer_than': expected a time such as \"1:00:00\" (minutes, "
     "H:M:S or D-H:M:S), found '0'"},
    {"debug_gpus: {gpus: 0, max_time: 60}\n",
     "rules.yaml:1:20: 'debug_gpus.gpus': expected a list, found a scalar"},
    {"debug_gpus: {gpus: [], max_time: 60}\n",
     "rules.yaml:1:20: 'debug_gpus.gpus': an empty list; list GPU indices, such as [0]"},
    {"debug_gpus: {gpus: [zero], max_time: 60}\n",
     "rules.yaml:1:21: 'debug_gpus.gpus': expected a GPU index (0, 1...), found 'zero'"},
    {"debug_gpus: {gpus: [-1], max_time: 60}\n",
     "rules.yaml:1:21: 'debug_gpus.gpus': expected a GPU index (0, 1...), found '-1'"},
    {"debug_gpus: {gpus: [[0]], max_time: 60}\n",
     "rules.yaml:1:21: 'debug_gpus.gpus': expected a scalar, found a list"},
    {"debug_gpus: {gpus: [1, 1], max_time: 60}\n",
     "rules.yaml:1:24: 'debug_gpus.gpus': GPU 1 is listed twice"},
    {"long_runs: yes\n", "rules.yaml:1:12: 'long_runs': expected a mapping, found a scalar"},
    {"long_runs: {start: '20:00-08:00', longer_tan: 60}\n",
     "rules.yaml:1:35: unknown key 'longer_tan' in 'long_runs'; did you mean 'longer_than'?"},
    {"long_runs: {start: '20:00-08:00'}\n",
     "rules.yaml:1:12: 'long_runs' needs 'longer_than', the time limit over which a run is "
     "long"},
    {"long_runs: {longer_than: 60}\n",
     "rules.yaml:1:12: 'long_runs' needs 'start', the hours in which long runs may start "
     "(\"20:00-08:00\")"},
    {"long_runs: {longer_than: 60, start: evenings}\n",
     "rules.yaml:1:37: 'long_runs.start': expected hours such as \"20:00-08:00\", found "
     "'evenings'"},
    {"long_runs: {longer_than: 60, start: '25:00-08:00'}\n",
     "rules.yaml:1:37: 'long_runs.start': expected hours such as \"20:00-08:00\", found "
     "'25:00-08:00'"},
    {"long_runs: {longer_than: 60, start: '08:00-08:00'}\n",
     "rules.yaml:1:37: 'long_runs.start': '08:00-08:00' is an empty span; leave out "
     "'long_runs' to let long runs start at any hour"},
    {"long_runs: {longer_than: 60, start: [20]}\n",
     "rules.yaml:1:37: 'long_runs.start': expected a scalar, found a list"},
    {"priority: alice\n", "rules.yaml:1:11: 'priority': expected a list, found a scalar"},
    {"priority: [alice]\n",
     "rules.yaml:1:12: 'priority' entry 1: expected a mapping (user: NAME or group: NAME), "
     "found a scalar"},
    {"priority:\n  - user: alice\n  - usr: bob\n",
     "rules.yaml:3:5: unknown key 'usr' in 'priority' entry 2; did you mean 'user'?"},
    {"priority: [{user: alice, group: phd}]\n",
     "rules.yaml:1:12: 'priority' entry 1: both 'user' and 'group'; write one entry for each"},
    {"priority: [{until: 2026-12-20}]\n",
     "rules.yaml:1:12: 'priority' entry 1: needs 'user' or 'group'"},
    {"priority: [{user: ''}]\n", "rules.yaml:1:19: 'priority' entry 1: an empty user name"},
    {"priority: [{user: }]\n",
     "rules.yaml:1:19: 'priority.user': expected a scalar, found an empty value"},
    {"priority: [{group: [phd]}]\n",
     "rules.yaml:1:20: 'priority.group': expected a scalar, found a list"},
    {"priority: [{user: alice, until: soon}]\n",
     "rules.yaml:1:33: 'priority' entry 1: 'until': expected a date such as 2026-12-20, found "
     "'soon'"},
    {"priority: [{user: alice, until: 2026-02-30}]\n",
     "rules.yaml:1:33: 'priority' entry 1: 'until': expected a date such as 2026-12-20, found "
     "'2026-02-30'"},
    {"priority: [{user: alice, until: [1]}]\n",
     "rules.yaml:1:33: 'priority.until': expected a scalar, found a list"},
    {"max_gpus_per_user: [\n", NULL}, /* the YAML parser's own message */
};

static void test_rules_errors(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct rules r;
		char *want = bad[i].msg ? xstrfmt("error: %s", bad[i].msg) : NULL;

		capture_errors();
		if (parse(&r, bad[i].yaml) >= 0)
			fail_msg("row %zu accepted:\n%s", i, bad[i].yaml);
		if (want && strcmp(captured.buf, want))
			fail_msg("row %zu:\n%s\nwant: %s\ngot:  %s", i, bad[i].yaml, want,
			         captured.buf);
		if (!want && strncmp(captured.buf, "error: rules.yaml:", 18))
			fail_msg("row %zu: no file:line:column: %s", i, captured.buf);
		/* left empty */
		assert_null(r.file);
		assert_int_equal(r.nprio, 0);
		assert_null(r.debug_gpus);
		free(want);
		release_captured();
	}
}

static void test_rules_load_missing_file_keeps_no_rule(void **state)
{
	char *dir = make_tmpdir(), *path = xstrfmt("%s/gpu-rules.yaml", dir);
	struct rules r;
	bool found = true;

	(void)state;
	setenv("SWEEP_GPU_RULES", path, 1);
	assert_string_equal(rules_path(), path);
	rules_init(&r);
	assert_int_equal(rules_load(&r, &found), 0);
	assert_false(found);
	assert_null(r.file);
	unsetenv("SWEEP_GPU_RULES");
	assert_string_equal(rules_path(), RULES_DEFAULT_PATH);
	remove_tree(dir);
	free(path);
	free(dir);
}

static void test_rules_load_reads_and_names_the_path(void **state)
{
	char *dir = make_tmpdir(), *path = xstrfmt("%s/gpu-rules.yaml", dir);
	char *want = xstrfmt("error: %s:1:20: 'max_gpus_per_user': expected a positive integer, "
	                     "found 'two'",
	                     path);
	char *want_dir = xstrfmt("error: cannot read the GPU rules '%s': not a regular file", dir);
	struct rules r;
	bool found = false;
	FILE *f;

	(void)state;
	setenv("SWEEP_GPU_RULES", path, 1);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("max_gpus_per_user: 2\n", f);
	fclose(f);
	rules_init(&r);
	assert_int_equal(rules_load(&r, &found), 0);
	assert_true(found);
	assert_int_equal(r.max_gpus, 2);
	assert_string_equal(r.file, path);
	rules_release(&r);

	f = fopen(path, "w");
	assert_non_null(f);
	fputs("max_gpus_per_user: two\n", f);
	fclose(f);
	capture_errors();
	assert_true(rules_load(&r, &found) < 0);
	assert_string_equal(captured.buf, want);
	release_captured();

	setenv("SWEEP_GPU_RULES", dir, 1);
	capture_errors();
	assert_true(rules_load(&r, &found) < 0);
	assert_string_equal(captured.buf, want_dir);
	release_captured();

	/* a rule file of more than a MiB is a mistake, not read */
	setenv("SWEEP_GPU_RULES", path, 1);
	f = fopen(path, "w");
	assert_non_null(f);
	for (size_t i = 0; i <= RULES_MAX_BYTES / 16; i++)
		fputs("# padding......\n", f);
	fclose(f);
	capture_errors();
	assert_true(rules_load(&r, &found) < 0);
	assert_true(strstr(captured.buf, "': larger than 1 MiB") != NULL);
	release_captured();
	unsetenv("SWEEP_GPU_RULES");
	remove_tree(dir);
	free(want);
	rules_release(&r);
	free(want_dir);
	free(path);
	free(dir);
}

static void test_rules_rank_by_user_group_and_end(void **state)
{
	struct rules r;
	const char *phd[] = {"users", "phd"};
	const struct rules_priority *e = NULL;

	(void)state;
	assert_int_equal(parse(&r, "priority:\n"
	                           "  - {user: alice, until: 2000-01-01}\n"
	                           "  - {group: phd}\n"
	                           "  - {user: carol}\n"),
	                 0);
	/* alice's deadline passed: she counts as unlisted */
	assert_int_equal(rules_rank(&r, "alice", NULL, 0, 1700000000, &e), 3);
	assert_null(e);
	assert_int_equal(rules_rank(&r, "alice", NULL, 0, 900000000, &e), 0);
	assert_string_equal(e->user, "alice");
	assert_int_equal(rules_rank(&r, "bob", phd, 2, 1700000000, &e), 1);
	assert_string_equal(e->group, "phd");
	assert_int_equal(rules_rank(&r, "carol", NULL, 0, 1700000000, NULL), 2);
	assert_int_equal(rules_rank(&r, "dave", phd, 1, 1700000000, NULL), 3);
	rules_release(&r);
}

static void test_rules_debug_gpus_take_short_tasks_only(void **state)
{
	struct rules r;

	(void)state;
	assert_int_equal(parse(&r, "debug_gpus: {gpus: [0], max_time: 60}\n"), 0);
	assert_true(rules_is_debug(&r, 0));
	assert_false(rules_is_debug(&r, 1));
	assert_true(rules_gpu_allows(&r, 0, 3600));
	assert_true(rules_gpu_allows(&r, 0, 60));
	assert_false(rules_gpu_allows(&r, 0, 3601));
	assert_false(rules_gpu_allows(&r, 0, 0)); /* no time limit: as long as it likes */
	assert_true(rules_gpu_allows(&r, 1, 0));
	rules_release(&r);
}

static void test_rules_long_runs_start_in_their_hours(void **state)
{
	struct rules r;

	(void)state;
	assert_int_equal(parse(&r, "long_runs: {longer_than: '4:00:00', start: '20:00-08:00'}\n"),
	                 0);
	assert_true(rules_may_start(&r, 4 * 3600, 12 * 60)); /* not long */
	assert_false(rules_may_start(&r, 4 * 3600 + 1, 12 * 60));
	assert_false(rules_may_start(&r, 0, 19 * 60 + 59));
	assert_true(rules_may_start(&r, 0, 20 * 60));
	assert_true(rules_may_start(&r, 0, 3 * 60));
	assert_false(rules_may_start(&r, 0, 8 * 60));
	rules_release(&r);
	assert_int_equal(parse(&r, "long_runs: {longer_than: 60, start: '09:00-17:00'}\n"), 0);
	assert_true(rules_may_start(&r, 0, 9 * 60));
	assert_false(rules_may_start(&r, 0, 17 * 60));
	assert_false(rules_may_start(&r, 0, 1 * 60));
	rules_release(&r);
	rules_init(&r); /* no rule: any run, any hour */
	assert_true(rules_may_start(&r, 0, 3 * 60));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rules_full_file),
	    cmocka_unit_test(test_rules_empty_file_keeps_no_rule),
	    cmocka_unit_test(test_rules_until_ends_after_the_day),
	    cmocka_unit_test(test_rules_errors),
	    cmocka_unit_test(test_rules_load_missing_file_keeps_no_rule),
	    cmocka_unit_test(test_rules_load_reads_and_names_the_path),
	    cmocka_unit_test(test_rules_rank_by_user_group_and_end),
	    cmocka_unit_test(test_rules_debug_gpus_take_short_tasks_only),
	    cmocka_unit_test(test_rules_long_runs_start_in_their_hours),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
