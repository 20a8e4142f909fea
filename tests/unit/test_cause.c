#include "helpers.h"

#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "cause.h"
#include "causes.h"
#include "store.h"
#include "outcome.h"
#include "strbuf.h"

#include "banned.h"

/* Picks the cause of recorded logs tests/data/causes/NAME.err and NAME.out. */
static void pick_recorded(struct cause_pick *out, const char *name)
{
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	char *p = xstrfmt("%s/causes/%s.err", SWEEP_TEST_DATA, name);

	assert_int_equal(strbuf_read_file(&err, p), 0);
	free(p);
	p = xstrfmt("%s/causes/%s.out", SWEEP_TEST_DATA, name);
	assert_int_equal(strbuf_read_file(&text, p), 0);
	free(p);
	cause_pick(out, err.buf, err.len, text.buf, text.len);
	strbuf_release(&err);
	strbuf_release(&text);
}

static void test_cause_recorded_logs(void **state)
{
	static const struct {
		const char *name, *line;
		bool oom, not_found;
	} cases[] = {
	    {"import_error", "ModuleNotFoundError: No module named 'sklearn_not_here'", false,
	     false},
	    /* bash's own prefix names sweep's script: dropped (local backend, then Slurm's copy) */
	    {"not_found", "trainz: command not found", false, true},
	    {"not_found_slurm", "trian.sh: command not found", false, true},
	    {"oom", "allocating 4096 MiB", true, false},
	    /* Slurm 22.05 names slurmstepd after the node: "slurmstepd-vm: error: ..." */
	    {"oom_named_node", "allocating the embedding table", true, false},
	    /* 23.11 names it "slurmstepd: "; 26.05 stamps the line instead (recorded) */
	    {"oom_23_11", "allocating the embedding table", true, false},
	    {"oom_26_05", "allocating the embedding table", true, false},
	    {"stdout_only", "error: diverged at step 1200 (loss nan) in /scratch/run_0x7f3a/ckpt",
	     false, false},
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cause_pick p;

		pick_recorded(&p, cases[i].name);
		assert_non_null(p.line);
		assert_string_equal(p.line, cases[i].line);
		assert_int_equal(p.log_oom, cases[i].oom);
		assert_int_equal(p.not_found, cases[i].not_found);
		cause_pick_release(&p);
	}
}

static void test_cause_escapes_and_cuts(void **state)
{
	char long_line[400];
	struct cause_pick p;
	const char *esc = "bad \x1b[31mred\x1b[0m\tend\n\n";

	(void)state;
	cause_pick(&p, esc, strlen(esc), NULL, 0);
	assert_string_equal(p.line, "bad \\x1b[31mred\\x1b[0m\\tend");
	cause_pick_release(&p);
	memset(long_line, 'a', sizeof(long_line) - 1);
	long_line[sizeof(long_line) - 1] = '\0';
	cause_pick(&p, long_line, strlen(long_line), NULL, 0);
	assert_int_equal(strlen(p.line), CAUSE_LINE_MAX + 3);
	assert_string_equal(p.line + CAUSE_LINE_MAX, "...");
	cause_pick_release(&p);
	/* Invalid UTF-8 is escaped, valid kept. */
	cause_pick(&p, "caf\xc3\xa9 \xff", 7, NULL, 0);
	assert_string_equal(p.line, "caf\xc3\xa9 \\xff");
	cause_pick_release(&p);
	/* Only sweep's own lines: no cause. */
	cause_pick(&p, "sweep: task 1 ended\n", 20, "sweep: x\n", 9);
	assert_null(p.line);
	cause_pick_release(&p);
}

/*
 * A task the script stopped before its command (staging refused): the
 * script's line is the cause, not "exit code 1"; a program line after
 * such a line (an earlier run's, appended) is the program's failure.
 */
