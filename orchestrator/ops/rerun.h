#ifndef SWEEP_RERUN_H
#define SWEEP_RERUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "resubmit.h"

struct backend_ops;
struct loaded_sweep;
struct strbuf;
struct submission_job;

/*
 * Running a sweep's tasks again: the loaded sweep's outcomes -> the
 * resubmission plan (aggregate/resubmit.h) -> the submission protocol
 * (submission.h) as the next attempt. `sweep resubmit` and the follow-up
 * job's retry rounds both go through here, so a retry round is exactly a
 * resubmission. On a failure whatever was accepted is cancelled and said
 * so; signals are held in between.
 */
struct rerun {
	const struct backend_ops *ops; /* where the sweep ran */
	struct loaded_sweep *l;        /* borrowed: with its plan and outcomes loaded */
	struct resubmit_script script;
	struct resubmit_plan rp;
	struct submission_job *jobs; /* after rerun_submit: one per rp.arrays[] */
	unsigned attempt;            /* after rerun_submit: the attempt it recorded */
};

void rerun_init(struct rerun *r);
void rerun_release(struct rerun *r);

/* The backend and the script's #SBATCH request of l (plan and outcomes loaded). */
int rerun_start(struct rerun *r, struct loaded_sweep *l);

/*
 * Builds r->rp from the loaded outcomes. base gives the factors and,
 * optionally, only; MaxArraySize, the script's request and the throttle are
 * filled in here. A dry run goes on without MaxArraySize. settled: the
 * caller waited for the records, so a missing task is missing even when its
 * array job is recent.
 */
int rerun_plan(struct rerun *r, const struct resubmit_policy *base, bool dry_run, bool settled);

/* The sbatch options that override the script for one array job of the plan. */
int rerun_override_args(struct strbuf *mem, struct strbuf *time_opt, const struct rerun *r,
                        const struct resubmit_array *arr);

/* Submits r->rp.arrays as the next attempt (see above); sets jobs and attempt. */
int rerun_submit(struct rerun *r);

#endif
