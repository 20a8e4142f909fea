#ifndef SWEEP_FOLLOWUP_H
#define SWEEP_FOLLOWUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "script_followup.h"

struct cfg;
struct store;
struct strbuf;
struct sweep_policy;
struct sweep_rec;
struct task_outcome;

/*
 * A sweep that finishes itself, with no daemon of sweep's: "what to do when
 * these jobs end" is a follow-up.
 *
 * On Slurm a follow-up is a tiny job (<sweep dir>/followup.sbatch, written
 * by script_followup.h: one CPU, FOLLOWUP_MEM, FOLLOWUP_TIME) submitted with
 * --dependency=afterany on the jobs it waits for. It runs this very sweep
 * binary, by the absolute path it had at submit (so it must be visible on
 * the compute nodes, as the state folder is): `sweep __followup --state-dir
 * DIR SWEEP_ID SEQ`. On the local side the runner of the last of those
 * array jobs runs the same code in its own process when its tasks are done
 * (followup_run_local_ended). This header is the arranging side;
 * followup_run.h runs one.
 *
 * A follow-up claims its row in the store (it acts once, and not at all
 * once cancelled), waits (bounded) until accounting has the final record
 * of every task, and decides (aggregate/finish.h):
 * - retry: runs the failed and missing tasks again exactly as `sweep
 *   resubmit` does (rerun.h), only those more resources can heal unless
 *   retry_on_exit, as the next attempt; and chains the next follow-up
 *   after those array jobs;
 * - last: writes <sweep dir>/report.txt (`sweep report --allow-incomplete`)
 *   and sends the sweep's one notification: notify.command (once, claimed
 *   in the store) with SWEEP_ID, SWEEP_NAME and SWEEP_REPORT, and Slurm's
 *   own mail at the end of this job (asked at its submission when it was
 *   surely the last, else set on itself with scontrol).
 * Every follow-up is recorded (store.h: followups) with what it did, for
 * status; cancel cancels pending ones before the arrays, so a cancelled
 * sweep never retries itself.
 */

#define FOLLOWUP_REPORT "report.txt"
/* How long a follow-up waits for accounting to hold every task's final record. */
#define FOLLOWUP_SETTLE_S 180

/* Whether the policy needs follow-up jobs at all (retries or notify). */
bool followup_wanted(const struct sweep_policy *p);

/*
 * The sweep file's retries, retry_on_exit, notify and fail_fast into out
 * (zeroed first; release it), with program set to this binary's absolute
 * path (/proc/self/exe) when follow-ups are wanted. Fails when that path
 * cannot be found or is no longer an executable file.
 */
int followup_policy_from_cfg(struct sweep_policy *out, const struct cfg *cfg);

/*
 * Arranges follow-up number seq of the sweep, to run once the jobs in after
 * have ended, and records it: submitted as a job (sets *job_id) on Slurm,
 * recorded for the runners on the local side (*job_id = 0). With mail, the
 * job carries the scheduler's end mail to p->mail.
 */
int followup_arrange(uint32_t *job_id, struct store *st, const struct sweep_rec *rec,
                     const struct sweep_policy *p, unsigned seq, const uint32_t *after,
                     size_t nafter, bool mail);

/*
 * The same with the purpose in words (NULL: the retry or report one) and a
 * start no earlier than begin_s seconds from now (0: as soon as the jobs
 * in after have ended): rolling submission (rolling.h) backs off this way.
 */
int followup_arrange_for(uint32_t *job_id, struct store *st, const struct sweep_rec *rec,
                         const struct sweep_policy *p, unsigned seq, const uint32_t *after,
                         size_t nafter, bool mail, const char *purpose, unsigned begin_s);

/* Sets out->program to this binary's absolute path, unless set (see followup_policy_from_cfg). */
int followup_set_program(struct sweep_policy *out);

/*
 * For status: the follow-ups, the retry rounds used and left, what is to
 * come, and a sweep stopped by fail_fast with its first failures' logs.
 * Appends nothing for a sweep with neither. *active: a follow-up is still
 * pending or running (the sweep may still change by itself).
 */
int followup_describe(struct strbuf *out, bool *active, struct store *st,
                      const struct sweep_rec *rec, const struct task_outcome *outcomes,
                      size_t ntasks);

/*
 * For cancel: marks the pending follow-ups cancelled (so none acts) and
 * cancels their jobs; sets *n to how many there were.
 */
int followup_cancel(size_t *n, struct store *st, const struct sweep_rec *rec);

#endif
