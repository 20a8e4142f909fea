/*
 * The script writer. The command a user wrote stays readable in the script:
 * only its {placeholders} change, into quoted variable references, and the
 * values themselves live in the settings table, one single-quoted line per
 * setting, which the task evaluates as plain assignments. The table is cut
 * into files of SCRIPT_SETTINGS_PER_FILE lines: bash's mapfile, which skips
 * lines a byte at a time, then finds any setting as fast as sed would,
 * without a process of its own.
 */
#include "script.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "acct.h"
#include "array.h"
#include "cfg.h"
#include "error.h"
#include "plan.h"
#include "path.h"
#include "placeholder.h"
#include "quote.h"
#include "sbopt.h"
#include "script_stage.h"
#include "units.h"

#include "banned.h"

enum ctx { CTX_PLAIN, CTX_DQUOTE, CTX_SQUOTE, CTX_ANSI, CTX_SUBST, CTX_BACKTICK };

#define MAX_DEPTH 64

/*
 * Where in bash's quoting the text written so far leaves us: a stack of
 * contexts, so that "$(cmd '...')" and `...` nest. Only what decides how a
 * placeholder must be quoted is tracked.
 */
struct quoting {
	enum ctx stack[MAX_DEPTH];
	int parens[MAX_DEPTH];
	int depth;
	int escaped; /* the text ended in a backslash that escapes what follows */
};

/* Copies text to out, following its quotes. */
static int quoting_feed(struct quoting *q, struct strbuf *out, const char *text, size_t len)
{
	q->escaped = 0;
	for (size_t i = 0; i < len; i++) {
		const char *p = text + i;
		enum ctx c = q->stack[q->depth];
		int next = i + 1 < len ? p[1] : '\0';

		strbuf_addch(out, *p);
		if (c == CTX_SQUOTE) {
			if (*p == '\'')
				q->depth--;
			continue;
		}
		if (*p == '\\') {
			if (!next) {
				q->escaped = 1;
				continue;
			}
			strbuf_addch(out, p[1]);
			i++;
			continue;
		}
		if (c == CTX_ANSI) {
			if (*p == '\'')
				q->depth--;
			continue;
		}
		if (q->depth + 1 >= MAX_DEPTH)
			return error("the command nests quotes and substitutions too deeply");
		if (*p == '$' && next == '(') {
			strbuf_addch(out, p[1]);
			i++;
			q->stack[++q->depth] = CTX_SUBST;
			q->parens[q->depth] = 0;
		} else if (*p == '`') {
			if (c == CTX_BACKTICK)
				q->depth--;
			else
				q->stack[++q->depth] = CTX_BACKTICK;
		} else if (c == CTX_DQUOTE) {
			if (*p == '"')
				q->depth--;
		} else if (*p == '"') {
			q->stack[++q->depth] = CTX_DQUOTE;
		} else if (*p == '$' && next == '\'') {
			strbuf_addch(out, p[1]);
			i++;
			q->stack[++q->depth] = CTX_ANSI;
		} else if (*p == '\'') {
			q->stack[++q->depth] = CTX_SQUOTE;
		} else if (*p == '(') {
			q->parens[q->depth]++;
		} else if (*p == ')' && c == CTX_SUBST) {
			if (q->parens[q->depth]-- == 0)
				q->depth--;
		}
	}
	return 0;
}

/* A reference to variable var, quoted for the current context. */
static void quoting_variable(const struct quoting *q, struct strbuf *out, const char *var)
{
	switch (q->stack[q->depth]) {
	case CTX_DQUOTE:
		strbuf_addf(out, "${%s}", var);
		break;
	case CTX_SQUOTE:
		strbuf_addf(out, "'\"${%s}\"'", var);
		break;
	case CTX_ANSI:
		strbuf_addf(out, "'\"${%s}\"$'", var);
		break;
	default:
		strbuf_addf(out, "\"${%s}\"", var);
		break;
	}
}

