/*
 * sweep resubmit: store + accounting -> one outcome per task (its latest
 * attempt) -> the resubmission plan -> sbatch -> store. The same generated
 * script runs again, so indices, settings and seeds are the same; sbatch
 * options on the command line override its #SBATCH lines. The protocol is
 * submit's: each accepted array job is recorded at once (as the next
 * attempt), and on a failure whatever this resubmission already submitted is
 * cancelled, so a refused resubmission is never shown as running.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "acct.h"
#include "backend.h"
#include "causes.h"
#include "cli.h"
#include "error.h"
#include "gate.h"
#include "loaded.h"
#include "plan.h"
#include "outcome.h"
#include "quote.h"
#include "rerun.h"
#include "resubmit.h"
#include "rightsize.h"
#include "script.h"
#include "store.h"
#include "strbuf.h"
#include "verdict.h"
#include "submission.h"
#include "task_table.h"
#include "units.h"

#include "banned.h"

/* A sweep still "submitting" this soon after it was created may be being submitted now. */
#define SUBMITTING_GRACE_S 600

static const struct cli_option option_table[] = {
    {0, "dry-run", 'n', NULL, "print the plan and the sbatch commands; submit nothing"},
    {0, "force", 'f', NULL,
     "resubmit even when every failed task failed the same way\n"
     "for no resource (the same command would fail the same way)"},
    {0, "mem-factor", 'm', "F",
     "a task that ran out of memory gets F times what it had\n"
     "(default 2, more than 1), rounded up to a clean size"},
    {0, "time-factor", 't', "F",
     "a task that hit its time limit gets F times what it had\n"
     "(default 2), in whole minutes"},
    CLI_OPT_REFRESH,
    CLI_OPT_STATE_DIR,
    CLI_OPT_HELP,
    CLI_OPT_END,
};

static struct cli_command command = {
    .usage = "sweep resubmit [options] [SWEEP]",
    .intro = "SWEEP is a sweep's name or id (default: the most recent sweep).\n"
             "\n"
             "Runs again, as one more attempt of the same sweep (same indices, settings and\n"
             "seeds), every task whose latest run is missing, FAILED, TIMEOUT, OUT_OF_MEMORY,\n"
             "CANCELLED, NODE_FAIL, PREEMPTED, BOOT_FAIL or DEADLINE. Tasks still pending or\n"
             "running are skipped.\n"
             "\n",
    .options = option_table,
    .outro = "\n"
             "exit status: 0 resubmitted (or nothing to resubmit), 1 error (or refused: the\n"
             "same failure everywhere), 2 usage.\n",
    .column = 21,
};

struct resubmit_opts {
	const char *state_dir;
	const char *which;
	bool dry_run;
	bool force;
	double mem_factor;
	double time_factor;
	bool refresh;
};

