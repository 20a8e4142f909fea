#ifndef SWEEP_TASKDIR_H
#define SWEEP_TASKDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

/*
 * Where a task's folder is in its sweep's folder: the one owner of that
 * path. Each sweep records its layout (the state store's sweeps row) and
 * every reader of a task folder (results, notes, curves, staging notes,
 * extend's copies, the local backend) asks this module with it; the
 * task script computes the same path from taskdir_shell's expression.
 *
 * TASKDIR_FLAT: <sweep dir>/tasks/<index>, sweeps submitted before the
 * grouped layout, or with a template of one's own that has no
 * {{TASK_DIR}} marker. TASKDIR_GROUPED: <sweep dir>/tasks/<index /
 * TASKDIR_GROUP>/<index>, so that no folder holds more than
 * TASKDIR_GROUP task folders (1M tasks: 1,000 groups of 1,000). Both
 * kinds of folder are made by the task that first needs them (mkdir -p
 * in the script), never at submit time.
 */
enum taskdir_layout {
	TASKDIR_FLAT = 0,
	TASKDIR_GROUPED = 1,
};

/* Task folders per group folder in TASKDIR_GROUPED. */
#define TASKDIR_GROUP 1000

/*
 * The layout a store value names, into *out. Fails, saying which sweep
 * (sweep_id), on a value this sweep does not know (a newer sweep's).
 */
int taskdir_layout_from(enum taskdir_layout *out, int64_t value, int64_t sweep_id);

/* <sweep_dir>/tasks/..., the task folder of index; the caller frees it. */
char *taskdir_path(const char *sweep_dir, enum taskdir_layout layout, size_t index);

/* <task folder>/<name>; the caller frees it. */
char *taskdir_file(const char *sweep_dir, enum taskdir_layout layout, size_t index,
                   const char *name);

/*
 * The task folder as a shell word, from $SWEEP_DIR and $SWEEP_TASK_INDEX
 * (arithmetic expansion only: no process), for the script's SWEEP_TASK_DIR.
 */
void taskdir_shell(struct strbuf *out, enum taskdir_layout layout);

/*
 * "<sweep_dir>/tasks/<index>" or "<sweep_dir>/tasks/<index / 1000>/<index>"
 * (the words in angle brackets literally), for messages to people.
 * The caller frees it.
 */
char *taskdir_pattern(const char *sweep_dir, enum taskdir_layout layout);

/*
 * The group folder taskdir_private_problem last found fine, so that a
 * caller going through the tasks of one sweep checks each group folder
 * once, not once per task: zero it (TASKDIR_MEMO_INIT) and pass the same
 * one for every task of that sweep; one memo per sweep folder.
 */
struct taskdir_memo {
	bool ok; /* group was found fine */
	size_t group;
};
#define TASKDIR_MEMO_INIT                                                                          \
	{                                                                                          \
		false, 0                                                                           \
	}

/*
 * Why the task folder of index cannot be trusted (path_private_problem:
 * someone else's, or writable by group or others), checking its group
 * folder first in TASKDIR_GROUPED (unless memo, which may be NULL, says
 * it was found fine), as the task script refuses to run in them; only
 * folders that exist are checked. NULL when fine; else the caller frees it.
 */
char *taskdir_private_problem(const char *sweep_dir, enum taskdir_layout layout, size_t index,
                              struct taskdir_memo *memo);

/*
 * Makes the task folder of index and the folders above it up to
 * <sweep_dir>/tasks, each private (path_mkdir_private: mode 0700, and one
 * there already must be the caller's and not writable by others), as the
 * task script makes them. Fails with path_mkdir_private's message.
 */
int taskdir_make(const char *sweep_dir, enum taskdir_layout layout, size_t index);

#endif