static void test_cause_pick_script_refusal(void **state)
{
	static const char staged[] =
	    "sweep: cannot stage: it needs up to 41MB and /tmp/sweep-stage-0-3-1f2e3d4c has "
	    "12MB free; set slurm.tmp_base to a larger node-local folder\n";
	static const char refused[] = "sweep: refusing the folder '/p/.sweep': it is writable by "
	                              "group or others\n";
	static const char later[] = "sweep: cannot stage /d/data.tar\nTraceback (most recent "
	                            "call last):\n  File \"t.py\"\nValueError: bad\n";
	struct cause_pick p;

	(void)state;
	cause_pick(&p, staged, strlen(staged), "sweep: task 0 (setting 0)\n", 26);
	assert_string_equal(p.line, "sweep: cannot stage: it needs up to 41MB and "
	                            "/tmp/sweep-stage-0-3-1f2e3d4c has 12MB free; set slurm.tmp_base to a larger...");
	cause_pick_release(&p);
	cause_pick(&p, refused, strlen(refused), NULL, 0);
	assert_string_equal(p.line, "sweep: refusing the folder '/p/.sweep': it is writable by "
	                            "group or others");
	cause_pick_release(&p);
	cause_pick(&p, later, strlen(later), NULL, 0);
	assert_string_equal(p.line, "ValueError: bad");
	cause_pick_release(&p);
}

/*
 * A NUL byte (the hole a crashed node left in a log that the requeued run
 * appended to) hides neither the traceback after it nor the OOM line.
 */
static void test_cause_after_nul_bytes(void **state)
{
	static const char err[] = "half a line\0\0\0\0Traceback (most recent call last):\n"
	                          "  File \"train.py\", line 3, in <module>\n"
	                          "ValueError: boom\nsaving what is left\n";
	static const char oom[] = "\0\0slurmstepd: error: Detected 1 oom_kill event; "
	                          "task exceeded memory limit\n";
	struct cause_pick p;

	(void)state;
	cause_pick(&p, err, sizeof(err) - 1, NULL, 0);
	assert_string_equal(p.line, "ValueError: boom");
	cause_pick_release(&p);
	cause_pick(&p, oom, sizeof(oom) - 1, NULL, 0);
	assert_true(p.log_oom);
	cause_pick_release(&p);
}

static void test_cause_normalise(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
	    {"ValueError: seed 3 diverged at step 1200", "ValueError: seed N diverged at step N"},
	    {"loss -1.5e-3 at lr=0.01", "loss N at lr=N"},
	    {"no such file /data/run_7/x.csv", "no such file PATH"},
	    {"object at 0x7f3a2b10 freed", "object at X freed"},
	    {"job deadbeef42 gone", "job X gone"},
	    {"ModuleNotFoundError: No module named 'sklearn'",
	     "ModuleNotFoundError: No module named 'sklearn'"},
	    {"resnet50 and cafe", "resnet50 and cafe"},
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strbuf sb = STRBUF_INIT;

		cause_normalise(&sb, cases[i].in);
		assert_string_equal(sb.buf, cases[i].out);
		strbuf_release(&sb);
	}
}

static void test_cause_groups(void **state)
{
	const size_t idx[] = {0, 1, 2, 3, 5, 7};
	const char *texts[] = {"seed 0 failed", "out of memory", "seed 2 failed",
	                       "seed 3 failed", "seed 5 failed", "out of memory"};
	const bool res[] = {false, true, false, false, false, true};
	struct cause_groups g;
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	cause_groups_build(&g, idx, texts, res, 6);
	assert_int_equal(g.n, 2);
	cause_add_groups(&sb, &g, "");
	assert_string_equal(sb.buf, "4 tasks (0,2,3,5): seed 0 failed\n"
	                            "2 tasks (1,7): out of memory\n");
	assert_false(cause_groups_same_everywhere(&g));
	cause_groups_release(&g);
	cause_groups_build(&g, idx, texts, res, 1);
	assert_false(cause_groups_same_everywhere(&g)); /* one task is no pattern */
	cause_groups_release(&g);
	cause_groups_build(&g, (const size_t[]){0, 2, 3},
	                   (const char *[]){texts[0], texts[2], texts[3]},
	                   (const bool[]){false, false, false}, 3);
	assert_true(cause_groups_same_everywhere(&g));
	cause_groups_release(&g);
	cause_groups_build(&g, (const size_t[]){1, 7}, (const char *[]){texts[1], texts[5]},
	                   (const bool[]){true, true}, 2);
	assert_false(cause_groups_same_everywhere(&g)); /* out of memory: more memory helps */
	cause_groups_release(&g);
	strbuf_reset(&sb);
	cause_add_indices(&sb, (const size_t[]){0, 1, 2, 3, 5, 9, 10, 12, 14, 16, 18}, 11, 6);
	assert_string_equal(sb.buf, "0-3,5,9,10,12,14,16,...");
	strbuf_release(&sb);
}

