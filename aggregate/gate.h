#ifndef SWEEP_GATE_H
#define SWEEP_GATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acct.h"

struct plan;
struct result;
struct strbuf;
struct task_outcome;

/*
 * The completeness gate: which tasks may enter the statistics. Pure: takes
 * the plan, one outcome and one result per task index, does no I/O.
 *
 * Whether a task passed is decided by gate_passed alone, for every
 * command (report, list, confirm, extend, the follow-ups, --curves): its
 * latest run COMPLETED with exit code 0 and no signal, and its result was
 * read (within result_max_bytes(), which the verdict takes from
 * SWEEP_RESULT_MAX). The gate also wants every metric in that result as a
 * finite number. Every other task is a failure with its reason in words;
 * none is dropped silently.
 */

struct gate_failure {
	size_t index;
	size_t setting;
	int64_t seed;
	enum task_state state; /* of the latest run */
	int exit_code;
	int signal;
	uint32_t array_job_id; /* 0 when the scheduler has no record of the task */
	uint32_t array_task_id;
	char *reason; /* "out of memory", "metric 'loss' absent"...; owned */
};

struct gate_result {
	char **metrics; /* the metrics checked (owned copies), in report order */
	size_t nmetrics;
	size_t ntasks;
	size_t nsettings;
	size_t nseeds;
	unsigned char *passed;         /* per task index: 1 when the task passed */
	size_t *npassed;               /* per setting: how many of its nseeds tasks passed */
	struct gate_failure *failures; /* ascending index */
	size_t nfailures;
	size_t alloc;
};

void gate_result_init(struct gate_result *g);
void gate_result_release(struct gate_result *g);

/*
 * Checks every task of plan into out (initialised). outcomes and results
 * have plan->ntasks elements; results of tasks whose run did not pass are
 * not looked at, so they may be left unread (result_init).
 *
 * metrics: the metrics the user asked for (in that order, duplicates
 * dropped). With nmetrics == 0 the metrics are every key that holds a
 * number (or NaN, or an infinity) in the result of some task whose run
 * passed, sorted by name; a task whose result lacks one of them fails.
 */
void gate_check(struct gate_result *out, const struct plan *plan,
                const struct task_outcome *outcomes, const struct result *results,
                const char *const *metrics, size_t nmetrics);

static inline bool gate_complete(const struct gate_result *g)
{
	return g->nfailures == 0;
}

/*
 * THE pass test. With res NULL: whether the run in o passed (COMPLETED,
 * exit code 0, no signal), for callers that read results only of runs
 * that passed, or need none. With res: whether the task passed, its run
 * and its result, read within the size limit (status RESULT_OK).
 */
bool gate_passed(const struct task_outcome *o, const struct result *res);

/* Whether failure f is its result's, its run having passed (gate_passed). */
bool gate_failure_of_result(const struct gate_failure *f);

/*
 * The gate's failures in words, the same in every command: "3 failed",
 * "3 completed, no metric" (their run passed, their result did not: a
 * metric the program never printed where the sweep file looks), or both,
 * "2 failed, 3 completed, no metric". The caller frees it.
 */
char *gate_failures_text(const struct gate_result *g);

/*
 * Whether the run in o failed (!gate_passed(o, NULL)). If so, appends the reason in words to why
 * ("time limit", "exit code 2", "still pending"...) and returns true; a
 * COMPLETED run with exit code 0 returns false and appends nothing.
 * For the status command as much as for the gate.
 */
bool gate_run_failed(struct strbuf *why, const struct task_outcome *o);

#endif
