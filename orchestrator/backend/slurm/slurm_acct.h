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
 * One array job of which some tasks only are asked about (the others are
 * kept in the store): the records of tasks[0..ntasks-1] (every run), with
 * steps only of those that ended when read with steps.
 */
struct slb_acct_part {
	uint32_t job_id;
	const uint32_t *tasks;
	size_t ntasks;
	/*
	 * Every run of these tasks, and the array's pending record, had not
	 * ended or ended at this time or later (acct_cache_entry.since; 0:
	 * unknown). A part too big to name is then read as the array job's
	 * rows that ended since, not whole.
	 */
	int64_t since;
};

/*
 * As slb_acct_fetch, with the array jobs parts[0..nparts-1] added, of
 * which only the tasks parts[p].tasks (those not kept) are asked about:
 * their job records are read without steps by naming the tasks, so that
 * slurmdbd returns the records of the tasks not kept and no other (a
 * refresh then costs what runs, not the size of the sweep), plus the
 * array's record of pending tasks when some named task has no record of
 * its own and the array job's own row was not among the records (a second
 * query: the array job's rows that have not ended); a part whose tasks
 * are still not covered without that row (slb_acct_array_row), that has no
 * task to name or is beyond SLB_ACCT_MAX_NAMED is read whole, or, when its
 * since is known, as the array job's rows that have not ended or ended at
 * since or later (the running tasks and those that ended since the last
 * read: what changed), and read whole only when that leaves a task not
 * kept without a row while the array's own row is not among them. With steps,
 * then one more query: the whole array jobs with steps together with the
 * runs of the parts' tasks that ended (slb_acct_ended_tasks), merged by
 * slb_acct_merge. Without parts, one query.
 */
int slb_acct_fetch_parts(struct acct_set *out, const uint32_t *array_job_ids, size_t n,
                         const struct slb_acct_part *parts, size_t nparts, bool with_steps);

/*
 * The most (array job, task) pairs one query names. slurmdbd writes each
 * into one SQL "(id_array_job, id_array_task) in (...)" list. Measured on
 * the test cluster's MariaDB (a job table of 170,000 rows), with sacct
 * naming tasks of one array job: 20 to 400 pairs 0.06-0.09 s, 600 pairs
 * 2.8 s, 1,300 pairs 6.0 s, against 0.10 s for the whole array of 2,000:
 * past a few hundred the server stops using the index and scans the
 * table. So at most 256 are named; the parts with more tasks not kept are
 * read whole (by the array job's id: the index), as every refresh was
 * before. Step entries cannot name ranges of tasks: each pair is one entry.
 */
#define SLB_ACCT_MAX_NAMED 256

/*
 * How far before a read its since is set (acct_cache_entry.since): rows
 * that were still running when read may get an end time a little earlier
 * than the read's own clock, as slurmctld's clock differs from this
 * host's and its messages reach slurmdbd late under load. A row missed
 * that way leaves its task without a row, and the array job is read whole.
 */
#define SLB_ACCT_SINCE_MARGIN_S 60

/* How the job records of whole array jobs and parts are asked: see slb_acct_plan_parts. */
struct slb_acct_plan {
	uint32_t *whole; /* array jobs read whole */
	size_t nwhole;
	struct slb_acct_part *named; /* parts whose tasks are named (borrowed task lists) */
	size_t nnamed;
	struct slb_acct_part *windowed; /* parts read as the rows that ended since their since */
	size_t nwindowed;
};

/*
 * Plans one read: ids[0..n-1] are read whole, and so are the parts with
 * no task to name (every task kept: their whole record makes the array
 * job kept whole). The parts that do not fit in budget pairs once the
 * parts with fewer tasks are named, smallest first, are windowed when
 * their since is known, else read whole. Release with
 * slb_acct_plan_release; the parts' task lists stay the caller's.
 */
void slb_acct_plan_parts(struct slb_acct_plan *out, const uint32_t *ids, size_t n,
                         const struct slb_acct_part *parts, size_t nparts, size_t budget);
void slb_acct_plan_release(struct slb_acct_plan *p);

/*
 * Of part's tasks, those set (job records without steps) has no record of
 * (any run), and that are not among the tasks of part's array job's
 * pending record either; an unreadable pending record covers none. Written
 * to out (room for part->ntasks) ascending, each once; returns how many.
 */
size_t slb_acct_uncovered(uint32_t *out, const struct acct_set *set,
                          const struct slb_acct_part *part);

/*
 * Whether set holds the row of array job array_job_id whose job id is the
 * array job's own: its record of pending tasks, or, once none is pending,
 * the task that record became. Named tasks with no row while it is there
 * started a moment ago (slurmdbd has not heard yet); without it, the
 * pending record may have ended, and the array job is read whole.
 */
bool slb_acct_array_row(const struct acct_set *set, uint32_t array_job_id);

/*
 * The condition of one query (slurmdb_job_cond_t, the caller's): every
 * run of the array jobs ids[0..n-1], and of the parts' tasks named one
 * (job, task) entry each; with their steps only when with_steps (MaxRSS
 * lives on steps; the rest is on the job record, and a query without
 * steps costs a fifth); only the rows that have not ended or ended at
 * since or later (0: all). Release with slb_acct_cond_release.
 */
void slb_acct_build_cond(slurmdb_job_cond_t *cond, const uint32_t *ids, size_t n,
                         const struct slb_acct_part *parts, size_t nparts, const char *cluster,
                         bool with_steps, int64_t since);
void slb_acct_cond_release(slurmdb_job_cond_t *cond);

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

/* How many job records slurmdbd returned to this process so far (every query). */
unsigned long slb_acct_records(void);

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