static int variable_for(struct strbuf *var, const char *name, size_t len, const struct plan *plan)
{
	if (len == 4 && !strncmp(name, "seed", 4)) {
		strbuf_addstr(var, "SWEEP_SEED");
		return 0;
	}
	if ((len == 5 && !strncmp(name, "index", 5)) || (len == 4 && !strncmp(name, "task", 4))) {
		strbuf_addstr(var, "SWEEP_TASK_INDEX");
		return 0;
	}
	if (len == 5 && !strncmp(name, "sweep", 5)) {
		strbuf_addstr(var, "SWEEP_ID");
		return 0;
	}
	for (size_t p = 0; p < plan->nparams; p++)
		if (strlen(plan->params[p]) == len && !strncmp(plan->params[p], name, len)) {
			strbuf_addf(var, "SWEEP_PARAM_%s", plan->params[p]);
			return 0;
		}
	/* Allowed by the reader only with a `stage:` list. */
	if (len == 5 && !strncmp(name, "stage", 5)) {
		strbuf_addstr(var, "SWEEP_STAGE");
		return 0;
	}
	return error("the command's placeholder '{%.*s}' names no parameter", (int)len, name);
}

int script_render_command(struct strbuf *out, const char *command, const struct plan *plan)
{
	struct quoting q = {0}; /* CTX_PLAIN at depth 0 */
	struct strbuf var = STRBUF_INIT;
	struct placeholder_piece piece;
	size_t n;
	int ret = 0;

	for (const char *p = command; (n = placeholder_next(&piece, p)); p += n) {
		if (piece.kind == PLACEHOLDER_TEXT) {
			ret = quoting_feed(&q, out, piece.start, piece.len);
		} else {
			strbuf_reset(&var);
			if (q.escaped) {
				ret = error(
				    "a backslash before the placeholder '{%.*s}' would escape "
				    "its quoting; write '{{' for a literal brace",
				    (int)piece.len, piece.start);
				break;
			}
			ret = variable_for(&var, piece.start, piece.len, plan);
			if (!ret)
				quoting_variable(&q, out, var.buf);
		}
		if (ret < 0)
			break;
	}
	strbuf_release(&var);
	return ret;
}

static void sbatch_line(struct strbuf *out, const char *opt, const char *value)
{
	char buf[4096];

	if (!value) {
		strbuf_addf(out, "#SBATCH --%s\n", opt);
		return;
	}
	sbopt_render(buf, sizeof(buf), value);
	strbuf_addf(out, "#SBATCH --%s=%s\n", opt, buf);
}