static void test_cause_ran_note_and_text(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct task_outcome o;

	(void)state;
	assert_true(cause_ran_note(&sb, "python3", "/root/.pyenv/shims/python3", "n1",
	                           "/usr/bin/python3", "/root"));
	assert_string_equal(sb.buf,
	                    "python3 was ~/.pyenv/shims/python3 on n1, /usr/bin/python3 at submit");
	strbuf_reset(&sb);
	assert_true(cause_ran_note(&sb, "trainz", "", "n1", NULL, "/root"));
	assert_string_equal(sb.buf, "trainz not found on n1 nor at submit");
	strbuf_reset(&sb);
	assert_false(
	    cause_ran_note(&sb, "python3", "/usr/bin/python3", "n1", "/usr/bin/python3", NULL));
	assert_false(cause_ran_note(&sb, "cd", "cd", "n1", NULL, NULL));
	cause_text(&sb, "out of memory", true, "allocating", NULL);
	assert_string_equal(sb.buf, "out of memory; last line: allocating");
	strbuf_reset(&sb);
	cause_text(&sb, "exit code 1", false, "ImportError: x", "note");
	assert_string_equal(sb.buf, "ImportError: x (note)");
	strbuf_release(&sb);
	memset(&o, 0, sizeof(o));
	o.state = TS_FAILED;
	o.signal = 9;
	assert_true(cause_is_resource(&o, false));
	o.signal = 0;
	o.exit_code = 1;
	assert_false(cause_is_resource(&o, false));
	assert_true(cause_is_resource(&o, true));
}

/*
 * The causes are a cache in the store: when it cannot take them (a full
 * disk; here a trigger that fails as one would), the command still has
 * them, and says they were not kept.
 */
static void test_cause_not_kept(void **state)
{
	static char *params[] = {"lr"};
	static char *values[] = {"0.1"};
	static int64_t seeds[] = {0};
	char *dir = make_tmpdir(), *db = xstrfmt("%s/sweep.db", dir);
	struct store *st;
	struct sweep_rec rec;
	struct plan plan;
	struct task_outcome o = {0};
	struct causes c;
	sqlite3 *h;

	(void)state;
	plan_init(&plan);
	plan.params = params;
	plan.nparams = 1;
	plan.values = values;
	plan.nsettings = 1;
	plan.seeds = seeds;
	plan.nseeds = 1;
	plan.ntasks = 1;
	sweep_rec_init(&rec);
	assert_int_equal(store_open(&st, dir, 1), 0);
	rec.name = xstrdup("full");
	rec.source = xstrdup("/src/sweep.yaml");
	rec.logs = xstrdup("/nonexistent/logs");
	rec.backend = xstrdup("local");
	assert_int_equal(store_begin_sweep(st, &rec, &plan, "name: full\n"), 0);
	assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h,
	                              "CREATE TRIGGER full BEFORE INSERT ON causes BEGIN SELECT "
	                              "RAISE(ABORT, 'database or disk is full'); END",
	                              NULL, NULL, NULL),
	                 SQLITE_OK);
	sqlite3_close(h);
	o.state = TS_FAILED;
	o.exit_code = 1;
	o.array_job_id = 7;
	o.job_id = 8;
	o.end_time = 1796412360;
	o.maxrss_bytes = o.total_cpu_us = o.gpu_util = o.gpu_mem_bytes = o.node_mem_bytes =
	    o.timelimit_s = ACCT_NO_VALUE;
	capture_errors();
	assert_int_equal(causes_load(&c, st, &rec, &o, 1), 0);
	assert_true(c.tasks[0].failed);
	assert_string_equal(c.tasks[0].reason, "exit code 1");
	assert_non_null(strstr(captured.buf, "database or disk is full"));
	assert_non_null(strstr(captured.buf, "\nwarning: the causes read from the logs were not "
	                                     "kept: the next command reads them again"));
	release_captured();
	causes_release(&c);
	sweep_rec_release(&rec);
	store_close(st);
	remove_tree(dir);
	free(db);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cause_pick_script_refusal),
	    cmocka_unit_test(test_cause_recorded_logs),
	    cmocka_unit_test(test_cause_escapes_and_cuts),
	    cmocka_unit_test(test_cause_after_nul_bytes),
	    cmocka_unit_test(test_cause_normalise),
	    cmocka_unit_test(test_cause_groups),
	    cmocka_unit_test(test_cause_ran_note_and_text),
	    cmocka_unit_test(test_cause_not_kept),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
