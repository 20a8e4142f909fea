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

/*
 * Initialises libslurm once per process. Checks first that a slurm.conf
 * is readable ($SLURM_CONF or /etc/slurm/slurm.conf), because libslurm
 * retries for a minute and then exits the process when there is none.
 */
int slb_init(void);

/* The controller's MaxArraySize (the highest array index is one less). */
int slb_max_array_size(uint32_t *out);

/* The local cluster's name from slurm.conf (borrowed from libslurm), or NULL. */
const char *slb_name(void);

/*
 * Runs "sbatch --parsable --array=... [extra] script OFFSET" and returns
 * the job id (the script reads its index offset from its argument). sbatch's own error text is
 * shown to the user in the error message; a silent sbatch is killed after the timeout.
 */
int slb_submit(uint32_t *job_id, const struct backend_submit *req);

/* Cancels array jobs (all their tasks). Already-finished jobs are not an error. */
int slb_cancel(const uint32_t *job_ids, size_t n);

/* backend_versions (backend.h): what the Slurm side was built against and runs with. */
void slb_versions(struct backend_versions *out);

/* This side of the seam (backend.h): submission, accounting, cancellation.
 * Only backend.c names it. */
extern const struct backend_ops slurm_backend_ops;

#endif
