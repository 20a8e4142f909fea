#ifndef SWEEP_SLURM_BACKEND_H
#define SWEEP_SLURM_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"

/*
 * The Slurm side of the seam "submit these indices of this plan": limits
 * read from the controller through libslurm, submission through sbatch
 * (run from an argv array, never a shell), cancellation through libslurm.
 * Accounting (what ran) is in slurm_acct.h. The prefix is slb_ (Slurm
 * backend): libslurm owns slurm_ and slurmdb_.
 */

/* The controller's MaxArraySize (the highest array index is one less). */
int slb_max_array_size(uint32_t *out);

/*
 * Runs "sbatch --parsable --array=... [extra] script OFFSET" and returns
 * the job id (the script reads its index offset from its argument). sbatch's own error text is
 * shown to the user in the error message; a silent sbatch is killed after the timeout.
 * The job id is appended to SLB_JOBS_FILE beside the script, where a task
 * that stops the sweep (fail_fast) finds the jobs to cancel.
 */
#define SLB_JOBS_FILE "array-jobs"
int slb_submit(uint32_t *job_id, const struct backend_submit *req);

/*
 * A follow-up job (backend.h): sbatch --parsable --dependency=afterany:...
 * [--mail-type=END --mail-user=...] script ARG; sets its id.
 */
int slb_followup(uint32_t *job_id, const struct backend_followup *req);

/* scontrol update of a running job's mail: END to addr. */
int slb_mail_at_end(uint32_t job_id, const char *addr);

/* Cancels array jobs (all their tasks). Already-finished jobs are not an error. */
int slb_cancel(const uint32_t *job_ids, size_t n);

struct quota;
/*
 * Reads the limits for a job of this account and QOS (NULL: the user's
 * defaults, as sbatch would choose them) into q (quota.h). Fails only when
 * slurmctld cannot be reached; limits slurmdbd should give but cannot are
 * left out and q->note says so.
 */
int slb_quota_read(struct quota *q, const char *account, const char *qos);

/* backend_versions (backend.h): what the Slurm side was built against and runs with. */
void slb_versions(struct backend_versions *out);

/* This side of the seam (backend.h): submission, accounting, cancellation.
 * Only backend.c names it. */
extern const struct backend_ops slb_backend;

#endif