/* Returns CLI_CONTINUE to go on, or the exit code the command ends with. */
static int parse_options(struct resubmit_opts *o, int argc, char **argv)
{
	int opt, code;

	o->mem_factor = RIGHTSIZE_MEM_FACTOR;
	o->time_factor = RIGHTSIZE_TIME_FACTOR;
	cli_command_prepare(&command);
	while ((opt = getopt_long(argc, argv, command.shortopts, command.longopts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			o->dry_run = true;
			break;
		case 'f':
			o->force = true;
			break;
		case 'm':
			if (cmd_rightsize_parse_factor(&o->mem_factor, "mem-factor", optarg) < 0)
				return cli_usage(stderr, command.usage, command.help);
			break;
		case 't':
			if (cmd_rightsize_parse_factor(&o->time_factor, "time-factor", optarg) < 0)
				return cli_usage(stderr, command.usage, command.help);
			break;
		case 'R':
			o->refresh = true;
			break;
		default:
			code = cli_common_option(opt, &o->state_dir, argv, command.longopts,
			                         command.usage, command.help);
			if (code != CLI_CONTINUE)
				return code;
		}
	}
	return cli_take_sweep(&o->which, argc, argv, command.usage, command.help);
}

/* Everything the command works from. */
struct state {
	struct loaded_sweep l;
	struct rerun r;
	struct causes causes;
};

static void state_init(struct state *s)
{
	memset(s, 0, sizeof(*s));
	loaded_init(&s->l);
	rerun_init(&s->r);
}

static void state_release(struct state *s)
{
	rerun_release(&s->r);
	causes_release(&s->causes);
	loaded_release(&s->l);
	state_init(s);
}

/* What a task asks this time: raised options, those kept from its last run, or the script's. */
static char *request_text(const struct state *s, const struct resubmit_task *t)
{
	struct strbuf sb = STRBUF_INIT;
	const char *why;
	char buf[64];

	if (t->mem_mb && resubmit_mem_option(&sb, &s->r.script, t->mem_mb, &why) == 0 &&
	    !t->mem_raised)
		strbuf_addstr(&sb, " (as its last run)");
	if (t->time_min) {
		units_format_time(buf, sizeof(buf), t->time_min * 60);
		strbuf_addf(&sb, "%s--time=%s%s", sb.len ? " " : "", buf,
		            t->time_raised ? "" : " (as its last run)");
	}
	if (!sb.len)
		strbuf_addstr(&sb, "as the script asks");
	return strbuf_detach(&sb, NULL);
}

static void print_plan(FILE *f, const struct state *s)
{
	static const enum task_col cols[] = {TT_INDEX,  TT_SETTING,  TT_SEED,
	                                     TT_STATE,  TT_ATTEMPTS, TT_EXIT,
	                                     TT_REASON, TT_REQUEST,  TT_CAUSE};
	struct task_table t;

	task_table_init(&t, cols, sizeof(cols) / sizeof(cols[0]));
	for (size_t k = 0; k < s->r.rp.ntasks; k++) {
		const struct resubmit_task *task = &s->r.rp.tasks[k];
		const struct task_outcome *o = &s->l.outcomes[task->index];
		const struct task_cause *c = &s->causes.tasks[task->index];
		char *label =
		    plan_setting_label(&s->l.plan, plan_setting_of(&s->l.plan, task->index));
		char *request = request_text(s, task);
		struct strbuf why = STRBUF_INIT;
		struct task_row row;

		resubmit_reason(&why, o);
		task_row_init(&row, task->index, o);
		row.setting = label;
		row.seed = plan_seed_of(&s->l.plan, task->index);
		row.reason = why.buf;
		row.request = request;
		row.cause = c->failed ? c->text : NULL;
		task_table_add(&t, &row);
		strbuf_release(&why);
		free(request);
		free(label);
	}
	task_table_print(f, &t);
	task_table_release(&t);
}

static void print_skipped(FILE *f, const struct resubmit_plan *rp)
{
	if (rp->nactive)
		fprintf(f, "skipped: %zu task%s still pending or running (not failed yet)\n",
		        rp->nactive, rp->nactive == 1 ? "" : "s");
	if (rp->nunsettled)
		fprintf(f,
		        "skipped: %zu task%s with no accounting record yet (the sweep's newest "
		        "array job is less than %d s old): try again shortly\n",
		        rp->nunsettled, rp->nunsettled == 1 ? "" : "s", LOADED_MISSING_GRACE_S);
}

/* A path as a shell reads it back: bare when it is plain, else single-quoted. */
static void add_path(struct strbuf *out, const char *path)
{
	if (path[strspn(path, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	                      "/._-+,:@%")])
		quote_sh(out, path);
	else
		strbuf_addstr(out, path);
}

static int print_commands(FILE *f, const struct state *s)
{
	/* The local side takes the same options, without sbatch. */
	fprintf(f,
	        "\n%s command%s (the script's argument is the index offset: array task t "
	        "runs index offset + t):\n",
	        s->r.ops->submitter, s->r.rp.narrays == 1 ? "" : "s");
	for (size_t a = 0; a < s->r.rp.narrays; a++) {
		const struct resubmit_array *arr = &s->r.rp.arrays[a];
		struct strbuf mem = STRBUF_INIT, time_opt = STRBUF_INIT, line = STRBUF_INIT;

		if (rerun_override_args(&mem, &time_opt, &s->r, arr) < 0) {
			strbuf_release(&mem);
			strbuf_release(&time_opt);
			return SWEEP_ERR;
		}
		strbuf_addf(&line, "  %s --array=%s", s->r.ops->submit_command, arr->spec);
		if (a > 0 && s->l.rec.max_concurrent)
			strbuf_addstr(&line, " --dependency=afterany:<the previous array job>");
		if (mem.len)
			strbuf_addf(&line, " %s", mem.buf);
		if (time_opt.len)
			strbuf_addf(&line, " %s", time_opt.buf);
		strbuf_addch(&line, ' ');
		add_path(&line, s->l.rec.script);
		if (arr->indices)
			strbuf_addf(&line, " @%s%s%.0" PRIu64, arr->indices,
			            arr->time_min ? " " : "", arr->time_min);
		else
			strbuf_addf(&line, " %" PRIu32, arr->offset);
		fprintf(f, "%s\n", line.buf);
		strbuf_release(&mem);
		strbuf_release(&time_opt);
		strbuf_release(&line);
	}
	return 0;
}

static int build_plan(struct state *s, const struct resubmit_opts *o)
{
	struct resubmit_policy p = {0};

	p.mem_factor = o->mem_factor;
	p.time_factor = o->time_factor;
	return rerun_plan(&s->r, &p, o->dry_run, false);
}

/*
 * Says which of the tasks to run again failed for no resource; refuses
 * (without --force) when all failed the same such way.
 */
static int check_causes(const struct state *s, const struct resubmit_opts *o)
{
	struct strbuf why = STRBUF_INIT;
	size_t *only = xcalloc(s->r.rp.ntasks ? s->r.rp.ntasks : 1, sizeof(*only));
	bool same;
	int ret = 0;

	for (size_t k = 0; k < s->r.rp.ntasks; k++)
		only[k] = s->r.rp.tasks[k].index;
	same = causes_rerun_check(&why, &s->causes, only, s->r.rp.ntasks);
	/* The case: python3 was a pyenv shim on the node, not the python the user meant. */
	if (same)
		causes_add_programs(&why, &s->causes, only, s->r.rp.ntasks);
	if (why.len)
		fprintf(stdout, "\nthese will likely fail the same way again:\n%s", why.buf);
	if (same && !o->force)
		ret = error("every task to resubmit failed the same way, for no resource: the same "
		            "command would fail the same way. Next: read the cause ('sweep logs %" PRId64
		            " %zu') and the program that ran (above: is it the one the command meant? a "
		            "shim or another PATH on the node picks another), fix it, then 'sweep resubmit %" PRId64
		            " --force'; or, if the fix is in the sweep file, edit it and 'sweep "
		            "submit --extend %" PRId64 " FILE', which keeps the tasks that passed",
		            s->l.rec.id, only[0], s->l.rec.id, s->l.rec.id);
	free(only);
	strbuf_release(&why);
	return ret;
}

static int submit(struct state *s)
{
	struct rerun *r = &s->r;

	if (rerun_submit(r) < 0)
		return SWEEP_ERR;
	printf("\nsweep %" PRId64 " '%s': %zu task%s resubmitted as attempt %u\n", s->l.rec.id,
	       s->l.rec.name, r->rp.ntasks, r->rp.ntasks == 1 ? "" : "s", r->attempt);
	for (size_t a = 0; a < r->rp.narrays; a++)
		printf("array job %" PRIu32 ": --array=%s, offset %" PRIu32 "\n", r->jobs[a].job_id,
		       r->rp.arrays[a].spec, r->rp.arrays[a].offset);
	printf("next:   sweep status %" PRId64 "\n", s->l.rec.id);
	return 0;
}

/*
 * Every run completed, yet report's verdict may still fail some tasks: a
 * metric the program never printed where the sweep file looks. Say so as
 * list does ("3 completed, no metric"), with the first reason, and why
 * resubmitting would not help: the same program prints the same.
 */
static void print_no_metric(struct state *s)
{
	struct verdict v;
	char *failures;

	verdict_init(&v);
	if (verdict_check_loaded(&v, &s->l, NULL, 0) == 0 && !gate_complete(&v.gate)) {
		failures = gate_failures_text(&v.gate);
		printf("but report's verdict is incomplete (%s): %s\n"
		       "Running the same program again prints the same: fix where the sweep file "
		       "looks\n(results:) and submit it again, or see what exists with 'sweep "
		       "report --allow-incomplete'.\n",
		       failures, v.gate.failures[0].reason ? v.gate.failures[0].reason : "no metric");
		free(failures);
	}
	verdict_release(&v);
}

int cmd_resubmit(int argc, char **argv)
{
	struct resubmit_opts o = {0};
	struct state s;
	int ret = EXIT_ERROR, code;

	state_init(&s);
	code = parse_options(&o, argc, argv);
	if (code != CLI_CONTINUE)
		return code;
	if (loaded_open(&s.l, cli_state_dir(o.state_dir), o.which) < 0)
		goto out;
	if (s.l.rec.status == SWEEP_SUBMITTING &&
	    (int64_t)time(NULL) - s.l.rec.created_at < SUBMITTING_GRACE_S) {
		error("sweep %" PRId64 " '%s' is being submitted (or its submission was "
		      "interrupted less than %d minutes ago): try again later",
		      s.l.rec.id, s.l.rec.name, SUBMITTING_GRACE_S / 60);
		goto out;
	}
	/* The plan shows what the failed tasks used (MaxRSS): steps. */
	s.l.read.steps = true;
	s.l.read.refresh = o.refresh;
	if (loaded_plan(&s.l) < 0 || loaded_outcomes(&s.l) < 0 || rerun_start(&s.r, &s.l) < 0 ||
	    build_plan(&s, &o) < 0 ||
	    causes_load(&s.causes, s.l.st, &s.l.rec, s.l.outcomes, s.l.plan.ntasks) < 0)
		goto out;

	if (!s.r.rp.ntasks) {
		printf("sweep %" PRId64 " '%s': nothing to resubmit: %zu of %zu task%s completed\n",
		       s.l.rec.id, s.l.rec.name, s.r.rp.ncompleted, s.l.plan.ntasks,
		       s.l.plan.ntasks == 1 ? "" : "s");
		print_skipped(stdout, &s.r.rp);
		print_no_metric(&s);
		ret = EXIT_OK;
		goto out;
	}
	printf("sweep %" PRId64 " '%s': %zu of %zu task%s to resubmit%s\n\n", s.l.rec.id,
	       s.l.rec.name, s.r.rp.ntasks, s.l.plan.ntasks, s.l.plan.ntasks == 1 ? "" : "s",
	       o.dry_run ? " (dry run: nothing is submitted)" : "");
	print_plan(stdout, &s);
	print_skipped(stdout, &s.r.rp);
	if (print_commands(stdout, &s) < 0 || check_causes(&s, &o) < 0)
		goto out;
	if (!o.dry_run && submit(&s) < 0)
		goto out;
	ret = EXIT_OK;
out:
	state_release(&s);
	return ret;
}