int script_render_sbatch(struct strbuf *out, const struct script_input *in)
{
	const struct cfg_slurm *sl = &in->cfg->slurm;
	char buf[256];
	char *path;
	uint32_t pack = in->cfg->pack ? in->cfg->pack : 1;
	uint32_t n = (uint32_t)((in->plan->ntasks + pack - 1) / pack);
	const char *why;

	if (in->array_limit && n > in->array_limit)
		n = in->array_limit;
	sbatch_line(out, "job-name", in->cfg->name);
	array_spec(buf, sizeof(buf), n, sl->max_concurrent);
	sbatch_line(out, "array", buf);
	if (sbopt_check_value(in->logs, 0, &why) < 0)
		return error("the logs folder '%s' cannot stand in an #SBATCH line: %s", in->logs,
		             why);
	if (sbopt_check_value(in->workdir, 0, &why) < 0)
		return error("the current folder '%s' cannot stand in an #SBATCH line: %s; "
		             "submit from another folder",
		             in->workdir, why);
	path = xstrfmt("%s/%%x_%%A_%%a.out", in->logs);
	sbatch_line(out, "output", path);
	free(path);
	path = xstrfmt("%s/%%x_%%A_%%a.err", in->logs);
	sbatch_line(out, "error", path);
	free(path);
	sbatch_line(out, "chdir", in->workdir);
	/* Only when asked for: a program without a handler dies of it. */
	if (sl->signal) {
		snprintf(buf, sizeof(buf), "B:%s@%u", sl->signal, sl->signal_seconds);
		sbatch_line(out, "signal", buf);
	}
	/* A requeued or restarted task adds to its logs instead of wiping them. */
	sbatch_line(out, "open-mode", "append");
	if (sl->requeue)
		sbatch_line(out, "requeue", NULL);
	if (sl->partition)
		sbatch_line(out, "partition", sl->partition);
	if (sl->account)
		sbatch_line(out, "account", sl->account);
	if (sl->qos)
		sbatch_line(out, "qos", sl->qos);
	if (sl->nodes) {
		snprintf(buf, sizeof(buf), "%u", sl->nodes);
		sbatch_line(out, "nodes", buf);
	}
	if (sl->ntasks) {
		snprintf(buf, sizeof(buf), "%u", sl->ntasks);
		sbatch_line(out, "ntasks", buf);
	}
	if (sl->cpus_per_task) {
		snprintf(buf, sizeof(buf), "%u", sl->cpus_per_task);
		sbatch_line(out, "cpus-per-task", buf);
	}
	if (sl->gres)
		sbatch_line(out, "gres", sl->gres);
	if (sl->gpus_per_task)
		sbatch_line(out, "gpus-per-task", sl->gpus_per_task);
	if (sl->constraint)
		sbatch_line(out, "constraint", sl->constraint);
	if (sl->mem_mb) {
		units_format_mem(buf, sizeof(buf), sl->mem_mb);
		sbatch_line(out, "mem", buf);
	}
	if (sl->mem_per_cpu_mb) {
		units_format_mem(buf, sizeof(buf), sl->mem_per_cpu_mb);
		sbatch_line(out, "mem-per-cpu", buf);
	}
	if (sl->time_unlimited) {
		sbatch_line(out, "time", "UNLIMITED");
	} else if (sl->time_min) {
		/* A packed array task runs its tasks one after another. */
		units_format_time(buf, sizeof(buf), (uint64_t)sl->time_min * 60 * pack);
		sbatch_line(out, "time", buf);
	}
	for (size_t i = 0; i < sl->nextra; i++) {
		const char *arg = sl->extra[i] + 2; /* past "--" */
		const char *eq = strchr(arg, '=');
		char *opt = eq ? xstrndup(arg, (size_t)(eq - arg)) : xstrdup(arg);

		sbatch_line(out, opt, eq ? eq + 1 : NULL);
		free(opt);
	}
	strbuf_trim_trailing_newlines(out);
	return 0;
}

/* SWEEP_PROGRAM: what the script records the path of (`command -v`), for the cause of a failure. */
static void render_program(struct strbuf *out, const char *command)
{
	char *program = script_program(command);

	strbuf_addstr(out, "\nSWEEP_PROGRAM=");
	quote_sh(out, program ? program : "");
	free(program);
}

static void render_variables(struct strbuf *out, const struct script_input *in)
{
	const struct cfg_slurm *sl = &in->cfg->slurm;

	strbuf_addf(out, "SWEEP_ID=%lld\n", (long long)in->sweep_id);
	strbuf_addstr(out, "SWEEP_DIR=");
	quote_sh(out, in->sweep_dir);
	strbuf_addstr(out, "\nSWEEP_SEEDS=(");
	for (size_t i = 0; i < in->plan->nseeds; i++)
		strbuf_addf(out, "%s%lld", i ? " " : "", (long long)in->plan->seeds[i]);
	strbuf_addf(out, ")\nSWEEP_SIGNAL=%s", sl->signal ? sl->signal : "");
	strbuf_addf(out, "\nSWEEP_REQUEUE=%d\nSWEEP_MAX_RESTARTS=%u", sl->requeue ? 1 : 0,
	            sl->max_restarts);
	strbuf_addf(out, "\nSWEEP_PACK=%u\nSWEEP_NTASKS=%zu\nSWEEP_SCRIPT=",
	            in->cfg->pack ? in->cfg->pack : 1, in->plan->ntasks);
	quote_sh(out, in->script);
	strbuf_addf(out, "\nSWEEP_FAIL_FAST=%u", in->cfg->fail_fast);
	strbuf_addf(out, "\nSWEEP_SETTINGS_PER_FILE=%d", SCRIPT_SETTINGS_PER_FILE);
	render_program(out, in->cfg->command);
	script_stage_variables(out, in);
}

