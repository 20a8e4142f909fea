#ifndef SWEEP_CAUSE_H
#define SWEEP_CAUSE_H

#include <stdbool.h>
#include <stddef.h>

#include "acct.h"

struct strbuf;
struct task_outcome;

/*
 * Why a task failed, in the program's own words: one line taken from the
 * end of its logs, next to the scheduler's reason, and failed tasks grouped
 * by that line as a person sees "the same error". Pure: takes the text the
 * caller read (the last CAUSE_TAIL_BYTES of each log), does no I/O.
 */

/* How much of the end of each log is read for a cause. */
#define CAUSE_TAIL_BYTES ((size_t)64 << 10)
/* The longest program line kept, in bytes: one terminal line with the group's prefix. */
#define CAUSE_LINE_MAX 120

/* What the logs of one run say. */
struct cause_pick {
	char *line;     /* the program's line, escaped and cut; NULL when the logs hold none */
	bool log_oom;   /* slurmstepd wrote "exceeded memory limit" (OverMemoryKill) */
	bool not_found; /* the line says a command or file was not found */
};

void cause_pick_release(struct cause_pick *p);

/*
 * Picks the line from the end of a run's stderr (err) and stdout (out):
 * the last line of the last Python traceback; else the last non-empty
 * line of stderr; of stdout when stderr has none. sweep's own lines
 * ("sweep: ...") and slurmstepd's are not the program's and are skipped
 * (slurmstepd's "exceeded memory limit" sets log_oom), except the line
 * with which the task script refused to run the command ("sweep: cannot
 * stage: ...", "sweep: refusing ..."), which is the cause when no line
 * of the program follows it. Of a line that a
 * progress bar rewrote with carriage returns, the last part. Control bytes
 * are escaped (\t, \x1b) and the line cut to CAUSE_LINE_MAX bytes with
 * "...". Either text may be NULL.
 */
void cause_pick(struct cause_pick *out, const char *err, size_t errlen, const char *out_text,
                size_t outlen);

/*
 * Whether the scheduler's reason explains the failure by itself: a
 * resource or the cluster (out of memory, also as OverMemoryKill's FAILED
 * 0:9 or log_oom; the time limit; a node failure; preemption). Re-running
 * such a task may help; re-running another fails the same way.
 */
bool cause_is_resource(const struct task_outcome *o, bool log_oom);

/*
 * What ran, when it was not what submit found: program is the command's
 * first word, node_path what `command -v` printed on host ("" when not
 * found there), submit_path what it was on the submitting host (NULL when
 * not found there). Paths under home (may be NULL) are shown as "~/...".
 * Appends "python3 was ~/.pyenv/shims/python3 on n1, /usr/bin/python3 at
 * submit" or "python3 not found on n1 (at submit: /usr/bin/python3)" and
 * returns true; nothing and false when they agree.
 */
bool cause_ran_note(struct strbuf *out, const char *program, const char *node_path,
                    const char *host, const char *submit_path, const char *home);

/*
 * The cause line of a failed run: reason is the scheduler's (gate_run_failed's
 * words), line and note the program's line and cause_ran_note's (either
 * NULL). A resource reason comes first and the program's line after it
 * ("out of memory; last line: allocating 2 GiB"); otherwise the program's
 * line alone, with the note in parentheses; the reason when there is no
 * line. Appended to out.
 */
void cause_text(struct strbuf *out, const char *reason, bool resource, const char *line,
                const char *note);

/*
 * The same error, as a person sees it: s with runs of digits (and a
 * number's sign, point and exponent) as "N", hexadecimal ids of 6 or more
 * digits or with 0x as "X", and paths (a word with a '/') as "PATH".
 * Appended to out.
 */
void cause_normalise(struct strbuf *out, const char *s);

/* Failed tasks that failed the same way. */
struct cause_group {
	char *key;        /* cause_normalise of the text; owned */
	const char *text; /* the cause of its first task; borrowed from the caller's texts */
	size_t *indices;  /* ascending task indices; owned */
	size_t n;
	bool resource; /* its tasks failed for a resource (cause_is_resource) */
};

struct cause_groups {
	struct cause_group *groups; /* largest first; equal sizes by first index */
	size_t n;
};

void cause_groups_release(struct cause_groups *g);

/*
 * Groups the n failed tasks indices[i] whose cause lines are texts[i]
 * (resource[i] as cause_is_resource said) by cause_normalise of the line.
 * out is overwritten.
 */
void cause_groups_build(struct cause_groups *out, const size_t *indices, const char *const *texts,
                        const bool *resource, size_t n);

/*
 * "0-3,5,9": ascending indices as ranges, at most max_items items and
 * then ",...". Appended to out.
 */
void cause_add_indices(struct strbuf *out, const size_t *indices, size_t n, size_t max_items);

/* "17 tasks (0-3,5,...): text\n" for each group, indented by indent. */
void cause_add_groups(struct strbuf *out, const struct cause_groups *g, const char *indent);

/*
 * Whether re-running these failures is bound to fail again: they form one
 * group of two or more tasks and it is not a resource one. A single failed
 * task is no evidence that it fails every time (a flaky read, a lost
 * license): it is re-run, with the cause said.
 */
bool cause_groups_same_everywhere(const struct cause_groups *g);

#endif
