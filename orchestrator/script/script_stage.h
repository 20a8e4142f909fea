#ifndef SWEEP_SCRIPT_STAGE_H
#define SWEEP_SCRIPT_STAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "strbuf.h"
#include "taskdir.h"

struct cfg;
struct plan;
struct script_input;

/*
 * What the task script needs for `stage:` and `checkpoint.keep` (prefix
 * script_stage_ and script_keep_): the variables it reads, the checks made
 * at submit, and the removal of a node's stage by sweep cancel. The bash
 * that uses them is templates/array.sbatch's "Stage" and "Keep" sections.
 */

/* How much larger than the file a compressed tar is taken to unpack without `size:`. */
#define SCRIPT_STAGE_RATIO 5

/*
 * The stage folder's name under the node-local base, one per user, sweep
 * and state folder: "sweep-stage-<uid>-<id>-<hash of sweep_dir>". Caller frees.
 */
char *script_stage_name(int64_t sweep_id, const char *sweep_dir);

/*
 * Checks each `stage:` entry (relative to cwd): a folder, or a regular
 * .tar, .tar.gz/.tgz or .tar.zst file; and sets *out to the bytes the
 * unpacked copy may need: a .tar's size, a folder's files, a compressed
 * tar's stated `size:` or SCRIPT_STAGE_RATIO times its size. Fails with
 * the entry's path and what is wrong.
 */
int script_stage_measure(uint64_t *out, const struct cfg *cfg, const char *cwd);

/* The stage variables (SWEEP_STAGE_SOURCES, _NEED, _NAME, _BASE), SWEEP_KEEP and its pattern. */
void script_stage_variables(struct strbuf *out, const struct script_input *in);

/*
 * SWEEP_CHECKPOINT_DIR=...: checkpoint.dir with its placeholders as
 * variable references and its text single-quoted, or $SWEEP_TASK_DIR.
 */
void script_checkpoint_dir(struct strbuf *out, const struct cfg *cfg, const struct plan *plan);

/*
 * Each task's checkpoint.dir, placeholders filled in, must be a folder
 * under the submit folder cwd (a relative one) or an absolute folder the
 * sweep file writes itself (or one under {stage}): no '..' segment, and
 * never '/', $HOME or the submit folder itself. Fails naming the first
 * task and its folder that is not. With checkpoint.keep, every task must
 * also prune a folder of its own: fails, naming two tasks, when
 * checkpoint.dir gives them the same folder. The task script checks again
 * before it prunes (templates/array.sbatch, sweep_prune).
 */
int script_keep_check(const struct cfg *cfg, const struct plan *plan, const char *cwd);

/*
 * sweep cancel on this machine: removes base/name when no task holds a
 * lease on it (as the last task's sweep_stage_out would). Only a stage of
 * the caller's own: a folder (not a link) that the caller owns, mode 0700;
 * anything else is refused with an error, and nothing is removed. Below it,
 * everything is opened relative to its descriptor and no link is followed:
 * a link inside is removed, never what it points to. Returns 1 when
 * removed, 0 when absent or still leased, negative on error (reported).
 */
int script_stage_remove(const char *base, const char *name);

/*
 * What a task's sweep_stage_in noted in <task folder>/.staged: the seconds
 * it took, and whether it unpacked or shared the node's copy, and where.
 */
struct stage_note {
	bool found;    /* the task staged (its latest attempt wrote the note) */
	bool unpacked; /* it made the copy; else it shared another task's */
	double seconds;
	char node[64];
};

/*
 * Reads the notes of tasks 0..ntasks-1 of the sweep in sweep_dir, its task
 * folders laid out as layout; returns how many were found.
 */
size_t script_stage_notes(struct stage_note *out, const char *sweep_dir,
                          enum taskdir_layout layout, size_t ntasks);

/*
 * One line for status and report, or nothing when no task staged:
 * "staging: 6 tasks, copied 1 time (2.31 s), shared 5 times (median 2.05 s, max 2.30 s)".
 */
void script_stage_summary(FILE *f, const struct stage_note *notes, size_t ntasks);

#endif