/*
 * Packed: the array task runs its sweep tasks one after another, each
 * through `sweep __packrun` (ACCT_PACK_COMMAND), which records the task's
 * elapsed time, peak memory, CPU time and exit status in
 * <sweep dir>/packs/<job id> as a job step's record would have them, for a
 * fork and an exec instead of a step. Where the submitting binary
 * (in->sweep_bin) is not on the node, each task is a job step of its own
 * (srun) named sweep-<index>, so accounting keeps one record per sweep
 * task, as sweeps did before. Either runs this same script, which then
 * finds its index in SWEEP_STEP_INDEX. The argument is the index offset,
 * or "@i,j,k" (a resubmission: the indices, SWEEP_PACK per array task).
 */
static void render_pack(struct strbuf *out, const struct script_input *in)
{
	const struct cfg_slurm *sl = &in->cfg->slurm;

	if (!in->cfg->pack || in->cfg->pack == 1) {
		strbuf_addstr(out,
		              "SWEEP_STEP_INDEX=   # not packed: one sweep task per array task");
		return;
	}
	strbuf_addstr(
	    out,
	    "if [ -z \"${SWEEP_STEP_INDEX:-}\" ]; then\n"
	    "\tsweep_pack=()\n"
	    "\tcase $SWEEP_INDEX_OFFSET in\n"
	    "\t@*)\tIFS=, read -r -a sweep_list <<<\"${SWEEP_INDEX_OFFSET#@}\"\n"
	    "\t\tsweep_pack=(\"${sweep_list[@]:SLURM_ARRAY_TASK_ID*SWEEP_PACK:SWEEP_PACK}\") ;;\n"
	    "\t*)\tsweep_first=$(( SWEEP_INDEX_OFFSET + ${SLURM_ARRAY_TASK_ID:?not run as an "
	    "array task} * SWEEP_PACK ))\n"
	    "\t\tfor (( sweep_i = sweep_first; sweep_i < sweep_first + SWEEP_PACK && sweep_i < "
	    "SWEEP_NTASKS; sweep_i++ )); do\n"
	    "\t\t\tsweep_pack+=(\"$sweep_i\")\n"
	    "\t\tdone ;;\n"
	    "\tesac\n"
	    "\t# Minutes per task: the sweep file's, or what a resubmission gives (srun only).\n"
	    "\tSWEEP_STEP_TIME=${2:-");
	if (sl->time_min && !sl->time_unlimited)
		strbuf_addf(out, "%u", sl->time_min);
	strbuf_addstr(out, "}\n\tsweep_bin=");
	quote_sh(out, in->sweep_bin ? in->sweep_bin : "");
	strbuf_addstr(
	    out, "\n"
	         "\tsweep_record=$SWEEP_DIR/" ACCT_PACK_DIR "\n"
	         "\tif [ -n \"$sweep_bin\" ] && [ -x \"$sweep_bin\" ]; then\n"
	         "\t\t{ [ -d \"$sweep_record\" ] || mkdir -p -- \"$sweep_record\"; } &&\n"
	         "\t\t\tsweep_private \"$SWEEP_DIR\" \"$sweep_record\" || exit 1\n"
	         "\t\tsweep_record+=/${SLURM_JOB_ID:?not run by Slurm}\n"
	         "\t\techo \"sweep: array task $SLURM_ARRAY_TASK_ID runs tasks ${sweep_pack[*]} of "
	         "sweep $SWEEP_ID, recorded in $sweep_record\"\n"
	         "\telse\n"
	         "\t\techo \"sweep: array task $SLURM_ARRAY_TASK_ID runs tasks ${sweep_pack[*]} of "
	         "sweep $SWEEP_ID, one job step each: the sweep binary '$sweep_bin' is not "
	         "executable on $HOSTNAME\"\n"
	         "\t\tsweep_bin=\n"
	         "\tfi\n"
	         "\t# The tasks' own scripts leave the signal's note: here it is only passed on.\n"
	         "\tsweep_forward() {\n"
	         "\t\tsweep_signalled=1\n"
	         "\t\t[ -z \"$sweep_child\" ] || kill -s \"$SWEEP_SIGNAL\" -- \"-$sweep_child\" "
	         "2>/dev/null\n"
	         "\t}\n");
	strbuf_addstr(out, "\tsweep_worst=0\n"
	                   "\tfor sweep_i in \"${sweep_pack[@]}\"; do\n"
	                   "\t\t# After the warning signal, no task starts: resubmit runs them.\n"
	                   "\t\t[ -z \"${sweep_signalled:-}\" ] || break\n"
	                   "\t\tset -m\n"
	                   "\t\tif [ -n \"$sweep_bin\" ]; then\n"
	                   "\t\t\tSWEEP_STEP_INDEX=$sweep_i \"$sweep_bin\" " ACCT_PACK_COMMAND
	                   " \"$sweep_record\" \"$sweep_i\" -- \\\n"
	                   "\t\t\t\tbash \"$SWEEP_SCRIPT\" \"$@\" &\n"
	                   "\t\telse\n"
	                   "\t\t\tSWEEP_STEP_INDEX=$sweep_i srun --ntasks=1 --nodes=1 "
	                   "--job-name=\"" ACCT_STEP_PREFIX "$sweep_i\" \\\n"
	                   "\t\t\t\t${SWEEP_STEP_TIME:+--time=\"$SWEEP_STEP_TIME\"} "
	                   "bash \"$SWEEP_SCRIPT\" \"$@\" &\n"
	                   "\t\tfi\n"
	                   "\t\tsweep_child=$!\n"
	                   "\t\tset +m\n"
	                   "\t\t[ -z \"${sweep_signalled:-}\" ] || sweep_forward\n"
	                   "\t\twhile kill -0 \"$sweep_child\" 2>/dev/null; do\n"
	                   "\t\t\twait \"$sweep_child\"\n"
	                   "\t\tdone\n"
	                   "\t\twait \"$sweep_child\"\n"
	                   "\t\tsweep_status=$?\n"
	                   "\t\t[ \"$sweep_status\" -eq 0 ] || sweep_worst=$sweep_status\n"
	                   "\t\tsweep_child=\n"
	                   "\tdone\n"
	                   "\texit \"$sweep_worst\"\n"
	                   "fi");
}

