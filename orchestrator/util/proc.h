#ifndef SWEEP_PROC_H
#define SWEEP_PROC_H

#include "strbuf.h"

/*
 * Runs a child program from an argv array (posix_spawnp: no shell ever
 * reads a string built from input), with extra environment entries,
 * collecting its standard output and error, and killing it when it runs
 * longer than a timeout or prints more than PROC_OUTPUT_MAX.
 */

/*
 * The most proc_run reads of each of a child's two streams: 16 MiB, far
 * above what nvidia-smi, scontrol, sbatch, lfs or bash -n print, so that a
 * program that prints without end cannot fill this process's memory.
 */
#define PROC_OUTPUT_MAX (16 << 20)

struct proc_result {
	int exited;    /* 1 when it exited normally */
	int status;    /* exit status, or the signal that ended it */
	int timed_out; /* 1 when it was killed for the timeout */
	struct strbuf out;
	struct strbuf err;
};

void proc_result_init(struct proc_result *res);
void proc_result_release(struct proc_result *res);

/*
 * argv[0] is looked up in PATH. env_extra: "NAME=value" entries added to (or
 * replacing those of) the current environment, NULL-terminated, or NULL.
 * Returns 0 when the child ran (whatever its status: look at res), or an
 * error when it could not be started ("cannot run 'sbatch': ...") or
 * printed more than PROC_OUTPUT_MAX on one stream ("'nvidia-smi' printed
 * more than 16 MiB on its standard output: stopped reading it and killed
 * it"; res then holds at most PROC_OUTPUT_MAX of each).
 */
int proc_run(struct proc_result *res, const char *const *argv, const char *const *env_extra,
             unsigned timeout_s);

#endif
