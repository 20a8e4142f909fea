#ifndef SWEEP_GPUPROC_H
#define SWEEP_GPUPROC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Who holds a GPU (prefix gpuproc_): for a process nvidia-smi lists, what
 * /proc says of it (owner, elapsed time, command line) and, for the
 * caller's own processes, whether it outlived the sweep task that started
 * it. Only reads: sweep never signals these processes.
 *
 * A task's processes inherit SWEEP_ID and SWEEP_TASK_INDEX from its script.
 * A process that has them while none of its ancestors does was left
 * behind when its task ended (its parent died and it was adopted).
 */

struct gpuproc {
	long pid;
	bool known;         /* /proc has the pid: false for another PID namespace's */
	uid_t uid;          /* when known */
	char *user;         /* login name or the uid as digits; NULL when not known */
	char *command;      /* the command line, arguments joined by spaces; NULL when not known */
	uint64_t elapsed_s; /* since it started; when known */
	int64_t sweep_id;   /* from its environment, -1 when none or not readable */
	long task_index;    /* likewise */
	bool outlived;      /* sweep_id set and no ancestor belongs to that task */
};

/*
 * Fills out from /proc for pid. The environment is read only for the
 * caller's own processes (uid == getuid()). Never fails: what cannot be
 * read stays unknown. Release with gpuproc_release.
 */
void gpuproc_read(struct gpuproc *out, long pid);
void gpuproc_release(struct gpuproc *p);

/* Elapsed seconds as ps's etime prints them: [[dd-]hh:]mm:ss. */
void gpuproc_format_etime(char *buf, size_t size, uint64_t seconds);

#endif