static void render_exports(struct strbuf *out, const struct plan *plan)
{
	if (!plan->nparams) {
		strbuf_addstr(out, "# (this sweep has no parameters)");
		return;
	}
	strbuf_addstr(out, "export");
	for (size_t p = 0; p < plan->nparams; p++)
		strbuf_addf(out, " SWEEP_PARAM_%s", plan->params[p]);
}

static void render_env(struct strbuf *out, const struct cfg *cfg)
{
	for (size_t i = 0; i < cfg->nenv; i++) {
		strbuf_addf(out, "%sexport %s=", i ? "\n" : "", cfg->env[i].name);
		quote_sh(out, cfg->env[i].value);
	}
}

static void render_summary(struct strbuf *out, const struct plan *plan)
{
	strbuf_addf(out, "%zu setting%s x %zu seed%s = %zu task%s", plan->nsettings,
	            plan->nsettings == 1 ? "" : "s", plan->nseeds, plan->nseeds == 1 ? "" : "s",
	            plan->ntasks, plan->ntasks == 1 ? "" : "s");
}

static int render_marker(struct strbuf *out, const char *name, size_t len,
                         const struct script_input *in)
{
#define IS(s) (len == sizeof(s) - 1 && !strncmp(name, s, len))
	if (IS("SBATCH"))
		return script_render_sbatch(out, in);
	if (IS("VERSION"))
		strbuf_addstr(out, SWEEP_VERSION);
	/*
	 * Paths are quoted even in comment lines: a newline in one would end
	 * the comment and make the rest of the path a command of every task.
	 */
	else if (IS("SOURCE"))
		quote_sh(out, in->source);
	else if (IS("SUMMARY"))
		render_summary(out, in->plan);
	else if (IS("SCRIPT"))
		quote_sh(out, in->script);
	else if (IS("VARIABLES"))
		render_variables(out, in);
	else if (IS("TASK_DIR"))
		taskdir_shell(out, TASKDIR_GROUPED);
	else if (IS("PACK"))
		render_pack(out, in);
	else if (IS("CHECKPOINT_DIR"))
		script_checkpoint_dir(out, in->cfg, in->plan);
	else if (IS("EXPORTS"))
		render_exports(out, in->plan);
	else if (IS("ENV"))
		render_env(out, in->cfg);
	else if (IS("SETUP")) {
		if (in->cfg->setup) {
			strbuf_addstr(out, in->cfg->setup);
			strbuf_trim_trailing_newlines(out);
		} else {
			strbuf_addstr(out, "# (none)");
		}
	} else if (IS("COMMAND")) {
		size_t start = out->len;

		if (script_render_command(out, in->cfg->command, in->plan) < 0)
			return SWEEP_ERR;
		if (out->len > start)
			strbuf_trim_trailing_newlines(out);
	} else
		return error("the script template has an unknown marker '{{%.*s}}'", (int)len,
		             name);
#undef IS
	return 0;
}

