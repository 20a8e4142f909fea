#ifndef SWEEP_LOCAL_IMPL_H
#define SWEEP_LOCAL_IMPL_H

/*
 * Shared between the files of the local backend (local.c: the ops;
 * local_job.c: what a job asks and the decisions; local_proc.c: /proc;
 * local_runner.c and local_turn.c: the runner), nowhere else.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "local.h"

#define TERM_GRACE_S     30 /* SIGKILL this long after the time limit's SIGTERM: Slurm's KillWait */
#define CANCEL_GRACE_S   5  /* SIGKILL this long after cancel's SIGTERM */
#define CANCEL_WAIT_S    (CANCEL_GRACE_S + 10) /* how long cancel waits for a runner to finish */
#define POLL_S           1                     /* memory and dependency checks */
#define GPU_RETRY_S      5  /* asking nvidia-smi again while too few GPUs are free */
#define START_GRACE_S    60 /* a job with no runner recorded yet is still being submitted */
#define DEFAULT_SIGNAL_S 60 /* sbatch's @time when --signal gives none */

/* "TERM", "USR1"... for a signal number; "?" for others. */
const char *local_signal_name(int sig);

/* ---- /proc (local_proc.c) ---- */

struct pstat {
	char state;
	long ppid;
	long session;
	uint64_t start; /* clock ticks after boot */
	uint64_t rss_pages;
};

/* Reads /proc/<pid>/stat; fails (quietly) when the process is gone. */
int local_read_pstat(struct pstat *out, long pid);
/* Whether pid is still the process that started at start (pids are reused). */
bool local_process_is(int64_t pid, uint64_t start);
/* A /proc entry's name as a pid, or -1 when it is not all digits. */
long local_digits_value(const char *name);
/*
 * Sends sig to every live process of session sid that started no earlier
 * than since (a later process reusing the number is not the task's).
 * Returns how many were signalled.
 */
size_t local_signal_session(long sid, uint64_t since, int sig);

/* ---- the runner (local_runner.c) ---- */

/* Seconds on the monotonic clock. */
double local_now_s(void);
/* This machine's host name (the one runners record). */
void local_this_host(char *buf, size_t size);
/* Whether the runner still runs; one on another machine (a shared state folder) is trusted. */
bool local_runner_alive(const struct local_array_rec *arr, int64_t now, const char *host);

/* ---- a task's process (local_task.c) ---- */

/* Variables a task gets besides ours: "NAME=value" strings, owned. */
struct local_env {
	char **own;
	size_t n, alloc;
};
void local_env_release(struct local_env *e);

/* What a batch task of an array job sees of Slurm; borrowed. */
struct local_task_env {
	const struct local_array_rec *arr;
	const struct local_task_rec *task;
	size_t count; /* the array's tasks: SLURM_ARRAY_TASK_COUNT */
	uint32_t task_min, task_max;
	const char *host;
	const char *gpus; /* its GPUs, or NULL */
};

/* Adds to e what Slurm would give the batch task in. */
void local_task_env(struct local_env *e, const struct local_task_env *in);
/*
 * Our environment without Slurm's variables (from some other job) and
 * those e sets, then e's: for execve. Free the array only (its strings are
 * borrowed from environ and e).
 */
char **local_task_environ(const struct local_env *e);
/* In the child: the task's own session, its logs, default signals, then the script. */
void local_task_exec(const char *workdir, int in, int out, int err, const char *const *argv,
                     char *const *env) __attribute__((noreturn));

#endif
