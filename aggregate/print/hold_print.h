#ifndef SWEEP_HOLD_PRINT_H
#define SWEEP_HOLD_PRINT_H

/*
 * Held tasks in status (TS_HELD, task_outcome.hold): how many of each kind
 * of hold, for the counts line, and what releases them, one line per kind.
 * Only the Slurm side holds tasks, so the lines name Slurm's commands.
 */
#include <stddef.h>

#include <jansson.h>

#include "acct.h"
#include "outcome.h"
#include "strbuf.h"

/*
 * A kind of hold in a few words: "held by the user", "held by an
 * administrator", "waiting for a dependency", "waiting for a dependency
 * that can never be met", "waiting for a begin time"; "" for ACCT_HOLD_NONE.
 */
const char *hold_kind_text(enum acct_hold h);

/*
 * The HELD tasks of tasks[0..n-1] by kind, for the counts line:
 * " (2 held by the user, 1 waiting for a begin time)"; nothing when none
 * is held.
 */
void hold_add_counts(struct strbuf *out, const struct task_outcome *tasks, size_t n);

/*
 * What releases the held tasks of tasks[0..n-1], one line per kind, each
 * ending in a newline:
 *   user:       "2 tasks held by the user: release them with 'scontrol release 12_[3-4]'"
 *   admin:      "1 task held by an administrator: only an operator or administrator
 *                can release it ('scontrol release 12_5'); ask one"
 *   dependency: "2 tasks waiting for dependency afterok:11_*: they start once it is
 *                met; 'scontrol update JobId=12 Dependency=' drops it"
 *   never:      "2 tasks waiting for a dependency that can never be met:
 *                afterok:11_*(failed): they will never start; 'scontrol update JobId=12 Dependency=' drops it, or
 *                cancel them"
 *   begin:      "1 task waiting for a begin time (begins at 2026-12-06T09:33:10): it
 *                starts by itself then; 'scontrol update JobId=12_5 StartTime=now'
 *                starts it now"
 * The dependency and begin lines quote the first such task's reason
 * (task_outcome.pending_reason), the kind's words when it has none, and
 * add "(and others)" (", and others" inside the begin line's brackets)
 * when the tasks' reasons differ. The jobs are named per array job: the array job id when
 * its pending record is held (every pending task of it), else its held
 * tasks ("12_5", "12_[3-4,7]"), comma-separated, at most 5 array jobs
 * (" (and N more array jobs)" at the end of the line).
 */
void hold_add_hints(struct strbuf *out, const struct task_outcome *tasks, size_t n);

/* The held tasks of tasks[0..n-1] by kind, as JSON: {"user": 2, "begin": 1}; {} when none. */
json_t *hold_counts_json(const struct task_outcome *tasks, size_t n);

#endif
