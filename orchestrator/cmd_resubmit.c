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
#include "cli.h"
#include "error.h"
#include "fault.h"
#include "loaded.h"
#include "plan.h"
#include "outcome.h"
#include "quote.h"
#include "resubmit.h"
#include "rightsize.h"
#include "script.h"
#include "store.h"
#include "strbuf.h"
#include "submission.h"
#include "table.h"
#include "units.h"

#include "banned.h"

/* A sweep still "submitting" this soon after it was created may be being submitted now. */
#define SUBMITTING_GRACE_S 600

static const char usage[] = "sweep resubmit [options] [SWEEP]";
static const char options[] =
    "SWEEP is a sweep's name or id (default: the most recent sweep).\n"
    "\n"
    "Runs again, as one more attempt of the same sweep (same indices, settings and\n"
    "seeds), every task whose latest run is missing, FAILED, TIMEOUT, OUT_OF_MEMORY,\n"
    "CANCELLED, NODE_FAIL, PREEMPTED, BOOT_FAIL or DEADLINE. Tasks still pending or\n"
    "running are skipped.\n"
    "\n"
    "options:\n"
    "  --dry-run          print the plan and the sbatch commands; submit nothing\n"
    "  --mem-factor F     a task that ran out of memory gets F times what it had\n"
    "                     (default 2, more than 1), rounded up to a clean size\n"
    "  --time-factor F    a task that hit its time limit gets F times what it had\n"
    "                     (default 2), in whole minutes\n"
    "  --state-dir DIR    the state folder (default $SWEEP_STATE_DIR or .sweep)\n"
    "  -h, --help         show this help\n"
    "\n"
    "exit status: 0 resubmitted (or nothing to resubmit), 1 error, 2 usage.\n";

struct resubmit_opts {
	const char *state_dir;
	const char *which;
	bool dry_run;
	double mem_factor;
	double time_factor;
};

/* Returns CLI_CONTINUE to go on, or the exit code the command ends with. */
static int parse_options(struct resubmit_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"dry-run", no_argument, NULL, 'n'},
	    {"mem-factor", required_argument, NULL, 'm'},
	    {"time-factor", required_argument, NULL, 't'},
	    {"state-dir", required_argument, NULL, 's'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int opt, code;

	o->mem_factor = RIGHTSIZE_MEM_FACTOR;
	o->time_factor = RIGHTSIZE_TIME_FACTOR;
	cli_getopt_start();
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			o->dry_run = true;
			break;
		case 'm':
			if (cmd_rightsize_parse_factor(&o->mem_factor, "mem-factor", optarg) < 0)
				return cli_usage(stderr, usage, options);
			break;
		case 't':
			if (cmd_rightsize_parse_factor(&o->time_factor, "time-factor", optarg) < 0)
				return cli_usage(stderr, usage, options);
			break;
		default:
			code =
			    cli_common_option(opt, &o->state_dir, argv, longopts, usage, options);
			if (code != CLI_CONTINUE)
				return code;
		}
	}
	return cli_take_sweep(&o->which, argc, argv, usage, options);
}

/* Everything the command works from; the outcomes borrow from set. */
struct state {
	const struct backend_ops *ops; /* where the sweep ran */
	struct loaded_sweep l;
	struct resubmit_script script;
	struct resubmit_plan rp;
};

static void state_init(struct state *s)
{
	memset(s, 0, sizeof(*s));
	loaded_init(&s->l);
	resubmit_plan_init(&s->rp);
}

static void state_release(struct state *s)
{
	resubmit_plan_release(&s->rp);
	loaded_release(&s->l);
	state_init(s);
}

static int read_script(struct resubmit_script *out, const char *path)
{
	struct strbuf text = STRBUF_INIT;
	const char *why;
	int ret = 0;

	if (strbuf_read_file(&text, path) < 0)
		ret = error("cannot read the sweep's script '%s': %s (resubmit runs the same "
		            "script again)",
		            path, strerror(errno));
	else if (script_read_resources(out, text.buf, &why) < 0)
		ret = error("cannot read the #SBATCH lines of '%s': %s", path, why);
	strbuf_release(&text);
	return ret;
}

/* The sbatch options that override the script for one array job (caller frees). */
static int override_args(struct strbuf *mem, struct strbuf *time_opt,
                         const struct resubmit_script *script, const struct resubmit_array *arr)
{
	char buf[64];
	const char *why;

	if (arr->mem_mb && resubmit_mem_option(mem, script, arr->mem_mb, &why) < 0)
		return error("%s", why);
	if (arr->time_min) {
		units_format_time(buf, sizeof(buf), arr->time_min * 60);
		strbuf_addf(time_opt, "--time=%s", buf);
	}
	return 0;
}

