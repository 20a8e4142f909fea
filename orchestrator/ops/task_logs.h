#ifndef SWEEP_TASK_LOGS_H
#define SWEEP_TASK_LOGS_H

/*
 * The operations of `sweep logs`: the run of a task in a given attempt,
 * and its log files copied to stdout once, or followed until the task's
 * run has ended (-f).
 */
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "loaded.h"
#include "outcome.h"

/* A log file being shown: path is owned (the caller frees it), what is borrowed. */
struct task_log_file {
	char *path;
	const char *what; /* "stdout", "stderr" */
	off_t pos;
};

/*
 * The run of task index in its attempt-th attempt (0: the latest), from the
 * outcomes built from the array jobs up to each attempt, into out. 0, or
 * SWEEP_ERR with the error said (the task had fewer attempts).
 */
int task_logs_find_run(struct task_outcome *out, const struct loaded_sweep *l, size_t index,
                       unsigned attempt);

/*
 * Copies the new bytes of each of files[0..n-1] to stdout, with a header
 * whenever the file changes (tail's way; *shown: the file shown last, -1
 * none); a file not there yet is fine when follow. Made visible when
 * visible. 0, or SWEEP_ERR with the error said.
 */
int task_logs_copy_new(struct task_log_file *files, size_t n, int *shown, bool follow,
                       bool visible);

/* -f: copies until the task's latest run has ended, then what it wrote last. 0 or SWEEP_ERR. */
int task_logs_follow(struct task_log_file *files, size_t n, int *shown, struct loaded_sweep *l,
                     size_t index, bool visible);

/*
 * -f right after submit: waits a while for the task's first record
 * (slurmdbd hears of a new array job a moment after sbatch returns).
 * 0 or SWEEP_ERR.
 */
int task_logs_wait_record(struct loaded_sweep *l, size_t index);

/*
 * Whether the sweep file's command runs Python without unbuffered output
 * (no PYTHONUNBUFFERED in env: nor in sweep's own environment, no -u): -f
 * then says, after a running
 * task stayed silent a while, that its print()s wait in a buffer.
 */
struct cfg;
bool task_logs_python_buffered(const struct cfg *cfg);

#endif
