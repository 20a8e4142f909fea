#ifndef SWEEP_SLURM_HOLD_H
#define SWEEP_SLURM_HOLD_H

#include <stdint.h>

#include "slurm_compat.h"

#include "acct.h"
#include "array.h"

/*
 * Held tasks (prefix slb_hold_): slurmdbd records a held task as PENDING,
 * with a priority of 0 at best and a reason that is the one it had when
 * the record was written, never who holds it nor its begin time. The
 * controller knows: each PENDING record of an array job is matched with
 * the controller's job record of the same task (or of the array's pending
 * tasks) and, when that one waits on a hold, a dependency or a begin time,
 * made TS_HELD with acct_rec.hold and a reason in words.
 */

/*
 * What keeps the controller's pending job from starting, from its
 * state_reason (WAIT_HELD_USER, WAIT_HELD, WAIT_DEPENDENCY,
 * WAIT_DEP_INVALID, WAIT_TIME) or, for any other reason, a priority of 0
 * (a hold whose reason the controller has not written yet: an
 * administrator's, unless the reason says the user). ACCT_HOLD_NONE for a
 * job that is not pending or waits for anything else (resources,
 * priority, the array's throttle).
 */
enum acct_hold slb_hold_of(const slurm_job_info_t *job);

/*
 * The reason of a hold in words, as status shows it; the caller frees it.
 * "held by the user"; "held by an administrator", with Slurm's detail
 * when it gives one (": launch failed requeued held"); "waiting for
 * dependency afterok:12_*" ("waiting for a dependency" when Slurm names
 * none); "waiting for a dependency that can never be met: afterok:12_*(failed)"; "begins at
 * 2026-12-06T09:33:10" (local time; "waiting for its begin time" when the
 * controller gives none). NULL for ACCT_HOLD_NONE.
 */
char *slb_hold_reason(const slurm_job_info_t *job, enum acct_hold hold);

/*
 * Marks the PENDING records of array job array_job_id in set (whole tasks
 * or the array's pending record, not job steps) that the controller's
 * records msg show held: state TS_HELD, hold, and reason (replacing any).
 * A record is matched by array task id, the pending record (ACCT_NO_TASK)
 * with the controller's record that holds the array's pending tasks.
 * When set has no record of the array job at all (slurmdbd hears of a job
 * whose begin time is ahead only once it comes), a TS_HELD record is added
 * for each held record of the controller's: the pending one covering
 * spec, the --array value it was submitted with (no task of it ran yet).
 * Returns how many records it marked or added.
 */
size_t slb_hold_apply(struct acct_set *set, const job_info_msg_t *msg, uint32_t array_job_id,
                      const char *spec);

/*
 * slb_hold_apply with the controller's records of each of the sweep's
 * array jobs arrays[0..narrays-1] that has a PENDING record in set with a
 * sign of a hold (maybe_held: a busy cluster's ordinary pending tasks send
 * no RPC), or no record at all: one slurm_load_job per such array job, none
 * when no task may be held and every array job has records. Accounting is what status reads;
 * this only refines it: when the controller cannot be reached, a warning
 * says held tasks show as PENDING, and the records are left as they are.
 */
void slb_hold_mark(struct acct_set *set, const struct array_rec *arrays, size_t narrays);

#endif