/* What a task asks this time: raised options, those kept from its last run, or the script's. */
static char *request_text(const struct state *s, const struct resubmit_task *t)
{
	struct strbuf sb = STRBUF_INIT;
	const char *why;
	char buf[64];

	if (t->mem_mb && resubmit_mem_option(&sb, &s->script, t->mem_mb, &why) == 0 &&
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
	static const char *const head[] = {"INDEX",    "SETTING", "SEED",   "STATE",
	                                   "ATTEMPTS", "WHY",     "REQUEST"};
	struct table t;

	table_init_head(&t, head, sizeof(head) / sizeof(head[0]));
	for (size_t k = 0; k < s->rp.ntasks; k++) {
		const struct resubmit_task *task = &s->rp.tasks[k];
		const struct task_outcome *o = &s->l.outcomes[task->index];
		struct strbuf why = STRBUF_INIT;

		resubmit_reason(&why, o);
		table_add(&t, xstrfmt("%zu", task->index));
		table_add(&t,
		          plan_setting_label(&s->l.plan, plan_setting_of(&s->l.plan, task->index)));
		table_add(&t, xstrfmt("%" PRId64, plan_seed_of(&s->l.plan, task->index)));
		table_addstr(&t, task_state_name(o->state));
		table_add(&t, xstrfmt("%u", o->attempts));
		table_add(&t, strbuf_detach(&why, NULL));
		table_add(&t, request_text(s, task));
	}
	table_print(f, &t);
	table_release(&t);
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
		        rp->nunsettled, rp->nunsettled == 1 ? "" : "s", CLI_MISSING_GRACE_S);
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
	        s->ops->submitter, s->rp.narrays == 1 ? "" : "s");
	for (size_t a = 0; a < s->rp.narrays; a++) {
		const struct resubmit_array *arr = &s->rp.arrays[a];
		struct strbuf mem = STRBUF_INIT, time_opt = STRBUF_INIT, line = STRBUF_INIT;

		if (override_args(&mem, &time_opt, &s->script, arr) < 0) {
			strbuf_release(&mem);
			strbuf_release(&time_opt);
			return SWEEP_ERR;
		}
		strbuf_addf(&line, "  %s --array=%s", s->ops->submit_command, arr->spec);
		if (a > 0 && s->l.rec.max_concurrent)
			strbuf_addstr(&line, " --dependency=afterany:<the previous array job>");
		if (mem.len)
			strbuf_addf(&line, " %s", mem.buf);
		if (time_opt.len)
			strbuf_addf(&line, " %s", time_opt.buf);
		strbuf_addch(&line, ' ');
		add_path(&line, s->l.rec.script);
		strbuf_addf(&line, " %" PRIu32, arr->offset);
		fprintf(f, "%s\n", line.buf);
		strbuf_release(&mem);
		strbuf_release(&time_opt);
		strbuf_release(&line);
	}
	return 0;
}

/* submission_opts_fn: the memory and time overrides of array job i. */
static int array_opts(void *data, size_t i, struct strbuf *mem, struct strbuf *time_opt)
{
	struct state *s = data;

	return override_args(mem, time_opt, &s->script, &s->rp.arrays[i]);
}

static int build_plan(struct state *s, const struct resubmit_opts *o)
{
	struct resubmit_policy p = {0};
	uint32_t max_array = 0;
	const char *why;

	/* A dry run goes on without it. */
	if (submission_max_array_size(s->ops, &max_array, o->dry_run,
	                              "planning without MaxArraySize: it is unknown") < 0)
		return SWEEP_ERR;
	p.mem_factor = o->mem_factor;
	p.time_factor = o->time_factor;
	p.script_mem_mb = resubmit_script_mem_mb(&s->script);
	p.script_time_min = s->script.time_min;
	p.max_array = max_array;
	p.throttle = s->l.rec.max_concurrent;
	p.missing_unsettled = cli_records_may_lag(s->l.arrays, s->l.narrays);
	if (resubmit_plan_build(&s->rp, s->l.outcomes, s->l.plan.ntasks, &p, &why) < 0)
		return error("cannot plan the resubmission of sweep %" PRId64 ": %s", s->l.rec.id,
		             why);
	return 0;
}