enum taskdir_layout script_task_layout(const char *tmpl)
{
	return strstr(tmpl, "{{TASK_DIR}}") ? TASKDIR_GROUPED : TASKDIR_FLAT;
}

static bool is_marker(const char *name, size_t len, const char *marker)
{
	return len == strlen(marker) && !strncmp(name, marker, len);
}

int script_render(struct strbuf *out, const char *tmpl, const struct script_input *in)
{
	const char *p = tmpl;
	bool sbatch = false, command = false;

	if (in->cfg->pack > 1 && !strstr(tmpl, "{{PACK}}"))
		return error("'pack: %u' needs the {{PACK}} marker in the script template, after "
		             "SWEEP_INDEX_OFFSET is set (see templates/array.sbatch)",
		             in->cfg->pack);

	/* A template copied before these sections existed would ignore them silently. */
	if (in->cfg->nstage && !strstr(tmpl, "sweep_stage_in"))
		return error("'stage' needs the template's \"Stage\" section (sweep_stage_in); "
		             "copy it from templates/array.sbatch");
	/*
	 * A template copied when the settings table was one file would read
	 * nothing from the folder it is now, and run every task with empty values.
	 */
	if (strstr(tmpl, "/settings") && !strstr(tmpl, "SWEEP_SETTINGS_PER_FILE"))
		return error("the script template reads the settings table as one file; it is "
		             "now files of SWEEP_SETTINGS_PER_FILE lines: copy the lines after "
		             "\"One line per setting\" from templates/array.sbatch");
	if (in->cfg->checkpoint.keep_given &&
	    (!strstr(tmpl, "sweep_prune") || !strstr(tmpl, "{{CHECKPOINT_DIR}}")))
		return error(
		    "'checkpoint.keep' needs the template's \"Keep\" section (sweep_prune) "
		    "and the {{CHECKPOINT_DIR}} marker; copy them from "
		    "templates/array.sbatch");

	while (*p) {
		const char *open = strstr(p, "{{");
		const char *close;
		size_t len;

		if (!open) {
			strbuf_addstr(out, p);
			break;
		}
		close = strstr(open + 2, "}}");
		strbuf_add(out, p, (size_t)(open - p));
		if (!close)
			return error("the script template has an unclosed marker '{{'");
		len = (size_t)(close - open - 2);
		if (render_marker(out, open + 2, len, in) < 0)
			return SWEEP_ERR;
		sbatch = sbatch || is_marker(open + 2, len, "SBATCH");
		command = command || is_marker(open + 2, len, "COMMAND");
		p = close + 2;
	}
	/* Without them the array would run nothing, or not as sweep's array, and look done. */
	if (!sbatch || !command)
		return error("the script template has no {{%s}} marker: without it the tasks "
		             "would %s; keep the markers of templates/array.sbatch",
		             !command ? "COMMAND" : "SBATCH",
		             !command ? "run nothing" : "not be sweep's array job");
	return 0;
}

void script_settings_line(struct strbuf *out, const struct plan *plan, size_t s)
{
	for (size_t p = 0; p < plan->nparams; p++) {
		strbuf_addf(out, "%sSWEEP_PARAM_%s=", p ? " " : "", plan->params[p]);
		quote_sh(out, plan_value(plan, s, p));
	}
	strbuf_addch(out, '\n');
}

static void tsv_field(struct strbuf *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '\t')
			strbuf_addstr(out, "\\t");
		else if (*s == '\n')
			strbuf_addstr(out, "\\n");
		else if (*s == '\\')
			strbuf_addstr(out, "\\\\");
		else
			strbuf_addch(out, *s);
	}
}

