#include "script.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "array.h"
#include "finish.h"
#include "path.h"
#include "cfg.h"
#include "plan.h"
#include "quote.h"
#include "script_stage.h"

#include "helpers.h"

#include "banned.h"

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

static char *hostile[] = {
    "plain",
    "it's",
    "$(touch /tmp/sweep-pwned)",
    "`touch /tmp/sweep-pwned`",
    "two\nlines",
    "# not a comment",
    "back\\slash \\\\ \\n \\'",
    "ünïcødé ✓",
    "\"double\" quotes",
    "; touch /tmp/sweep-pwned ;",
    "$HOME ${PATH} $1",
    " spaced  out ",
    "*",
    "-n",
    "{v}",
    "",
};
#define NHOSTILE (sizeof(hostile) / sizeof(hostile[0]))

static char *param_names[] = {"v"};
static int64_t seeds[] = {7};

static struct plan hostile_plan(void)
{
	struct plan plan;

	plan_init(&plan);
	plan.params = param_names;
	plan.nparams = 1;
	plan.values = hostile;
	plan.nsettings = NHOSTILE;
	plan.seeds = seeds;
	plan.nseeds = 1;
	plan.ntasks = NHOSTILE;
	return plan;
}

/*
 * Runs the settings line of setting s and the rendered command in bash, as
 * the generated script does, and returns what the command printed.
 */
static char *run_setting(const struct plan *plan, size_t s, const char *command)
{
	struct strbuf script = STRBUF_INIT;
	char *out;

	strbuf_addstr(&script, "eval \"$1\"\nSWEEP_SEED=7; SWEEP_TASK_INDEX=3\n");
	assert_int_equal(script_render_command(&script, command, plan), 0);
	{
		struct strbuf line = STRBUF_INIT;
		const char *args[] = {NULL, NULL};

		script_settings_line(&line, plan, s);
		strbuf_trim_trailing_newlines(&line);
		args[0] = line.buf;
		out = run_bash(script.buf, args);
		strbuf_release(&line);
	}
	strbuf_release(&script);
	return out;
}

/* A value reaches the program exactly, whatever the quotes around its placeholder. */
static void test_script_values_reach_command_exactly(void **state)
{
	struct plan plan = hostile_plan();
	const char *command =
	    "b=`printf '%s' \"{v}\"`; printf '[%s]' {v} \"x-{v}\" '{v}' "
	    "\"$(printf '%s' \"{v}\")\" \"$b\" $(printf '%s' {v}) {seed} '{index}' "
	    "{{v}}";

	(void)state;
	for (size_t s = 0; s < NHOSTILE; s++) {
		struct strbuf want = STRBUF_INIT;
		char *out = run_setting(&plan, s, command);
		const char *v = hostile[s];

		strbuf_addf(&want, "[%s][x-%s][%s][%s][%s]", v, v, v, v, v);
		/* unquoted $(...) output is split into words: only for simple values */
		if (!strcmp(v, "plain") || !strcmp(v, "-n"))
			strbuf_addf(&want, "[%s]", v);
		else
			strbuf_reset(&want);
		if (want.len) {
			strbuf_addstr(&want, "[7][3][{v}]");
			assert_string_equal(out, want.buf);
		} else {
			/* the quoted forms alone, checked exactly */
			struct strbuf prefix = STRBUF_INIT;

			strbuf_addf(&prefix, "[%s][x-%s][%s][%s][%s]", v, v, v, v, v);
			assert_memory_equal(out, prefix.buf, prefix.len);
			strbuf_release(&prefix);
		}
		free(out);
		strbuf_release(&want);
	}
	assert_int_equal(access("/tmp/sweep-pwned", F_OK), -1);
}

/*
 * checkpoint.dir after substitution, for every task: under the submit
 * folder or an absolute folder written in the file; never '..', '/',
 * $HOME or the submit folder itself. Each refusal names the task and the
 * folder.
 */
static void test_script_keep_check_checkpoint_dir(void **state)
{
	static const struct {
		const char *checkpoint, *values, *want;
	} cases[] = {
	    {"{keep: 1, dir: 'ck/{run}'}", "[a, b]", NULL},
	    {"{keep: 1, dir: '/scratch/ck/{run}'}", "[a, b]", NULL},
	    {"{keep: 1, dir: '{stage}/ck/{run}'}\nstage: [data.tar]", "[a, b]", NULL},
	    {"{dir: 'ck/{run}/./x'}", "[a, b]", NULL},
	    {"{keep: 1, dir: 'ck/{run}'}", "[a, '..']",
	     "error: 'checkpoint.dir' 'ck/{run}' is 'ck/..' for task 1: a '..' in it leaves the "
	     "folder; a checkpoint folder must stay under the submit folder '/work/proj' or be an "
	     "absolute folder written in the sweep file"},
	    {"{keep: 1, dir: '/scratch/{run}/ck'}", "['../..', b]",
	     "error: 'checkpoint.dir' '/scratch/{run}/ck' is '/scratch/../../ck' for task 0: a '..' "
	     "in it leaves the folder; a checkpoint folder must stay under the submit folder "
	     "'/work/proj' or be an absolute folder written in the sweep file"},
	    {"{keep: 1, dir: '{run}'}", "[a, /etc]",
	     "error: 'checkpoint.dir' '{run}' is '/etc' for task 1: a value made it an absolute "
	     "path; a checkpoint folder must stay under the submit folder '/work/proj' or be an "
	     "absolute folder written in the sweep file"},
	    {"{keep: 1, dir: '/'}", "[a]",
	     "error: 'checkpoint.dir' '/' is '/' for task 0, the root folder itself: with "
	     "'checkpoint.keep' a task deletes the files of its folder; give each task a folder "
	     "of its own, such as 'ckpt/{index}'"},
	    {"{keep: 1, dir: '/home/u/'}", "[a]",
	     "error: 'checkpoint.dir' '/home/u/' is '/home/u/' for task 0, your home folder "
	     "itself: with 'checkpoint.keep' a task deletes the files of its folder; give each "
	     "task a folder of its own, such as 'ckpt/{index}'"},
	    {"{keep: 1, dir: './{run}'}", "['.']",
	     "error: 'checkpoint.dir' './{run}' is './.' for task 0, the submit folder itself: "
	     "with 'checkpoint.keep' a task deletes the files of its folder; give each task a "
	     "folder of its own, such as 'ckpt/{index}'"},
	    {"{keep: 1, dir: 'ck'}", "[a, b]",
	     "error: 'checkpoint.dir' 'ck' gives several tasks the folder 'ck': with "
	     "'checkpoint.keep' each task deletes old files in its own folder; add '{index}' (or "
	     "'{seed}' and every parameter)"},
	};
	char *home = getenv("HOME") ? xstrdup(getenv("HOME")) : NULL;

	(void)state;
	setenv("HOME", "/home/u", 1);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = xstrfmt("name: t\ncommand: x {run}\nseeds: 1\ngrid:\n  run: %s\n"
		                     "checkpoint: %s\n",
		                     cases[i].values, cases[i].checkpoint);
		struct cfg cfg;
		struct plan plan;
		int ret;

		cfg_init(&cfg);
		plan_init(&plan);
		if (cfg_load_string(&cfg, "t.yaml", text, strlen(text)) < 0 ||
		    plan_expand(&plan, &cfg) < 0)
			fail_msg("case %zu does not load: %s", i, text);
		capture_errors();
		ret = script_keep_check(&cfg, &plan, "/work/proj");
		if (cases[i].want) {
			assert_true(ret < 0);
			assert_string_equal(captured.buf, cases[i].want);
		} else if (ret != 0) {
			fail_msg("case %zu refused: %s", i, captured.buf);
		}
		release_captured();
		plan_release(&plan);
		cfg_release(&cfg);
		free(text);
	}
	if (home)
		setenv("HOME", home, 1);
	free(home);
}

