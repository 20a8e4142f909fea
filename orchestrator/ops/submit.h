#ifndef SWEEP_SUBMIT_H
#define SWEEP_SUBMIT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cfg.h"
#include "extend.h"
#include "followup.h"
#include "plan.h"
#include "quota.h"
#include "rollout.h"
#include "script.h"
#include "store.h"
#include "strbuf.h"

struct array_chunk;
struct backend_ops;
struct submission_job;

/*
 * A new sweep, from the sweep file to the store: sweep file text -> validated
 * spec -> plan -> script -> the one submission protocol (submission.h:
 * intent file, lock, signals blocked, space reserved, submission_commit).
 * Everything that can be checked is checked before the store is touched;
 * the store records the sweep before the backend runs and each accepted
 * array job at once, so a failure at any point leaves an honest record.
 * `sweep submit` and `sweep confirm` (and --extend) submit through it.
 */

/* What the caller asks. The strings are borrowed: they outlive the struct submit run with them. */
struct submit_opts {
	/*
	 * The sweep file, read once: a path or a pipe. It and state_dir are
	 * absolute, or relative to workdir, which is then the current folder.
	 */
	const char *file;
	/*
	 * The folder the sweep runs from, absolute: the sweep file's relative
	 * paths (logs, template, stage, checkpoints) resolve against it, and the
	 * script's --chdir is it. Nothing else reads the process's current
	 * folder, so a caller need not chdir there.
	 */
	const char *workdir;
	const char *state_dir;      /* the state folder */
	const char *resources_from; /* a sweep to size slurm.mem and slurm.time from, or NULL */
	const char *extend_from;    /* a sweep whose passed tasks are reused, or NULL */
	const char *gpus;           /* --gpus-per-task, digits, or NULL */
	bool dry_run;               /* plan and render; record and submit nothing */
	bool local;                 /* the local backend instead of Slurm */
};

/*
 * One submission, from the sweep file to the summary: what the steps hand
 * on, and what the printers (submit_print_*) read. Owned by the struct:
 * release with submit_release.
 */
struct submit {
	struct submit_opts o;
	const struct backend_ops *ops;
	char cwd[PATH_MAX]; /* o.workdir */
	struct cfg cfg;
	struct plan plan;
	struct strbuf tmpl, script, spec_text;
	struct script_input in;
	struct sweep_rec rec;
	struct store *st;
	struct array_chunk *chunks;
	size_t nchunks;
	struct submission_job *jobs;
	size_t njobs;
	uint32_t followup_job;
	struct sweep_policy policy;
	struct extend ext;
	uint64_t units; /* array tasks: the tasks, pack to each */
	struct quota quota;
	struct rollout_plan rp;
	bool rolling; /* the first chunks now, the rest by follow-ups (rolling.h) */
	char *logs, *source, *dry_dir, *dry_script, *state_dir;
	char *bin; /* this binary, for a packed array task's tasks (script_input.sweep_bin) */
	int lock_fd;
};

void submit_init(struct submit *s);
void submit_release(struct submit *s);

/*
 * Runs the submission o asks into s (o is copied; its strings stay
 * borrowed). With o->dry_run it stops once the script is rendered and the
 * plan made (nothing recorded; print with submit_print_dry_run); else the
 * sweep is recorded and its array jobs submitted (print with
 * submit_print_submitted). Returns 0, or a negative code after error(); a
 * failure after the sweep was recorded marks it failed.
 */
int submit_run(struct submit *s, const struct submit_opts *o);

/*
 * --dry-run: the script, the checkpoint space check, the plan and the task
 * table on stdout. Returns 0, or a negative code after error() when the
 * checkpoints would not fit.
 */
int submit_print_dry_run(const struct submit *s);

/* What was submitted, and what comes next, on stdout. */
void submit_print_submitted(const struct submit *s);

/*
 * checkpoint.size x keep x the tasks at once against the free space and the
 * quotas of the file system that takes the checkpoints; with show, prints
 * the check there.
 */
int submit_check_checkpoint_space(const struct cfg *cfg, const struct plan *plan, const char *cwd,
                                  const char *state_dir, FILE *show);

#endif
