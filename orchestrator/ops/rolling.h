#ifndef SWEEP_ROLLING_H
#define SWEEP_ROLLING_H

#include <stddef.h>
#include <stdint.h>

struct array_rec;
struct backend_ops;
struct store;
struct strbuf;
struct sweep_policy;
struct sweep_rec;

/*
 * Rolling submission: a sweep bigger than the cluster lets one user queue
 * (MaxJobCount, QOS or association MaxSubmitJobs; every array task counts)
 * is submitted in chunks of rec->roll_chunk array tasks, in index order.
 * `submit` sends what fits with headroom (rollout.h) and a follow-up job
 * (followup.h) after its first chunk; each follow-up reads the limits
 * again, submits the next chunks that fit now (the throttle kept: with %K
 * each chunk starts after the one before it ends), and arranges the next
 * follow-up after the first chunk it submitted. When sbatch still refuses
 * (a limit), it backs off: the next follow-up starts a minute later, and
 * its note names the limit. Once every task is submitted, the follow-up
 * for retries and notification (if any) waits for all the array jobs.
 * `cancel` stops it all: pending follow-ups are cancelled first.
 */

/* The first sweep index not submitted yet: past every chunk of the first submission. */
size_t rolling_next_index(const struct sweep_rec *rec, const struct array_rec *arrays, size_t n);

/*
 * Follow-up seq of a rolling sweep with tasks still to submit: submits the
 * next chunks that fit and arranges follow-up seq + 1. note gets what it
 * did. Returns 0, or a negative code when the store could not record what
 * was submitted (that job is then cancelled).
 */
int rolling_continue(struct strbuf *note, struct store *st, const struct sweep_rec *rec,
                     const struct sweep_policy *p, const struct array_rec *arrays, size_t narrays,
                     unsigned seq);

/*
 * rolling_continue on the side ops (rolling_continue passes the sweep's
 * own, backend_get(rec->backend); the unit tests a fake one). Each chunk
 * goes through the one submission protocol (submission_commit, under the
 * submission lock, waited for up to a minute): intent file, signals
 * blocked, room kept on the disk, recorded at once. The limits are read
 * for the --account and --qos of the sweep's script (sbopt_read_script).
 * A chunk that nothing ran for (sbatch refused it, no room on the disk, the
 * lock still held) backs off; one the store could not record is cancelled
 * and fails the call.
 */
int rolling_continue_on(const struct backend_ops *ops, struct strbuf *note, struct store *st,
                        const struct sweep_rec *rec, const struct sweep_policy *p,
                        const struct array_rec *arrays, size_t narrays, unsigned seq);

/*
 * For status: "submitted 4,000 of 10,000 tasks; next batch when job N
 * ends" (or "... after a back-off"); nothing for a sweep that is not
 * rolling or has all its tasks submitted.
 */
int rolling_describe(struct strbuf *out, struct store *st, const struct sweep_rec *rec,
                     const struct array_rec *arrays, size_t narrays);

#endif
