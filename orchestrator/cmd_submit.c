/*
 * sweep submit: sweep file -> validated spec -> plan -> script -> sbatch ->
 * store. Everything that can be checked is checked before the store is
 * touched; the store records the sweep before sbatch runs and each accepted
 * array job at once, so a failure at any point leaves an honest record.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array.h"
#include "backend.h"
#include "cfg.h"
#include "cli.h"
#include "error.h"
#include "fault.h"
#include "plan.h"
#include "path.h"
#include "script.h"
#include "sizing.h"
#include "space.h"
#include "proc.h"
#include "store.h"
#include "strbuf.h"
#include "submission.h"

#include "banned.h"

static const char usage[] = "sweep submit [options] SWEEP.yaml";
static const char options[] =
    "options:\n"
    "  --dry-run          print the script and the task table; submit and record nothing\n"
    "  --local            run the tasks on this machine, in the background, not on Slurm\n"
    "  --gpus-per-task N  GPUs for each task (slurm.gpus_per_task); with --local, free\n"
    "                     GPUs of this machine, never shared (see sweep gpus)\n"
    "  --resources-from SWEEP\n"
    "                     set slurm.mem and slurm.time from what that sweep's tasks\n"
    "                     used (see sweep rightsize)\n"
    "  --state-dir DIR    the state folder (default $SWEEP_STATE_DIR or .sweep)\n"
    "  -h, --help         show this help\n";

static int check_syntax(const char *path)
{
	const char *argv[] = {"bash", "-n", path, NULL};
	struct proc_result res;
	int ret = 0;

	proc_result_init(&res);
	if (proc_run(&res, argv, NULL, 30) < 0) {
		ret = SWEEP_ERR;
	} else if (!res.exited || res.status != 0) {
		strbuf_trim_trailing_newlines(&res.err);
		ret = error("the generated script is not valid bash (check the command and setup "
		            "in the sweep file):\n%s",
		            res.err.buf);
	}
	proc_result_release(&res);
	return ret;
}

/* A template path is relative to the sweep file's folder, like an include. */
static int load_template(struct strbuf *out, const struct cfg *cfg, const char *source)
{
	char *path, *dir;
	int ret = 0;

	if (!cfg->template_path) {
		strbuf_addstr(out, script_default_template);
		return 0;
	}
	dir = xstrndup(source, (size_t)(strrchr(source, '/') - source));
	path = path_absolute(cfg->template_path, dir);
	free(dir);
	if (strbuf_read_file_max(out, path, SCRIPT_TEMPLATE_MAX_BYTES, STRBUF_READ_PIPE) < 0) {
		if (errno == EFBIG)
			ret = error("cannot read the script template '%s': larger than %u MiB",
			            path, SCRIPT_TEMPLATE_MAX_BYTES >> 20);
		else if (errno == EINVAL)
			ret = error("cannot read the script template '%s': not a regular file or a "
			            "pipe",
			            path);
		else
			ret = error("cannot read the script template '%s': %s", path,
			            strerror(errno));
	}
	free(path);
	return ret;
}

static void print_task_table(const struct plan *plan)
{
	printf("index\tsetting\tseed");
	for (size_t p = 0; p < plan->nparams; p++)
		printf("\t%s", plan->params[p]);
	printf("\n");
	for (size_t i = 0; i < plan->ntasks; i++) {
		size_t s = plan_setting_of(plan, i);

		printf("%zu\t%zu\t%" PRId64, i, s, plan_seed_of(plan, i));
		for (size_t p = 0; p < plan->nparams; p++)
			printf("\t%s", plan_value(plan, s, p));
		printf("\n");
	}
}

static void print_chunks(const struct backend_ops *ops, const struct array_chunk *chunks, size_t n,
                         unsigned k)
{
	char spec[64];

	if (n <= 1)
		return;
	printf("# The sweep exceeds MaxArraySize: %zu array jobs%s.\n", n,
	       k ? ", each starting after the previous one ends, so the throttle holds" : "");
	for (size_t c = 0; c < n; c++) {
		array_spec(spec, sizeof(spec), chunks[c].count, k);
		printf("#   %s --array=%s SCRIPT %" PRIu32 "   (tasks %" PRIu32 "-%" PRIu32 ")\n",
		       ops->submitter, spec, chunks[c].offset, chunks[c].offset,
		       chunks[c].offset + chunks[c].count - 1);
	}
}

/* The chunks as the array jobs of a submission (free with free_jobs). */
static struct submission_job *chunk_jobs(const struct array_chunk *chunks, size_t n, unsigned k)
{
	struct submission_job *jobs = xcalloc(n ? n : 1, sizeof(*jobs));
	char spec[64];