static void test_script_placeholder_rendering(void **state)
{
	struct plan plan = hostile_plan();
	static const struct {
		const char *in, *out;
	} cases[] = {
	    {"run {v}", "run \"${SWEEP_PARAM_v}\""},
	    {"run \"{v}\"", "run \"${SWEEP_PARAM_v}\""},
	    {"run '{v}'", "run ''\"${SWEEP_PARAM_v}\"''"},
	    {"run {seed} {index}", "run \"${SWEEP_SEED}\" \"${SWEEP_TASK_INDEX}\""},
	    {"awk '{{print $1}}'", "awk '{print $1}'"},
	    {"echo { x }", "echo { x }"},
	    {"echo \\{{v}}", "echo \\{v}"},
	    {"echo \\\\{v}", "echo \\\\\"${SWEEP_PARAM_v}\""},
	    {"a $'{v}'", "a $''\"${SWEEP_PARAM_v}\"$''"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strbuf out = STRBUF_INIT;

		assert_int_equal(script_render_command(&out, cases[i].in, &plan), 0);
		assert_string_equal(out.buf, cases[i].out);
		strbuf_release(&out);
	}
}

static void test_script_unknown_placeholder(void **state)
{
	struct plan plan = hostile_plan();
	struct strbuf out = STRBUF_INIT;

	(void)state;
	capture_errors();
	assert_int_equal(script_render_command(&out, "run {lr}", &plan), SWEEP_ERR);
	assert_string_equal(captured.buf,
	                    "error: the command's placeholder '{lr}' names no parameter");
	strbuf_reset(&captured);
	strbuf_reset(&out);
	assert_int_equal(script_render_command(&out, "echo \\{v}", &plan), SWEEP_ERR);
	assert_string_equal(captured.buf, "error: a backslash before the placeholder '{v}' would "
	                                  "escape its quoting; write '{{' for a literal brace");
	strbuf_release(&out);
	release_captured();
}

static void fill_cfg(struct cfg *cfg)
{
	static char *extra[] = {"--mail-type=END", "--exclusive"};

	cfg_init(cfg);
	cfg->path = "test.yaml";
	cfg->name = "demo";
	cfg->command = "python train.py --v {v} --seed {seed}";
	cfg->slurm.partition = "gpu";
	cfg->slurm.mem_mb = 32 * 1024;
	cfg->slurm.time_min = 24 * 60;
	cfg->slurm.max_concurrent = 4;
	cfg->slurm.signal = "USR2";
	cfg->slurm.signal_seconds = 300;
	cfg->slurm.cpus_per_task = 8;
	cfg->slurm.extra = extra;
	cfg->slurm.nextra = 2;
	cfg->setup = "module load cuda\n";
}

static void test_script_render_full(void **state)
{
	struct cfg cfg;
	struct plan plan = hostile_plan();
	struct script_input in = {0};
	struct strbuf out = STRBUF_INIT;

	(void)state;
	fill_cfg(&cfg);
	in.cfg = &cfg;
	in.plan = &plan;
	in.sweep_id = 12;
	in.sweep_dir = "/state/sweeps/12";
	in.script = "/state/sweeps/12/demo.sbatch";
	in.logs = "/home/me/my logs";
	in.workdir = "/home/me/proj";
	in.source = "/home/me/proj/demo.yaml";
	in.array_limit = 10;
	assert_int_equal(script_render(&out, script_default_template, &in), 0);
	assert_non_null(strstr(out.buf, "#!/bin/bash\n#SBATCH --job-name=demo\n"
	                                "#SBATCH --array=0-9%4\n"));
	assert_non_null(strstr(out.buf, "#SBATCH --output=\"/home/me/my logs/%x_%A_%a.out\"\n"));
	assert_non_null(strstr(out.buf, "#SBATCH --signal=B:USR2@300\n"));
	assert_non_null(strstr(out.buf, "#SBATCH --mem=32G\n"));
	assert_non_null(strstr(out.buf, "#SBATCH --time=1-00:00:00\n"));
	assert_non_null(strstr(out.buf, "#SBATCH --cpus-per-task=8\n"));
	assert_non_null(strstr(out.buf, "#SBATCH --mail-type=END\n#SBATCH --exclusive\n"));
	assert_non_null(strstr(out.buf, "SWEEP_SEEDS=(7)\n"));
	assert_non_null(strstr(out.buf, "SWEEP_SIGNAL=USR2\n"));
	assert_non_null(strstr(out.buf, "module load cuda\n"));
	assert_non_null(strstr(out.buf, "python train.py --v \"${SWEEP_PARAM_v}\" --seed "
	                                "\"${SWEEP_SEED}\"\n"));
	assert_null(strstr(out.buf, "{{"));
	assert_non_null(strstr(out.buf, "16 settings x 1 seed = 16 tasks"));
	strbuf_release(&out);
}

/*
 * The default template lays task folders out grouped ({{TASK_DIR}}); one
 * copied before the marker existed computes tasks/<index> itself and keeps
 * the flat layout, which the sweep then records.
 */
static void test_script_task_layout(void **state)
{
	struct cfg cfg;
	struct plan plan = hostile_plan();
	struct script_input in = {0};
	struct strbuf out = STRBUF_INIT;

	(void)state;
	assert_int_equal(script_task_layout(script_default_template), TASKDIR_GROUPED);
	assert_int_equal(script_task_layout("#!/bin/bash\n{{SBATCH}}\n"
	                                    "SWEEP_TASK_DIR=$SWEEP_DIR/tasks/$SWEEP_TASK_INDEX\n"
	                                    "{{COMMAND}}\n"),
	                 TASKDIR_FLAT);
	fill_cfg(&cfg);
	in.cfg = &cfg;
	in.plan = &plan;
	in.sweep_id = 1;
	in.sweep_dir = "/s";
	in.script = "/s/demo.sbatch";
	in.logs = "/logs";
	in.workdir = "/w";
	in.source = "demo.yaml";
	assert_int_equal(script_render(&out, script_default_template, &in), 0);
	assert_non_null(strstr(
	    out.buf, "\nSWEEP_TASK_DIR=$SWEEP_DIR/tasks/$(( SWEEP_TASK_INDEX / 1000 ))/"
	             "$SWEEP_TASK_INDEX\n"));
	/* The group folder is checked as the others are. */
	assert_non_null(strstr(out.buf, "sweep_private \"$SWEEP_DIR\" \"$SWEEP_DIR/settings\" "
	                                "\"$SWEEP_DIR/tasks\" \"${SWEEP_TASK_DIR%/*}\" "
	                                "\"$SWEEP_TASK_DIR\""));
	strbuf_release(&out);
}

static void test_script_template_errors(void **state)
{
	struct cfg cfg;
	struct plan plan = hostile_plan();
	struct script_input in = {0};
	struct strbuf out = STRBUF_INIT;

	(void)state;
	fill_cfg(&cfg);
	in.cfg = &cfg;
	in.plan = &plan;
	in.sweep_dir = in.script = in.logs = in.workdir = in.source = "/x";
	capture_errors();
	assert_int_equal(script_render(&out, "#!/bin/bash\n{{NOPE}}\n", &in), SWEEP_ERR);
	assert_string_equal(captured.buf,
	                    "error: the script template has an unknown marker '{{NOPE}}'");
	strbuf_reset(&captured);
	strbuf_reset(&out);
	assert_int_equal(script_render(&out, "#!/bin/bash\n{{SBATCH\n", &in), SWEEP_ERR);
	assert_string_equal(captured.buf, "error: the script template has an unclosed marker '{{'");
	strbuf_reset(&captured);
	strbuf_reset(&out);
	/* A template that runs nothing would still show COMPLETED (issue 16.9). */
	assert_int_equal(script_render(&out, "#!/bin/bash\necho hello\n", &in), SWEEP_ERR);
	assert_string_equal(captured.buf,
	                    "error: the script template has no {{COMMAND}} marker: without it "
	                    "the tasks would run nothing; keep the markers of "
	                    "templates/array.sbatch");
	strbuf_reset(&captured);
	strbuf_reset(&out);
	assert_int_equal(script_render(&out, "#!/bin/bash\n{{COMMAND}}\n", &in), SWEEP_ERR);
	assert_string_equal(captured.buf,
	                    "error: the script template has no {{SBATCH}} marker: without it "
	                    "the tasks would not be sweep's array job; keep the markers of "
	                    "templates/array.sbatch");
	strbuf_reset(&captured);
	strbuf_reset(&out);
	/* Copied when the settings table was one file: its tasks would get no values. */
	assert_int_equal(script_render(&out,
	                               "{{SBATCH}}\neval \"$(sed -n \"$(( SWEEP_SETTING + 1 "
	                               ")){p;q}\" \"$SWEEP_DIR/settings\")\"\n{{COMMAND}}\n",
	                               &in),
	                 SWEEP_ERR);
	assert_string_equal(captured.buf,
	                    "error: the script template reads the settings table as one file; "
	                    "it is now files of SWEEP_SETTINGS_PER_FILE lines: copy the lines "
	                    "after \"One line per setting\" from templates/array.sbatch");
	strbuf_reset(&captured);
	strbuf_reset(&out);
	in.logs = "/logs/%j";
	assert_int_equal(script_render(&out, "{{SBATCH}}", &in), SWEEP_ERR);
	assert_non_null(strstr(
	    captured.buf, "error: the logs folder '/logs/%j' cannot stand in an #SBATCH line"));
	release_captured();
	strbuf_release(&out);
}

/* The rendered default script is valid bash and runs a task end to end. */
static void test_script_runs_as_a_task(void **state)
{
	struct cfg cfg;
	struct plan plan = hostile_plan();
	struct script_input in = {0};
	struct strbuf out = STRBUF_INIT;
	char *dir = make_tmpdir();
	char *sweep_dir = xstrfmt("%s/sweeps/1", dir),
	     *script = xstrfmt("%s/demo.sbatch", sweep_dir);
	char *logs = xstrfmt("%s/logs", dir), *result;
	struct strbuf check = STRBUF_INIT;

	(void)state;
	fill_cfg(&cfg);
	cfg.setup = NULL;
	cfg.command = "printf '%s' {v} > \"$SWEEP_TASK_DIR/value\"; exit 5";
	in.cfg = &cfg;
	in.plan = &plan;
	in.sweep_id = 1;
	in.sweep_dir = sweep_dir;
	in.script = script;
	in.logs = logs;
	in.workdir = dir;
	in.source = "demo.yaml";
	assert_int_equal(script_render(&out, script_default_template, &in), 0);
	assert_int_equal(script_write_files(&in, out.buf), 0);
	for (size_t s = 0; s < NHOSTILE; s++) {
		const char *argv[] = {"bash", script, NULL, NULL};
		char *env_task = xstrfmt("SLURM_ARRAY_TASK_ID=%zu", s - s % 2);
		char *offset = xstrfmt("%zu", s % 2);
		const char *env[] = {env_task, NULL};
		struct proc_result res;
		char *path = taskdir_file(sweep_dir, TASKDIR_GROUPED, s, "value");

		argv[2] = offset;
		proc_result_init(&res);
		assert_int_equal(proc_run(&res, argv, env, 30), 0);
		assert_int_equal(res.status, 5); /* the command's own status */
		strbuf_reset(&check);
		assert_int_equal(strbuf_read_file(&check, path), 0);
		assert_string_equal(check.buf, hostile[s]);
		proc_result_release(&res);
		free(path);
		free(env_task);
		free(offset);
	}
	result = xstrfmt("%s/tasks.tsv", sweep_dir);
	strbuf_reset(&check);
	assert_int_equal(strbuf_read_file(&check, result), 0);
	assert_non_null(strstr(check.buf, "index\tsetting\tseed\tv\n0\t0\t7\tplain\n"));
	assert_non_null(strstr(check.buf, "\ttwo\\nlines\n"));
	free(result);
	assert_int_equal(access("/tmp/sweep-pwned", F_OK), -1);
	remove_tree(dir);
	strbuf_release(&check);
	strbuf_release(&out);
	free(sweep_dir);
	free(script);
	free(logs);
	free(dir);
}

/* The template's "Fail fast" section, as the tasks run it. */
static char *fail_fast_section(void)
{
	const char *start = strstr(script_default_template, "# --- Fail fast");
	const char *end = start ? strstr(start, "# --- Requeue") : NULL;

	assert_non_null(start);
	assert_non_null(end);
	return xstrndup(start, (size_t)(end - start));
}

/*
 * The fail_fast counter under concurrent failures: N tasks fail at once,
 * each counts exactly once, each gets a count of its own (1..N), and only
 * the ones from K on stop the sweep.
 */
static void test_script_fail_fast_counter(void **state)
{
	enum { N = 24, K = 5 };
	char *dir = make_tmpdir(), *section = fail_fast_section();
	char *body = xstrfmt("SWEEP_DIR=\"$1\" SWEEP_TASK_INDEX=\"$2\" SWEEP_FAIL_FAST=%d "
	                     "sweep_status=1\n%s",
	                     K, section);
	pid_t pids[N];
	size_t *failed = NULL, n = 0;
	unsigned seen[N + 1] = {0};
	int stopping = 0;

	(void)state;
	for (int i = 0; i < N; i++) {
		char *err = xstrfmt("%s/err-%d", dir, i), index[16];

		snprintf(index, sizeof(index), "%d", i);
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (pids[i] == 0) {
			if (!freopen(err, "w", stderr))
				_exit(126);
			execlp("bash", "bash", "-c", body, "bash", dir, index, (char *)NULL);
			_exit(127);
		}
		free(err);
	}
	for (int i = 0; i < N; i++) {
		int status;

		assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	for (int i = 0; i < N; i++) {
		char *path = xstrfmt("%s/err-%d", dir, i);
		struct strbuf text = STRBUF_INIT;
		const char *p;
		unsigned rank;

		assert_int_equal(strbuf_read_file(&text, path), 0);
		p = strstr(text.buf, " is failure ");
		assert_non_null(p);
		rank = (unsigned)strtoul(p + strlen(" is failure "), NULL, 10);
		assert_true(rank >= 1 && rank <= N);
		seen[rank]++;
		stopping += strstr(text.buf, "stopping the sweep") != NULL;
		strbuf_release(&text);
		free(path);
	}
	for (int r = 1; r <= N; r++)
		assert_int_equal(seen[r], 1);
	/* No array-jobs file here (no scheduler): nobody runs scancel. */
	assert_int_equal(stopping, 0);
	assert_int_equal(finish_read_failures(&failed, &n, dir), 0);
	assert_int_equal(n, N);
	qsort(failed, n, sizeof(*failed), cmp_size);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(failed[i], i);
	free(failed);

	/* No counter yet: nothing failed. */
	remove_tree(dir);
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(finish_read_failures(&failed, &n, dir), 0);
	assert_int_equal(n, 0);
	assert_null(failed);
	free(body);
	free(section);
	remove_tree(dir);
	free(dir);
}

/*
 * A failure the scheduler caused (the warning signal came, or the TERM of a
 * time limit or scancel) or a success is not counted.
 */
static void test_script_fail_fast_not_counted(void **state)
{
	char *dir = make_tmpdir(), *section = fail_fast_section(), *path;
	const char *args[] = {dir, NULL};
	char *out;

	(void)state;
	/* Nor one the time limit's or scancel's TERM ended (sweep_terminated). */
	path = xstrfmt("SWEEP_DIR=\"$1\" SWEEP_TASK_INDEX=3 SWEEP_FAIL_FAST=1 sweep_status=143 "
	               "sweep_signalled=1\n%s\nSWEEP_TASK_INDEX=4 sweep_status=0 "
	               "sweep_signalled=\n%s\nSWEEP_TASK_INDEX=5 sweep_status=143 "
	               "sweep_signalled= sweep_terminated=1\n%s\n"
	               "[ ! -e \"$1/fail-fast\" ] && echo none",
	               section, section, section);
	out = run_bash(path, args);
	assert_string_equal(out, "none\n");
	free(out);
	free(path);
	free(section);
	remove_tree(dir);
	free(dir);
}

/*
 * checkpoint.keep while the command runs (sweep_prune live): the newest K
 * are kept, and so is a file written in the last second (it may be in the
 * writing); once the command has ended, only the newest K. Names with
 * spaces; sweep's own files and other names are never touched.
 */
static void test_script_prune_live(void **state)
{
	const char *start = strstr(script_default_template, "# --- Keep the last K");
	const char *end = start ? strstr(start, "# --- Stage") : NULL;
	char *dir = make_tmpdir(), *section, *body, *out;
	const char *args[] = {dir, NULL};

	(void)state;
	assert_non_null(end);
	section = xstrndup(start, (size_t)(end - start));
	body =
	    xstrfmt("cd \"$1\" && mkdir ck && s=${EPOCHREALTIME%%.*}\n"
	            "for i in 1 2 3 4 5 6; do touch -d \"@$((s - 100 + i))\" \"ck/c $i.pt\"; done\n"
	            "touch -d \"@$((s - 100))\" ck/.hidden.pt ck/notes.txt\n"
	            "touch -d \"@$s.1\" 'ck/new 1.pt'; touch -d \"@$s.2\" 'ck/new 2.pt'\n"
	            "touch -d \"@$s.3\" 'ck/new 3.pt'\n"
	            "SWEEP_CHECKPOINT_DIR=ck SWEEP_KEEP=2 SWEEP_KEEP_PATTERN='*.pt' "
	            "SWEEP_TASK_DIR=\"$1\" SWEEP_RESTART_COUNT=0 SWEEP_SIGNAL=TERM\n%s\n"
	            "sweep_prune live; ls ck | tr '\\n' '|'; echo\n"
	            "sweep_prune; ls ck | tr '\\n' '|'; echo\n"
	            "[ -e ck/.hidden.pt ] && echo hidden\n",
	            section);
	out = run_bash(body, args);
	assert_string_equal(out, "new 1.pt|new 2.pt|new 3.pt|notes.txt|\n"
	                         "new 2.pt|new 3.pt|notes.txt|\n"
	                         "hidden\n");
	free(out);
	free(body);
	free(section);
	remove_tree(dir);
	free(dir);
}

/* Runs the default script as array task 0 with command; returns its exit status. */
static int run_script(struct strbuf *note, const char *signal, const char *command,
                      char **script_text)
{
	struct cfg cfg;
	struct plan plan = hostile_plan();
	struct script_input in = {0};
	struct strbuf out = STRBUF_INIT;
	char *dir = make_tmpdir();
	char *sweep_dir = xstrfmt("%s/sweeps/1", dir),
	     *script = xstrfmt("%s/demo.sbatch", sweep_dir);
	char *logs = xstrfmt("%s/logs", dir);
	char *path = taskdir_file(sweep_dir, TASKDIR_GROUPED, 0, ".signalled");
	const char *argv[] = {"bash", script, "0", NULL};
	const char *env[] = {"SLURM_ARRAY_TASK_ID=0", "SLURM_JOB_ID=4242", NULL};
	struct proc_result res;
	int status;

	fill_cfg(&cfg);
	cfg.setup = NULL;
	cfg.command = (char *)command;
	cfg.slurm.signal = (char *)signal;
	cfg.slurm.signal_seconds = 60;
	in.cfg = &cfg;
	in.plan = &plan;
	in.sweep_id = 1;
	in.sweep_dir = sweep_dir;
	in.script = script;
	in.logs = logs;
	in.workdir = dir;
	in.source = "demo.yaml";
	assert_int_equal(script_render(&out, script_default_template, &in), 0);
	assert_int_equal(script_write_files(&in, out.buf), 0);
	proc_result_init(&res);
	assert_int_equal(proc_run(&res, argv, env, 30), 0);
	status = res.exited ? res.status : 128 + res.status;
	strbuf_reset(note);
	if (strbuf_read_file(note, path) < 0)
		strbuf_reset(note);
	*script_text = strbuf_detach(&out, NULL);
	proc_result_release(&res);
	remove_tree(dir);
	free(path);
	free(sweep_dir);
	free(script);
	free(logs);
	free(dir);
	return status;
}

/*
 * No signal asked for: no --signal line, nothing trapped. With one, the
 * script forwards it to the command and notes that in the task's folder:
 * a command without a handler dies of it (status 128 + N).
 */
static void test_script_signal_only_when_asked(void **state)
{
	struct strbuf note = STRBUF_INIT;
	char *text;

	(void)state;
	/* $$ in the command's subshells is the script: the command signals it. */
	assert_int_equal(run_script(&note, NULL, "kill -s USR2 $$; echo ok", &text), 140);
	assert_null(strstr(text, "--signal"));
	assert_non_null(strstr(text, "SWEEP_SIGNAL=\n"));
	assert_int_equal(note.len, 0);
	free(text);

	assert_int_equal(
	    run_script(&note, "USR2", "(sleep 1; kill -s USR2 $$) & exec sleep 10", &text),
	    128 + 12);
	assert_non_null(strstr(text, "#SBATCH --signal=B:USR2@60\n"));
	assert_string_equal(note.buf, "4242 USR2\n");
	free(text);

	/* A command that exits at once leaves no note. */
	assert_int_equal(run_script(&note, "USR2", "true", &text), 0);
	assert_int_equal(note.len, 0);
	free(text);
	strbuf_release(&note);
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	assert_int_equal(lstat(path, &st), 0);
	return st.st_mode & 07777;
}

/*
 * Runs the default script as array task 0 of a sweep in dir under umask 000
 * (sweep_umask: SWEEP_UMASK as sweep's Slurm side passes it, or NULL as a
 * script run by hand); the setup notes its umask after running setup (when
 * not NULL), the command prints its umask and makes a file of the user's in
 * the task folder. Returns the exit status, stderr in err.
 */
static int run_private(struct strbuf *out, struct strbuf *err, const char *dir,
                       const char *sweep_umask, const char *setup)
{
	struct cfg cfg;
	struct plan plan = hostile_plan();
	struct script_input in = {0};
	struct strbuf text = STRBUF_INIT;
	char *sweep_dir = xstrfmt("%s/sweeps/1", dir),
	     *script = xstrfmt("%s/demo.sbatch", sweep_dir);
	char *logs = xstrfmt("%s/logs", dir), *um = xstrfmt("SWEEP_UMASK=%s", sweep_umask);
	const char *argv[] = {"bash", script, "0", NULL};
	const char *env[] = {"SLURM_ARRAY_TASK_ID=0", "SLURM_JOB_ID=7", sweep_umask ? um : NULL,
	                     NULL};
	struct proc_result res;
	mode_t old;
	int status;

	fill_cfg(&cfg);
	cfg.setup = xstrfmt("%s\numask >\"$SWEEP_DIR/setup-umask\"", setup ? setup : "");
	cfg.command = "umask; touch \"$SWEEP_TASK_DIR/mine\"; echo '{}' >\"$SWEEP_RESULT\"";
	in.cfg = &cfg;
	in.plan = &plan;
	in.sweep_id = 1;
	in.sweep_dir = sweep_dir;
	in.script = script;
	in.logs = logs;
	in.workdir = dir;
	in.source = "demo.yaml";
	assert_int_equal(script_render(&text, script_default_template, &in), 0);
	assert_int_equal(script_write_files(&in, text.buf), 0);
	proc_result_init(&res);
	old = umask(0);
	assert_int_equal(proc_run(&res, argv, env, 30), 0);
	umask(old);
	status = res.exited ? res.status : 128 + res.status;
	strbuf_reset(out);
	strbuf_add(out, res.out.buf, res.out.len);
	strbuf_reset(err);
	strbuf_add(err, res.err.buf, res.err.len);
	proc_result_release(&res);
	strbuf_release(&text);
	free(cfg.setup);
	free(um);
	free(logs);
	free(script);
	free(sweep_dir);
	return status;
}

/*
 * Issue 20.2: what the task script makes in the sweep's folder is private
 * whatever the umask, while the setup and the command keep the caller's.
 */
static void test_script_private_files_whatever_the_umask(void **state)
{
	static const struct {
		const char *sweep_umask; /* as passed by sweep; NULL: a script run by hand */
		const char *setup;       /* what the setup does first */
		const char *seen;        /* the umask the command runs with */
		mode_t mine;             /* the mode of the file the command made */
	} cases[] = {{"0002", NULL, "0002", 0664},
	             {NULL, NULL, "0000", 0666},
	             /* the setup's own umask goes on to the command */
	             {"0002", "umask 0027", "0027", 0640}};
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT, got = STRBUF_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *dir = make_tmpdir(), *p;
		static const char *const private_files[] = {"settings/0", "tasks.tsv",
		                                            "tasks/0/0/.ran", "tasks/0/0/.exit.7",
		                                            "tasks/0/0/result.json"};

		assert_int_equal(run_private(&out, &err, dir, cases[i].sweep_umask, cases[i].setup),
		                 0);
		assert_non_null(strstr(out.buf, cases[i].seen));
		p = xstrfmt("%s/sweeps/1/setup-umask", dir);
		strbuf_reset(&got);
		assert_int_equal(strbuf_read_file(&got, p), 0);
		/* The setup keeps the caller's umask too. */
		assert_true(got.len == 5 && !memcmp(got.buf, cases[i].seen, 4));
		free(p);
		for (size_t f = 0; f < sizeof(private_files) / sizeof(private_files[0]); f++) {
			p = xstrfmt("%s/sweeps/1/%s", dir, private_files[f]);
			if (mode_of(p) != 0600)
				fail_msg("%s: mode %03o", private_files[f], mode_of(p));
			free(p);
		}
		p = xstrfmt("%s/sweeps/1/demo.sbatch", dir);
		assert_int_equal(mode_of(p), 0700);
		free(p);
		p = xstrfmt("%s/sweeps/1/tasks", dir);
		assert_int_equal(mode_of(p), 0700);
		free(p);
		p = xstrfmt("%s/sweeps/1/tasks/0", dir); /* the group folder */
		assert_int_equal(mode_of(p), 0700);
		free(p);
		p = xstrfmt("%s/sweeps/1/tasks/0/0", dir);
		assert_int_equal(mode_of(p), 0700);
		free(p);
		p = xstrfmt("%s/sweeps/1/tasks/0/0/mine", dir);
		assert_int_equal(mode_of(p), cases[i].mine);
		free(p);
		remove_tree(dir);
		free(dir);
	}
	strbuf_release(&got);
	strbuf_release(&out);
	strbuf_release(&err);
}

/*
 * A task folder others may write (or own) is refused: the task does not
 * run. So is its group folder (tasks/0, the default template's layout).
 */
static void test_script_refuses_a_task_folder_others_may_write(void **state)
{
	char *dir = make_tmpdir(), *tasks = xstrfmt("%s/sweeps/1/tasks", dir);
	char *group = xstrfmt("%s/0", tasks), *task = xstrfmt("%s/0", group);
	char *mine = xstrfmt("%s/mine", task), *want;
	const char *const bad[] = {task, group};
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;

	(void)state;
	for (size_t b = 0; b < sizeof(bad) / sizeof(bad[0]); b++) {
		char *quoted;

		assert_int_equal(path_mkdir_p(task), 0);
		chmod(tasks, 0700);
		chmod(group, 0700);
		chmod(task, 0700);
		chmod(bad[b], 0777);
		assert_int_equal(run_private(&out, &err, dir, "0022", NULL), 1);
		assert_int_equal(access(mine, F_OK), -1);
		quoted = run_bash("printf %q \"$1\"", (const char *[]){bad[b], NULL});
		want = xstrfmt("sweep: refusing the folder '%s': it is writable by group or others, "
		               "who could change what the task reads and runs; make it yours alone "
		               "with: chmod go-w %s\n",
		               bad[b], quoted);
		assert_string_equal(err.buf, want);
		free(want);
		free(quoted);
		chmod(bad[b], 0700);

		if (geteuid() == 0) {
			assert_int_equal(chown(bad[b], 65534, 65534), 0);
			assert_int_equal(run_private(&out, &err, dir, "0022", NULL), 1);
			want = xstrfmt("sweep: refusing the folder '%s': it belongs to someone else, "
			               "who could change what the task reads and runs\n",
			               bad[b]);
			assert_string_equal(err.buf, want);
			free(want);
			assert_int_equal(chown(bad[b], geteuid(), getegid()), 0);
		}
	}
	strbuf_release(&out);
	strbuf_release(&err);
	remove_tree(dir);
	free(mine);
	free(task);
	free(group);
	free(tasks);
	free(dir);
}

/*
 * Issue 36.1: on the way to the command, a task starts no process a
 * builtin can spare: of the programs it could call (logged by wrappers
 * first in PATH), only the folder check's find runs, and bash replaces the
 * command's subshell by the command itself (its parent is the script).
 * The values still reach the program exactly.
 */
static void test_script_task_starts_no_spare_process(void **state)
{
	static const char *const programs[] = {"sed",   "mkdir", "find", "stat", "date",
	                                       "cat",   "awk",   "head", "tail", "cut",
	                                       "chmod", "rm",    "touch"};
	struct cfg cfg;
	struct plan plan = hostile_plan();
	struct script_input in = {0};
	struct strbuf out = STRBUF_INIT, got = STRBUF_INIT;
	char *dir = make_tmpdir();
	char *sweep_dir = xstrfmt("%s/sweeps/1", dir),
	     *script = xstrfmt("%s/demo.sbatch", sweep_dir);
	char *logs = xstrfmt("%s/logs", dir), *bin = xstrfmt("%s/bin", dir);
	char *log = xstrfmt("%s/calls", dir), *path = xstrfmt("PATH=%s:%s", bin, getenv("PATH"));

	(void)state;
	assert_int_equal(path_mkdir_p(bin), 0);
	for (size_t i = 0; i < sizeof(programs) / sizeof(*programs); i++) {
		char *wrapper = xstrfmt("%s/%s", bin, programs[i]);
		char *text = xstrfmt("#!/bin/sh\necho %s >>'%s'\nPATH='%s' exec %s \"$@\"\n",
		                     programs[i], log, getenv("PATH"), programs[i]);

		assert_int_equal(path_write_file(wrapper, text, strlen(text), PATH_PRIVATE_EXEC),
		                 0);
		free(text);
		free(wrapper);
	}
	fill_cfg(&cfg);
	cfg.setup = "echo $$ >\"$SWEEP_TASK_DIR/shell\"";
	cfg.slurm.signal = NULL;
	cfg.command = "bash -c 'printf %s \"$1\" >\"$SWEEP_TASK_DIR/value\"; "
	              "echo $PPID >\"$SWEEP_TASK_DIR/parent\"' probe {v}";
	in.cfg = &cfg;
	in.plan = &plan;
	in.sweep_id = 1;
	in.sweep_dir = sweep_dir;
	in.script = script;
	in.logs = logs;
	in.workdir = dir;
	in.source = "demo.yaml";
	assert_int_equal(script_render(&out, script_default_template, &in), 0);
	assert_int_equal(script_write_files(&in, out.buf), 0);
	for (size_t s = 0; s < NHOSTILE; s++) {
		char *group = xstrfmt("%s/tasks/%zu", sweep_dir, s / 1000);
		char *task = xstrfmt("%s/%zu", group, s);
		char *env_task = xstrfmt("SLURM_ARRAY_TASK_ID=%zu", s);
		const char *argv[] = {"bash", script, "0", NULL};
		const char *env[] = {env_task, "SWEEP_UMASK=0022", path, NULL};
		struct proc_result res;
		char *file, *shell;

		/* Made at submit: the task makes only a folder not made yet. */
		assert_int_equal(path_mkdir_private(group, "task folder", false), 0);
		assert_int_equal(path_mkdir_private(task, "task folder", false), 0);
		unlink(log);
		proc_result_init(&res);
		assert_int_equal(proc_run(&res, argv, env, 30), 0);
		if (!res.exited || res.status != 0)
			fail_msg("task %zu: status %d: %s", s, res.status, res.err.buf);
		strbuf_reset(&got);
		assert_int_equal(strbuf_read_file(&got, log), 0);
		assert_string_equal(got.buf, "find\n");
		file = xstrfmt("%s/value", task);
		strbuf_reset(&got);
		assert_int_equal(strbuf_read_file(&got, file), 0);
		assert_string_equal(got.buf, hostile[s]);
		free(file);
		file = xstrfmt("%s/shell", task);
		strbuf_reset(&got);
		assert_int_equal(strbuf_read_file(&got, file), 0);
		shell = xstrdup(got.buf);
		free(file);
		file = xstrfmt("%s/parent", task);
		strbuf_reset(&got);
		assert_int_equal(strbuf_read_file(&got, file), 0);
		assert_string_equal(got.buf, shell);
		free(file);
		free(shell);
		proc_result_release(&res);
		free(env_task);
		free(task);
		free(group);
	}
	assert_int_equal(access("/tmp/sweep-pwned", F_OK), -1);
	remove_tree(dir);
	strbuf_release(&got);
	strbuf_release(&out);
	free(path);
	free(log);
	free(bin);
	free(logs);
	free(script);
	free(sweep_dir);
	free(dir);
}

/*
 * The settings table in files of SCRIPT_SETTINGS_PER_FILE lines: the tasks
 * on either side of each cut, and the last, find their own setting.
 */
static void test_script_settings_files(void **state)
{
	enum { N = 2 * SCRIPT_SETTINGS_PER_FILE + 500 };
	static const size_t probe[] = {0, SCRIPT_SETTINGS_PER_FILE - 1, SCRIPT_SETTINGS_PER_FILE,
	                               2 * SCRIPT_SETTINGS_PER_FILE, N - 1};
	struct cfg cfg;
	struct plan plan = hostile_plan();
	struct script_input in = {0};
	struct strbuf out = STRBUF_INIT, got = STRBUF_INIT;
	char *dir = make_tmpdir();
	char *sweep_dir = xstrfmt("%s/sweeps/1", dir),
	     *script = xstrfmt("%s/demo.sbatch", sweep_dir);
	char *logs = xstrfmt("%s/logs", dir), *p;
	char **values = xcalloc(N, sizeof(char *));

	(void)state;
	for (size_t s = 0; s < N; s++)
		values[s] = xstrfmt("%s %zu", hostile[s % NHOSTILE], s);
	plan.values = values;
	plan.nsettings = plan.ntasks = N;
	fill_cfg(&cfg);
	cfg.setup = NULL;
	cfg.command = "printf '%s' {v} >\"$SWEEP_TASK_DIR/value\"";
	in.cfg = &cfg;
	in.plan = &plan;
	in.sweep_id = 1;
	in.sweep_dir = sweep_dir;
	in.script = script;
	in.logs = logs;
	in.workdir = dir;
	in.source = "demo.yaml";
	assert_int_equal(script_render(&out, script_default_template, &in), 0);
	assert_non_null(strstr(out.buf, "\nSWEEP_SETTINGS_PER_FILE=1000\n"));
	assert_int_equal(script_write_files(&in, out.buf), 0);
	p = xstrfmt("%s/settings", sweep_dir);
	assert_int_equal(mode_of(p), 0700);
	free(p);
	p = xstrfmt("%s/settings/3", sweep_dir);
	assert_int_equal(access(p, F_OK), -1);
	free(p);
	for (size_t i = 0; i < sizeof(probe) / sizeof(*probe); i++) {
		char *env_task = xstrfmt("SLURM_ARRAY_TASK_ID=%zu", probe[i]);
		const char *argv[] = {"bash", script, "0", NULL};
		const char *env[] = {env_task, NULL};
		struct proc_result res;

		p = xstrfmt("%s/settings/%zu", sweep_dir, probe[i] / SCRIPT_SETTINGS_PER_FILE);
		assert_int_equal(mode_of(p), 0600);
		free(p);
		proc_result_init(&res);
		assert_int_equal(proc_run(&res, argv, env, 30), 0);
		if (!res.exited || res.status != 0)
			fail_msg("task %zu: status %d: %s", probe[i], res.status, res.err.buf);
		p = xstrfmt("%s/tasks/%zu/%zu/value", sweep_dir, probe[i] / 1000, probe[i]);
		strbuf_reset(&got);
		assert_int_equal(strbuf_read_file(&got, p), 0);
		assert_string_equal(got.buf, values[probe[i]]);
		free(p);
		proc_result_release(&res);
		free(env_task);
	}
	/* A table cut short: the task says so and runs nothing. */
	p = xstrfmt("%s/settings/2", sweep_dir);
	assert_int_equal(truncate(p, 0), 0);
	{
		const char *argv[] = {"bash", script, "0", NULL};
		const char *env[] = {"SLURM_ARRAY_TASK_ID=2001", NULL};
		struct proc_result res;
		char *want = xstrfmt("sweep: no setting 2001 in %s\n", p);

		proc_result_init(&res);
		assert_int_equal(proc_run(&res, argv, env, 30), 0);
		assert_int_equal(res.status, 1);
		assert_string_equal(res.err.buf, want);
		free(want);
		proc_result_release(&res);
	}
	free(p);
	p = xstrfmt("%s/tasks/2001/value", sweep_dir);
	assert_int_equal(access(p, F_OK), -1);
	free(p);
	for (size_t s = 0; s < N; s++)
		free(values[s]);
	free(values);
	remove_tree(dir);
	strbuf_release(&got);
	strbuf_release(&out);
	free(logs);
	free(script);
	free(sweep_dir);
	free(dir);
}

/*
 * A newline in the sweep file's path, the state folder or the script's path
 * must not end a comment line and run the rest as a command (issue 16.1).
 */
static void test_script_hostile_paths_run_nothing(void **state)
{
	struct cfg cfg;
	struct plan plan = hostile_plan();
	struct script_input in = {0};
	struct strbuf out = STRBUF_INIT;
	char *dir = make_tmpdir();
	char *pwned = xstrfmt("%s/pwned", dir);
	/* Were a path's second line run, the task would end with status 42. */
	char *sweep_dir = xstrfmt("%s/state\nexit 42\n/sweeps/1", dir);
	char *script = xstrfmt("%s/x\nexit 42\n.sbatch", sweep_dir);
	char *source = xstrfmt("e\ntouch %s\n.yaml", pwned);
	char *logs = xstrfmt("%s/logs", dir);
	const char *argv[] = {"bash", script, "0", NULL};
	const char *env[] = {"SLURM_ARRAY_TASK_ID=0", NULL};
	struct proc_result res;

	(void)state;
	fill_cfg(&cfg);
	cfg.setup = NULL;
	cfg.command = "true";
	in.cfg = &cfg;
	in.plan = &plan;
	in.sweep_id = 1;
	in.sweep_dir = sweep_dir;
	in.script = script;
	in.logs = logs;
	in.workdir = dir;
	in.source = source;
	assert_int_equal(script_render(&out, script_default_template, &in), 0);
	assert_int_equal(script_write_files(&in, out.buf), 0);
	proc_result_init(&res);
	assert_int_equal(proc_run(&res, argv, env, 30), 0);
	assert_int_equal(res.status, 0);
	assert_int_equal(access(pwned, F_OK), -1);
	assert_null(strstr(out.buf, "\nexit 42\n"));
	assert_non_null(
	    strstr(out.buf, "# Generated by sweep " SWEEP_VERSION " from 'e'$'\\n''touch "));

	proc_result_release(&res);
	remove_tree(dir);
	strbuf_release(&out);
	free(pwned);
	free(sweep_dir);
	free(script);
	free(source);
	free(logs);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_script_values_reach_command_exactly),
	    cmocka_unit_test(test_script_placeholder_rendering),
	    cmocka_unit_test(test_script_keep_check_checkpoint_dir),
	    cmocka_unit_test(test_script_unknown_placeholder),
	    cmocka_unit_test(test_script_render_full),
	    cmocka_unit_test(test_script_template_errors),
	    cmocka_unit_test(test_script_task_layout),
	    cmocka_unit_test(test_script_runs_as_a_task),
	    cmocka_unit_test(test_script_fail_fast_counter),
	    cmocka_unit_test(test_script_fail_fast_not_counted),
	    cmocka_unit_test(test_script_prune_live),
	    cmocka_unit_test(test_script_signal_only_when_asked),
	    cmocka_unit_test(test_script_private_files_whatever_the_umask),
	    cmocka_unit_test(test_script_refuses_a_task_folder_others_may_write),
	    cmocka_unit_test(test_script_hostile_paths_run_nothing),
	    cmocka_unit_test(test_script_task_starts_no_spare_process),
	    cmocka_unit_test(test_script_settings_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
