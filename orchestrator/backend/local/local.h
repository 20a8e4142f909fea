#ifndef SWEEP_LOCAL_H
#define SWEEP_LOCAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acct.h"
#include "backend.h"

struct gpu_set;
struct local_array_rec;
struct local_task_rec;
struct strbuf;

/*
 * The local side of the seam (backend.h): tasks run on this machine, with
 * no scheduler, from the same generated script and with the environment
 * Slurm would give them.
 *
 * submit reads what the array job asks from the script's #SBATCH lines
 * (and the sbatch options given with it), records the job and its tasks
 * as PENDING in the state store, and starts a runner: the sweep binary
 * re-executed as "sweep __local-runner STATE_DIR JOB_ID" in a session of
 * its own, its output in <sweep dir>/runner-<JOB_ID>.log. The runner starts
 * at most the throttle's number of tasks at once, each as a session of its
 * own (so a task's processes are those of its session), gives each its own
 * free GPUs, enforces the time limit (warning signal, SIGTERM, SIGKILL) and
 * the memory request, records every change of a task's state in the store,
 * and exits when the array job's tasks are done. records reads those rows;
 * cancel stops the runners, which stop their tasks.
 */
extern const struct backend_ops local_backend;

/* The hidden command the runner runs as (backend.h's BACKEND_HELPER_COMMAND). */
#define LOCAL_RUNNER_COMMAND BACKEND_HELPER_COMMAND
int local_runner_main(int argc, char **argv);

/*
 * What the runner calls when its array job has no task left to run (after
 * recording every task's end): backend_set_end_hook's. NULL calls nothing.
 */
void local_set_end_hook(int (*hook)(const char *state_dir, int64_t sweep_id, uint32_t job_id));
/* backend_local_job_done (backend.h): every task of local array job id is final. */
int local_job_done(bool *done, struct store *st, uint32_t id);

/* The pure parts, for tests. */

/*
 * What an array job asks: the script's #SBATCH lines (read as sbatch
 * reads them, up to the first command), then the sbatch options of this
 * submission (extra, NULL-terminated, or NULL), which take precedence.
 * Fills name, out/err patterns, open mode, workdir, time limit, warning
 * signal, memory per task, CPUs, GPUs per task and after_job_id of out
 * (zeroed first; the caller releases it). Options that mean nothing on one
 * machine (--partition...) are ignored. Defaults as sbatch's: output
 * "slurm-%A_%a.out", error into the output, no signal, no limits. A value
 * sbatch would refuse is reported ("'SOURCE': --time=soon: ...") and out
 * released.
 */
int local_read_job(struct local_array_rec *out, const char *source, const char *script_text,
                   const char *const *extra);

/* An sbatch file name pattern with %x (job name), %A, %a, %j and %% filled in. */
void local_expand_pattern(struct strbuf *out, const char *pattern, const char *name,
                          uint32_t array_job_id, uint32_t array_task_id, uint32_t job_id);

/*
 * How many pending tasks to start now: no more than throttle running at
 * once (0: no limit) and, when each task needs gpus_per_task GPUs, no more
 * than free_gpus allow.
 */
size_t local_schedule(size_t running, size_t pending, unsigned throttle, unsigned gpus_per_task,
                      size_t free_gpus);

/*
 * When, in seconds after a task's start, the runner acts on it; -1 for
 * never. As Slurm's --signal=B:SIG@warn_s: the warning goes to the
 * script's shell warn_s seconds before the limit (at the start when
 * warn_s is not shorter); SIGTERM to every process at the limit, SIGKILL
 * grace_s later.
 */
struct local_deadlines {
	int64_t warn_at;
	int64_t term_at;
	int64_t kill_at;
};
void local_deadlines(struct local_deadlines *out, uint64_t time_limit_s, int warn_signal,
                     unsigned warn_s, unsigned grace_s);

/* Why the runner stopped a task, if it did. */
enum local_stop {
	LOCAL_STOP_NONE = 0,
	LOCAL_STOP_TIMEOUT,
	LOCAL_STOP_MEMORY,
	LOCAL_STOP_CANCEL,
};

/* A task's final state from its script's wait status and why the runner stopped it. */
enum task_state local_final_state(int wstatus, enum local_stop why);

/*
 * One stored task as the accounting record Slurm would give: times,
 * limits, the measured peak memory, the node. A task left PENDING or
 * RUNNING by a runner that is gone (runner_alive false; a machine's reboot,
 * say) is NODE_FAIL, unless its own process still runs (task_alive). now
 * gives a running task's elapsed time. node is copied.
 */
void local_task_acct(struct acct_rec *out, const struct local_task_rec *t,
                     const struct local_array_rec *arr, bool runner_alive, bool task_alive,
                     int64_t now, const char *node);

/*
 * A task's end note, <sweep dir>/.end.<job id>: made (LOCAL_END_NOTE_BYTES
 * blanks) by the runner before the task starts, while the disk has room,
 * and written over in place with how the task ended when the store cannot
 * record it (a full disk), so that status still tells how it ended rather
 * than a node failure. Removed once the end is recorded.
 *
 * local_end_note_path returns the path (the caller frees it).
 * local_end_note_format appends the note for t's end to out, padded with
 * blanks to LOCAL_END_NOTE_BYTES. local_end_note_parse sets t's state,
 * exit code, signal, end time, MaxRSS and CPU time from a note and returns
 * 0; -1, t untouched, for a note still blank or one it cannot read.
 */
#define LOCAL_END_NOTE_BYTES 128
char *local_end_note_path(const char *sweep_dir, uint32_t job_id);
void local_end_note_format(struct strbuf *out, const struct local_task_rec *t);
int local_end_note_parse(struct local_task_rec *t, const char *text);

#endif
