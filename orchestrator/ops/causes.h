#ifndef SWEEP_CAUSES_H
#define SWEEP_CAUSES_H

#include <stdbool.h>
#include <stddef.h>

#include "cause.h"

struct store;
struct sweep_rec;
struct task_outcome;

/*
 * The cause of every failed task of a sweep (cause.h), read from the end
 * of its latest run's logs once and then kept in the state store: status,
 * report, resubmit and the follow-up's retries share it.
 */
struct task_cause {
	bool failed;   /* the latest run ended and failed: the fields below are set */
	bool resource; /* cause_is_resource */
	char *reason;  /* the scheduler's reason (gate_run_failed's words) */
	char *line;    /* the program's line, or NULL */
	char *note;    /* what ran, when not what submit found (cause_ran_note), or NULL */
	/*
	 * The task script's record of what ran (<task folder>/.ran): the host,
	 * and the command's first word resolved there ("" not found); NULL
	 * when the run left none (it ended before its command started).
	 */
	char *ran_host;
	char *ran_path;
	char *text;    /* cause_text: what a person reads */
	char *group;   /* what groups it: the reason for a resource, else text */
};

struct causes {
	struct task_cause *tasks; /* ntasks, by index */
	size_t ntasks;
	char *program;    /* the command's first word (SWEEP_PROGRAM), or NULL */
	size_t logs_read; /* runs whose logs were read by this load */
	size_t kept;      /* runs answered from the state store */
};

void causes_release(struct causes *c);

/*
 * Fills out for tasks[0..ntasks-1] of sweep rec: each failed run's cause
 * from the store when kept for that same run, else from the last
 * CAUSE_TAIL_BYTES of its .err and .out logs and the script's record of
 * what ran (.ran in its task folder, taskdir.h), which is then kept. A log that
 * cannot be read leaves only the reason. Fails only on a store error.
 */
int causes_load(struct causes *out, struct store *st, const struct sweep_rec *rec,
                const struct task_outcome *tasks, size_t ntasks);

/*
 * The failed tasks of c grouped by cause; only those in only[0..nonly-1]
 * (ascending indices) when only is not NULL.
 */
void causes_group(struct cause_groups *out, const struct causes *c, const size_t *only,
                  size_t nonly);

/*
 * Before re-running the tasks only[0..nonly-1] (NULL: every failed one):
 * appends to why, for each group that failed for no resource,
 * "3 tasks (0-2) failed for no resource: ModuleNotFoundError: ...\n".
 * Returns true when every one failed the same non-resource way
 * (cause_groups_same_everywhere): the same command will fail the same way.
 */
bool causes_rerun_check(struct strbuf *why, const struct causes *c, const size_t *only,
                        size_t nonly);

/*
 * Appends to out what ran for the failed tasks only[0..nonly-1] (NULL:
 * every failed one), one line per program and node, at most
 * CAUSES_PROGRAMS_SHOWN: "the program that ran: PATH (resolved on NODE)",
 * with "a script, '#!...'" when PATH is one here (a pyenv shim runs
 * whichever python it picks), "'NAME' was not found on NODE", or that the
 * runs left no record. Whether it names a program is the caller's to ask
 * (resubmit refusing a failure it would repeat).
 */
#define CAUSES_PROGRAMS_SHOWN 3
void causes_add_programs(struct strbuf *out, const struct causes *c, const size_t *only,
                         size_t nonly);

/*
 * The per-index views struct report borrows (report.h): text, group and
 * resource of each task (NULL text and group where the run did not fail).
 * Valid while c is; free the three arrays (not their strings) with free().
 */
void causes_views(const char ***text, const char ***group, bool **resource, const struct causes *c);

/*
 * causes_group as JSON: [{"count", "indices", "cause", "resource"}...],
 * largest first. The caller owns the reference.
 */
struct json_t;
struct json_t *causes_groups_json(const struct causes *c, const size_t *only, size_t nonly);

#endif