static void say_cancelled(const struct submission_job *jobs, size_t n)
{
	struct strbuf ids = STRBUF_INIT;
	size_t count = 0;

	for (size_t a = 0; a < n; a++)
		if (jobs[a].job_id)
			strbuf_addf(&ids, "%s%" PRIu32, count++ ? ", " : "", jobs[a].job_id);
	if (count)
		warning("array job%s %s of this resubmission, already accepted, %s cancelled: "
		        "nothing of it runs",
		        count == 1 ? "" : "s", ids.buf, count == 1 ? "was" : "were");
	strbuf_release(&ids);
}

static int submit(struct state *s)
{
	struct submission_job *jobs = xcalloc(s->rp.narrays, sizeof(*jobs));
	unsigned last = 0;
	sigset_t old;
	int ret, lock_fd;

	/* One submission at a time per sweep, and recovery waits for this one. */
	lock_fd = cli_submit_lock(s->l.rec.dir);
	if (lock_fd < 0) {
		ret = SWEEP_ERR;
		goto out;
	}
	ret = store_last_attempt(s->l.st, &last, s->l.rec.id);
	if (ret < 0)
		goto out;
	for (size_t a = 0; a < s->rp.narrays; a++) {
		jobs[a].array = s->rp.arrays[a].spec;
		jobs[a].offset = s->rp.arrays[a].offset;
	}
	cli_hold_signals(&old);
	ret = submission_run(s->ops, s->l.st, &s->l.rec, jobs, s->rp.narrays, last + 1, array_opts,
	                     s, lock_fd, "resubmit");
	if (ret < 0) {
		/* The cause was reported where it was known; say what became of the rest. */
		submission_cancel(s->ops, s->l.st, &s->l.rec, jobs, s->rp.narrays);
		/* Settled here: nothing for recovery to adopt (it would find the cancelled jobs).
		 */
		cli_clear_intent(s->l.rec.dir);
		sigprocmask(SIG_SETMASK, &old, NULL);
		say_cancelled(jobs, s->rp.narrays);
		goto out;
	}
	fault_point("resubmit-before-finish");
	/* A sweep whose first submission failed runs now. */
	if (s->l.rec.status != SWEEP_SUBMITTED)
		ret = store_finish_sweep(s->l.st, s->l.rec.id, SWEEP_SUBMITTED, NULL);
	if (ret < 0) {
		/* Running but not recorded as such: cancel rather than lose track of it. */
		submission_cancel(s->ops, s->l.st, &s->l.rec, jobs, s->rp.narrays);
		sigprocmask(SIG_SETMASK, &old, NULL);
		say_cancelled(jobs, s->rp.narrays);
		goto out;
	}
	fault_point("resubmit-after-finish");
	cli_clear_intent(s->l.rec.dir);
	sigprocmask(SIG_SETMASK, &old, NULL);

	printf("\nsweep %" PRId64 " '%s': %zu task%s resubmitted as attempt %u\n", s->l.rec.id,
	       s->l.rec.name, s->rp.ntasks, s->rp.ntasks == 1 ? "" : "s", last + 1);
	for (size_t a = 0; a < s->rp.narrays; a++)
		printf("array job %" PRIu32 ": --array=%s, offset %" PRIu32 "\n", jobs[a].job_id,
		       s->rp.arrays[a].spec, s->rp.arrays[a].offset);
	printf("next:   sweep status %" PRId64 "\n", s->l.rec.id);
out:
	if (lock_fd >= 0)
		close(lock_fd);
	free(jobs);
	return ret;
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
	s.ops = backend_get(s.l.rec.backend);
	if (!s.ops || loaded_plan(&s.l) < 0 || loaded_outcomes(&s.l) < 0 ||
	    read_script(&s.script, s.l.rec.script) < 0 || build_plan(&s, &o) < 0)
		goto out;

	if (!s.rp.ntasks) {
		printf("sweep %" PRId64 " '%s': nothing to resubmit: %zu of %zu task%s completed\n",
		       s.l.rec.id, s.l.rec.name, s.rp.ncompleted, s.l.plan.ntasks,
		       s.l.plan.ntasks == 1 ? "" : "s");
		print_skipped(stdout, &s.rp);
		ret = EXIT_OK;
		goto out;
	}
	printf("sweep %" PRId64 " '%s': %zu of %zu task%s to resubmit%s\n\n", s.l.rec.id,
	       s.l.rec.name, s.rp.ntasks, s.l.plan.ntasks, s.l.plan.ntasks == 1 ? "" : "s",
	       o.dry_run ? " (dry run: nothing is submitted)" : "");
	print_plan(stdout, &s);
	print_skipped(stdout, &s.rp);
	if (print_commands(stdout, &s) < 0)
		goto out;
	if (!o.dry_run && submit(&s) < 0)
		goto out;
	ret = EXIT_OK;
out:
	state_release(&s);
	return ret;
}
