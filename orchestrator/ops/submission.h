#ifndef SWEEP_SUBMISSION_H
#define SWEEP_SUBMISSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct array_chunk;
struct backend_ops;
struct quota;
struct store;
struct strbuf;
struct sweep_rec;

/*
 * The one submission protocol: submit (ops/submit.h, for submit, confirm
 * and --extend), resubmit, retry rounds and rolling chunks hand array jobs
 * to a backend through it, and every command's recovery of an
 * interrupted one (submission_recover) reads what it leaves.
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
 * The array jobs of a submission (free with submission_jobs_free): one per
 * chunk, --array with throttle k (0: none), each naming quota (borrowed)
 * in a refusal.
 */
struct submission_job *submission_jobs_of_chunks(const struct array_chunk *chunks, size_t n,
                                                 unsigned k, const struct quota *quota);

/*
 * The array jobs of an extending sweep: per chunk (as array_chunks), the
 * indices no earlier sweep ran (reused_from[i] == 0). Sets *n; NULL when
 * there are none.
 */
struct submission_job *submission_jobs_sparse(size_t ntasks, const int64_t *reused_from,
                                              uint32_t max_array, unsigned k, size_t *n);

/* Frees the n jobs and their --array values; NULL does nothing. */
void submission_jobs_free(struct submission_job *jobs, size_t n);

/*
 * Options of job i beside the dependency: each of opt1 and opt2 (empty on
 * entry) that it leaves non-empty is passed. Returns -1 after error().
 */
typedef int (*submission_opts_fn)(void *data, size_t i, struct strbuf *opt1, struct strbuf *opt2);

/*
 * The submission lock: submit holds an exclusive lock on
 * <sweep dir>/submit.lock from just after the sweep is recorded until it is
 * marked submitted or failed, resubmit (and a retry round) while it
 * submits. The kernel drops the lock when the process dies, even by
 * SIGKILL, which is how a later command knows a submission was interrupted
 * rather than still running. Returns the descriptor to keep open (close it
 * when done), or a negative code after error().
 */
int submission_lock(const char *sweep_dir);

/*
 * The same lock, waiting up to wait_s seconds while another command holds
 * it (a confirm of the same family records its sweep meanwhile). Returns
 * the descriptor, or a negative code after error() ("... still held after
 * N s").
 */
int submission_lock_wait(const char *sweep_dir, unsigned wait_s);

/*
 * Repairs what an interrupted submission left, once nobody holds the
 * submission lock (neither the command nor the sbatch it started): for a
 * sweep left SUBMITTING, records the array jobs the scheduler accepted for
 * its script (backend_ops.find: by job name and script) and marks it
 * SUBMITTED, or FAILED when there were none; for a resubmission that left
 * an intent file, records its jobs; for a sweep marked FAILED with no array
 * job, adopts a job that appeared later under its name and script. Says so
 * on stderr and updates rec. loaded_open calls it, so every command sees
 * the repaired sweep.
 */
int submission_recover(struct store *st, struct sweep_rec *rec);

struct submission;

/*
 * Run after the jobs are in and before the sweep is marked submitted
 * (submit's follow-up job); a failure (reported) rolls the whole
 * submission back.
 */
typedef int (*submission_arrange_fn)(void *data, struct submission *s);

/* One submission: what the caller sets for submission_commit. */
struct submission {
	const struct backend_ops *ops;
	struct store *st;
	const struct sweep_rec *rec;
	struct submission_job *jobs;
	size_t n;
	unsigned attempt;              /* the attempt the jobs are recorded as */
	submission_opts_fn opts;       /* or NULL */
	submission_arrange_fn arrange; /* or NULL */
	void *data;                    /* for opts and arrange */
	/* submit's: a failure marks the sweep FAILED; else (resubmit) its status stays */
	bool first;
	const char *who; /* "submit", "resubmit": names the fault points (fault.h) */
	/* set by submission_commit: the jobs ran but the store could not mark the sweep */
	bool unrecorded;
	/*
	 * set by submission_commit: how many jobs the backend accepted (on a
	 * failure they are cancelled again); 0 after a failure means nothing ran
	 * (a refusal, no room on the disk), which a caller may try again later
	 */
	size_t accepted;
};

/*
 * The protocol, in one place. With Ctrl-C, SIGTERM and SIGHUP blocked
 * throughout (stopped in between, Slurm would run what the store does not
 * know): writes the intent file, <sweep dir>/submit.intent (the array jobs
 * about to be submitted: attempt, offset, --array value, so that recovery
 * records a job it finds with the value and attempt meant for it); submits
 * the jobs in order, each after the previous one ends when the sweep has a
 * throttle (rec->max_concurrent), and records each accepted one at once
 * (one the store could not record is cancelled at once). Around each
 * sbatch it keeps 4 MiB free on the state folder's disk
 * (<sweep dir>/space.reserve, freed just before the writes that record the
 * answer, so that a disk that fills meanwhile cannot lose a running job;
 * without the room nothing is submitted), and passes lock_fd, the
 * submission lock the caller holds (submission_lock), on to it
 * (backend_submit.hold_fd), so it stays held until sbatch has ended too.
 * Then s->arrange, then the sweep is marked SUBMITTED and the intent file
 * cleared.
 *
 * On a failure (reported where it was known) the accepted jobs are
 * cancelled (those that could not be get job_id 0), a first submission is
 * marked FAILED, and -1 is returned; s->unrecorded says the failure was
 * marking the sweep. Fault points: <who>-before-sbatch, <who>-after-sbatch,
 * <who>-after-add-array, <who>-before-finish, <who>-after-finish.
 */
int submission_commit(struct submission *s, int lock_fd);

/* Cancels the accepted jobs; those it could not cancel (reported) get job_id 0. */
void submission_cancel(const struct backend_ops *ops, struct store *st, const struct sweep_rec *rec,
                       struct submission_job *jobs, size_t n);

#endif
