#ifndef SWEEP_SLURM_ACCT_H
#define SWEEP_SLURM_ACCT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "slurm_compat.h"

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
 * One array job of a read with steps whose steps are wanted of some tasks
 * only (the others are kept in the store): every record of the array job
 * is returned, with steps only of those of tasks[0..ntasks-1] that ended.
 */
struct slb_acct_part {
	uint32_t job_id;
	const uint32_t *tasks;
	size_t ntasks;
};

/*
 * As slb_acct_fetch, with the array jobs parts[0..nparts-1] added. With
 * steps and parts, two queries: the parts' job records without steps (as
 * `sacct -X`), then the whole array jobs with steps together with the
 * runs of the parts' tasks that ended (slb_acct_ended_tasks), merged by
 * slb_acct_merge. slurmdbd looks steps up per record it returns, so this
 * is what keeps a refresh of a big, mostly kept array cheap. Without
 * steps or parts, one query; with_steps false reads no steps at all.
 */
int slb_acct_fetch_parts(struct acct_set *out, const uint32_t *array_job_ids, size_t n,
                         const struct slb_acct_part *parts, size_t nparts, bool with_steps);

/*
 * Of part's tasks, those with a run in set (records of the array job read
 * without steps) that ended: an end time or a final state. Written to out
 * (room for part->ntasks) ascending, each once; returns how many.
 */
size_t slb_acct_ended_tasks(uint32_t *out, const struct acct_set *set,
                            const struct slb_acct_part *part);

/* qsort/bsearch order of uint32_t job and task ids: ascending. */
int slb_cmp_u32(const void *a, const void *b);

/*
 * Appends to out the records of first whose task has no record in
 * out->recs[from..]: the pending record always, and tasks read without
 * steps only. Moves their strings (first is released as usual after).
 */
void slb_acct_merge(struct acct_set *out, size_t from, struct acct_set *first);

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
