#ifndef SWEEP_SLURM_ACCT_H
#define SWEEP_SLURM_ACCT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <slurm/slurmdb.h>

#include "acct.h"

/*
 * The Slurm backend's accounting: slurmdbd's records decoded into the
 * backend-neutral acct_set. Only the Slurm backend (and its unit test)
 * includes this header; everything else sees acct.h.
 */

/*
 * Reads every record (all runs, requeued ones included) of the given array
 * jobs from Slurm accounting with one slurmdb_jobs_get query; with their
 * steps (MaxRSS) only when with_steps, else JOBCOND_FLAG_NO_STEP. Daemons
 * that are down give a clear error within seconds, never a hang or an exit
 * of the process: no readable slurm.conf, slurmdbd unreachable.
 */
int slb_acct_fetch(struct acct_set *out, const uint32_t *array_job_ids, size_t n, bool with_steps);

/*
 * One array job of a query with steps whose steps are wanted of some
 * tasks only: every record of the array job is returned, but slurmdbd
 * reads the steps only of tasks[0..ntasks-1] (the others' come without).
 */
struct slb_acct_part {
	uint32_t job_id;
	const uint32_t *tasks;
	size_t ntasks;
};

/*
 * As slb_acct_fetch, in the same one query, with the array jobs parts[0..nparts-1]
 * added; with_steps false reads no steps at all, as there.
 */
int slb_acct_fetch_parts(struct acct_set *out, const uint32_t *array_job_ids, size_t n,
                         const struct slb_acct_part *parts, size_t nparts, bool with_steps);

/* How many job records came with steps from slurmdbd in this process so far. */
unsigned long slb_acct_step_records(void);

/* How many slurmdb_jobs_get queries this process sent so far. */
unsigned slb_acct_queries(void);

/*
 * Decodes one record of slurmdb_jobs_get, read with its steps or not
 * (acct_rec.steps_final), and appends it to out (unit tests feed it
 * hand-built records). Returns 1 when a record was appended, 0 when
 * the row is skipped: REVOKED and RESIZING rows (bookkeeping, not runs) and
 * jobs that are not arrays.
 */
int slb_acct_decode_job(struct acct_set *out, const slurmdb_job_rec_t *job, bool with_steps);

#endif
