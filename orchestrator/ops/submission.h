#ifndef SWEEP_SUBMISSION_H
#define SWEEP_SUBMISSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct backend_ops;
struct quota;
struct store;
struct strbuf;
struct sweep_rec;

/*
 * What submit and resubmit share around handing array jobs to a backend.
 */

/*
 * The backend's largest array (MaxArraySize; 0 = no limit). A dry run works
 * without a cluster: there a failure is shown as a warning followed by
 * unknown_says, and the dry run goes on with no limit.
 */
int submission_max_array_size(const struct backend_ops *ops, uint32_t *out, bool dry_run,
                              const char *unknown_says);

/* One array job of a submission. */
struct submission_job {
	char *array;     /* the --array value */
	uint32_t offset; /* the index offset, the script's argument */
	uint32_t job_id; /* set once the backend accepted it; 0 before, or when a cancel failed */
	const struct quota *quota; /* the limits read before, to name one in a refusal; or NULL */
	/*
	 * Packed sweeps (rec->pack > 1) resubmitted by list: the sweep indices,
	 * comma-separated, pack per array task (the script's argument "@list"),
	 * and the minutes each task's step gets (0: the script's). NULL: the
	 * array's tasks start at offset.
	 */
	char *indices;
	uint64_t step_min;
};

/*
 * Options of job i beside the dependency: each of opt1 and opt2 (empty on
 * entry) that it leaves non-empty is passed. Returns -1 after error().
 */
typedef int (*submission_opts_fn)(void *data, size_t i, struct strbuf *opt1, struct strbuf *opt2);

/*
 * The submission protocol of submit and resubmit: writes the intent file
 * (cli_write_intent: what recovery needs to record a job it finds), then
 * submits the jobs in order, each after the previous one ends when the
 * sweep has a throttle (rec->max_concurrent), and records each accepted
 * one at once as attempt attempt; one the store could not record is
 * cancelled at once. Around each sbatch it keeps room on the disk
 * (cli_reserve_space) and passes lock_fd, the submission lock the caller
 * holds (cli_submit_lock), to it (backend_submit.hold_fd). who ("submit",
 * "resubmit") names its fault points (<who>-before-sbatch,
 * <who>-after-sbatch, <who>-after-add-array: see fault.h). Fails
 * (reported) at the first job that fails; the caller then cancels what was
 * accepted (submission_cancel). The caller blocks signals around both
 * (cli_hold_signals), marks the sweep and clears the intent file.
 */
int submission_run(const struct backend_ops *ops, struct store *st, const struct sweep_rec *rec,
                   struct submission_job *jobs, size_t n, unsigned attempt, submission_opts_fn opts,
                   void *data, int lock_fd, const char *who);

/* Cancels the accepted jobs; those it could not cancel (reported) get job_id 0. */
void submission_cancel(const struct backend_ops *ops, struct store *st, const struct sweep_rec *rec,
                       struct submission_job *jobs, size_t n);

#endif