int script_write_files(const struct script_input *in, const char *script_text)
{
	const struct plan *plan = in->plan;
	struct strbuf sb = STRBUF_INIT;
	char *path = NULL;
	int ret;

	if (path_mkdir_private(in->sweep_dir, "sweep folder", false) < 0 ||
	    path_mkdir_p(in->logs) < 0)
		return SWEEP_ERR;

	path = xstrfmt("%s/settings", in->sweep_dir);
	ret = path_mkdir_private(path, "settings folder", false);
	free(path);
	for (size_t s = 0; !ret && s < plan->nsettings; s++) {
		script_settings_line(&sb, plan, s);
		if ((s + 1) % SCRIPT_SETTINGS_PER_FILE && s + 1 < plan->nsettings)
			continue;
		path = xstrfmt("%s/settings/%zu", in->sweep_dir, s / SCRIPT_SETTINGS_PER_FILE);
		ret = path_write_file(path, sb.buf, sb.len, PATH_PRIVATE_FILE);
		free(path);
		strbuf_reset(&sb);
	}
	if (ret < 0)
		goto out;

	strbuf_reset(&sb);
	strbuf_addstr(&sb, "index\tsetting\tseed");
	for (size_t p = 0; p < plan->nparams; p++) {
		strbuf_addch(&sb, '\t');
		tsv_field(&sb, plan->params[p]);
	}
	strbuf_addch(&sb, '\n');
	for (size_t i = 0; i < plan->ntasks; i++) {
		size_t s = plan_setting_of(plan, i);

		strbuf_addf(&sb, "%zu\t%zu\t%lld", i, s, (long long)plan_seed_of(plan, i));
		for (size_t p = 0; p < plan->nparams; p++) {
			strbuf_addch(&sb, '\t');
			tsv_field(&sb, plan_value(plan, s, p));
		}
		strbuf_addch(&sb, '\n');
	}
	path = xstrfmt("%s/tasks.tsv", in->sweep_dir);
	ret = path_write_file(path, sb.buf, sb.len, PATH_PRIVATE_FILE);
	free(path);
	if (ret < 0)
		goto out;

	ret = path_write_file(in->script, script_text, strlen(script_text), PATH_PRIVATE_EXEC);
out:
	strbuf_release(&sb);
	return ret;
}

/* The word at *p, unquoted; *p moves past it. NULL for a word sweep cannot tell statically. */
static char *shell_word(const char **p, bool *plain)
{
	struct strbuf sb = STRBUF_INIT;
	const char *s = *p;
	char quote = 0;

	*plain = true;
	for (; *s && (quote || !strchr(" \t\n;&|<>()", *s)); s++) {
		if (quote && *s == quote) {
			quote = 0;
		} else if (!quote && (*s == '\'' || *s == '"')) {
			quote = *s;
		} else if (!quote && *s == '\\' && s[1]) {
			strbuf_addch(&sb, *++s);
		} else {
			if (*s == '{' || *s == '$' || *s == '`')
				*plain = false;
			strbuf_addch(&sb, *s);
		}
	}
	*p = s;
	return strbuf_detach(&sb, NULL);
}

static bool is_assignment(const char *w)
{
	if (!isalpha((unsigned char)*w) && *w != '_')
		return false;
	while (isalnum((unsigned char)*w) || *w == '_')
		w++;
	return *w == '=';
}

char *script_program(const char *command)
{
	static const char *const skip[] = {"exec", "env", "nice", "nohup", "time", "command"};
	static const char *const keywords[] = {"if", "for", "while", "until", "case", "{", "!"};
	const char *p = command;

	for (;;) {
		bool plain, skipped = false;
		char *w;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || strchr("\n;&|<>()", *p))
			return NULL;
		w = shell_word(&p, &plain);
		for (size_t i = 0; i < sizeof(skip) / sizeof(*skip); i++)
			skipped |= !strcmp(w, skip[i]);
		if (plain && (skipped || is_assignment(w))) {
			free(w);
			continue;
		}
		for (size_t i = 0; i < sizeof(keywords) / sizeof(*keywords); i++)
			plain &= strcmp(w, keywords[i]) != 0;
		if (plain && *w)
			return w;
		free(w);
		return NULL;
	}
}