	for (size_t c = 0; c < n; c++) {
		array_spec(spec, sizeof(spec), chunks[c].count, k);
		jobs[c].array = xstrdup(spec);
		jobs[c].offset = chunks[c].offset;
	}
	return jobs;
}

static void free_jobs(struct submission_job *jobs, size_t n)
{
	for (size_t c = 0; jobs && c < n; c++)
		free(jobs[c].array);
	free(jobs);
}

int cmd_submit(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"dry-run", no_argument, NULL, 'n'},
	    {"local", no_argument, NULL, 'l'},
	    {"gpus-per-task", required_argument, NULL, 'g'},
	    {"resources-from", required_argument, NULL, 'r'},
	    {"state-dir", required_argument, NULL, 's'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *state_opt = NULL, *resources_from = NULL;
	int dry_run = 0, opt, code, ret = EXIT_ERROR;
	char cwd[PATH_MAX];
	struct cfg cfg;
	struct plan plan;
	struct strbuf tmpl = STRBUF_INIT, script = STRBUF_INIT, spec_text = STRBUF_INIT;
	struct script_input in = {0};
	struct sweep_rec rec;
	struct store *st = NULL;
	struct array_chunk *chunks = NULL;
	struct submission_job *jobs = NULL;
	size_t nchunks = 0;
	uint32_t max_array = 0;
	char *logs = NULL, *source = NULL, *dry_dir = NULL, *dry_script = NULL, *state_dir = NULL;
	sigset_t old;
	const struct backend_ops *ops;
	const char *gpus_opt = NULL;
	int local = 0, lock_fd = -1;

	cfg_init(&cfg);
	plan_init(&plan);
	sweep_rec_init(&rec);
	cli_getopt_start();
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			dry_run = 1;
			break;
		case 'l':
			local = 1;
			break;
		case 'g':
			if (optarg[strspn(optarg, "0123456789")] || !*optarg ||
			    strlen(optarg) > 4) {
				error("--gpus-per-task takes a number of GPUs, not '%s'", optarg);
				return cli_usage(stderr, usage, options);
			}
			gpus_opt = optarg;
			break;
		case 'r':
			resources_from = optarg;
			break;
		default:
			code = cli_common_option(opt, &state_opt, argv, longopts, usage, options);
			if (code != CLI_CONTINUE)
				return code;
		}
	}
	if (argc - optind != 1)
		return cli_usage(stderr, usage, options);
	ops = local ? backend_local() : backend_get(NULL);
	if (!getcwd(cwd, sizeof(cwd)))
		die("cannot read the current folder: %s", strerror(errno));

	/* Read once: what is checked is what the store keeps (a pipe has no second read). */
	if (cfg_read_file(&spec_text, argv[optind]) < 0 ||
	    cfg_load_string(&cfg, argv[optind], spec_text.buf, spec_text.len) < 0 ||
	    plan_expand(&plan, &cfg) < 0 || plan_check_sizes(&plan, &cfg) < 0)
		goto out;
	if (resources_from && sizing_apply(&cfg, cli_state_dir(state_opt), resources_from) < 0)
		goto out;
	if (gpus_opt) {
		/* The script carries it, so a resubmission asks the same. */
		free(cfg.slurm.gpus_per_task);
		cfg.slurm.gpus_per_task = strtoul(gpus_opt, NULL, 10) ? xstrdup(gpus_opt) : NULL;
	}
	if (plan.ntasks > UINT32_MAX) {
		error("the sweep has %zu tasks, more than Slurm can index", plan.ntasks);
		goto out;
	}

	/* A dry run works without a cluster: say so, and show one array. */
	if (submission_max_array_size(ops, &max_array, dry_run,
	                              "showing the sweep as one array: MaxArraySize is unknown") <
	    0)
		goto out;
	chunks = array_chunks(plan.ntasks, max_array, &nchunks);

	logs = path_absolute(cfg.logs ? cfg.logs : "logs", cwd);
	source = path_absolute(argv[optind], cwd);
	if (load_template(&tmpl, &cfg, source) < 0)
		goto out;
	in.cfg = &cfg;
	in.plan = &plan;
	in.logs = logs;
	in.workdir = cwd;
	in.source = source;
	in.array_limit = max_array;

	/* Render once before the store is touched: every mistake shows up here. */
	state_dir = path_absolute(cli_state_dir(state_opt), cwd);
	dry_dir = xstrfmt("%s/sweeps/DRY-RUN", state_dir);
	dry_script = xstrfmt("%s/%s.sbatch", dry_dir, cfg.name);
	in.sweep_id = 0;
	in.sweep_dir = dry_dir;
	in.script = dry_script;
	if (script_render(&script, tmpl.buf, &in) < 0)
		goto out;
	if (dry_run) {
		fputs(script.buf, stdout);
		printf("\n# --- %zu tasks ---\n", plan.ntasks);
		print_chunks(ops, chunks, nchunks, cfg.slurm.max_concurrent);
		print_task_table(&plan);
		ret = EXIT_OK;
		goto out;
	}

	if (store_open(&st, state_dir, 1) < 0)
		goto out;
	if (cfg.checkpoint.size_mb) {
		size_t at_once = cfg.slurm.max_concurrent && cfg.slurm.max_concurrent < plan.ntasks
		                     ? cfg.slurm.max_concurrent
		                     : plan.ntasks;
		uint64_t need = space_needed_mb(plan.ntasks, cfg.slurm.max_concurrent,
		                                cfg.checkpoint.size_mb, cfg.checkpoint.keep);

		if (space_check(state_dir, need, at_once, cfg.checkpoint.size_mb,
		                cfg.checkpoint.keep) < 0)
			goto out;
	}
	rec.name = xstrdup(cfg.name);
	rec.source = xstrdup(source);
	rec.logs = xstrdup(logs);
	rec.backend = xstrdup(ops->name);
	rec.max_concurrent = cfg.slurm.max_concurrent;
	fault_point("submit-before-record");
	if (store_begin_sweep(st, &rec, &plan, spec_text.buf) < 0)
		goto out;
	fault_point("submit-after-record");
	/* Held until the sweep is marked submitted or failed: see cli_recover_submission. */
	lock_fd = cli_submit_lock(rec.dir);
	if (lock_fd < 0) {
		store_finish_sweep(st, rec.id, SWEEP_FAILED, error_last());
		goto out;
	}
	fault_point("submit-after-lock");

	strbuf_reset(&script);
	in.sweep_id = rec.id;
	in.sweep_dir = rec.dir;
	in.script = rec.script;
	if (script_render(&script, tmpl.buf, &in) < 0 || script_write_files(&in, script.buf) < 0 ||
	    check_syntax(rec.script) < 0) {
		store_finish_sweep(st, rec.id, SWEEP_FAILED, error_last());
		goto out;
	}

	cli_hold_signals(&old);
	jobs = chunk_jobs(chunks, nchunks, cfg.slurm.max_concurrent);
	if (submission_run(ops, st, &rec, jobs, nchunks, 1, NULL, NULL, lock_fd, "submit") < 0) {
		char *reason = xstrdup(error_last());

		submission_cancel(ops, st, &rec, jobs, nchunks);
		/* Settled here: nothing for recovery to adopt (it would find the cancelled jobs).
		 */
		if (store_finish_sweep(st, rec.id, SWEEP_FAILED, reason) == 0)
			cli_clear_intent(rec.dir);
		free(reason);
		sigprocmask(SIG_SETMASK, &old, NULL);
		goto out;
	}
	fault_point("submit-before-finish");
	if (store_finish_sweep(st, rec.id, SWEEP_SUBMITTED, NULL) < 0) {
		/* Running but not recorded as such: cancel rather than lose track of it. */
		char *reason = xstrdup(error_last());

		submission_cancel(ops, st, &rec, jobs, nchunks);
		store_finish_sweep(st, rec.id, SWEEP_FAILED, reason);
		free(reason);
		sigprocmask(SIG_SETMASK, &old, NULL);
		warning("the array jobs of sweep %" PRId64 " were cancelled: the state store "
		        "could not record them",
		        rec.id);
		goto out;
	}
	fault_point("submit-after-finish");
	cli_clear_intent(rec.dir);
	sigprocmask(SIG_SETMASK, &old, NULL);

	printf("sweep %" PRId64 " '%s': %zu tasks (%zu setting%s x %zu seed%s)\n", rec.id, rec.name,
	       plan.ntasks, plan.nsettings, plan.nsettings == 1 ? "" : "s", plan.nseeds,
	       plan.nseeds == 1 ? "" : "s");
	for (size_t c = 0; c < nchunks; c++)
		printf("array job %" PRIu32 ": tasks %" PRIu32 "-%" PRIu32 "\n", jobs[c].job_id,
		       chunks[c].offset, chunks[c].offset + chunks[c].count - 1);
	printf("script: %s\nlogs:   %s\nnext:   sweep status %" PRId64 "\n", rec.script, rec.logs,
	       rec.id);
	if (local)
		printf("runs on this machine in the background: %s/runner-*.log\n", rec.dir);
	ret = EXIT_OK;
out:
	if (lock_fd >= 0)
		close(lock_fd);
	free_jobs(jobs, nchunks);
	free(chunks);
	free(logs);
	free(source);
	free(dry_dir);
	free(dry_script);
	free(state_dir);
	strbuf_release(&tmpl);
	strbuf_release(&script);
	strbuf_release(&spec_text);
	sweep_rec_release(&rec);
	store_close(st);
	plan_release(&plan);
	cfg_release(&cfg);
	return ret;
}
