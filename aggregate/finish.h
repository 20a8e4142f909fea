#ifndef SWEEP_FINISH_H
#define SWEEP_FINISH_H

#include <stdbool.h>
#include <stddef.h>

struct task_outcome;

/*
 * A sweep that finishes itself: what a follow-up job decides once the array
 * jobs it waited for have ended. Pure: takes outcomes and counts, does no
 * I/O but for reading the fail_fast counter (finish_read_failures). The
 * follow-up (orchestrator/ops/followup_run.c) acts on the decision.
 *
 * One follow-up at a time per sweep; each either starts more work and
 * chains the next follow-up after it, or is the last one and sends the
 * sweep's one notification. The actions, in order:
 * - continue: another action still has tasks to submit (the rolling
 *   submission of a sweep bigger than the cluster accepts at once);
 * - retry: a retry round is left and some task may still be healed;
 * - last: nothing more will run; notify.
 */

/*
 * Whether another run can heal o's task (it must be one resubmit_wanted
 * takes): missing, out of memory (also FAILED with signal 9, as
 * OverMemoryKill ends it), time limit, cancelled, node failure, preemption,
 * boot failure, deadline. A non-zero exit or another signal is the
 * program's own failure: false.
 */
bool finish_fixable(const struct task_outcome *o);

/*
 * Marks in only[0..n-1] (1 = run again) the tasks a retry round runs: those
 * resubmit_wanted takes and finish_fixable heals, or, with retry_on_exit,
 * every one resubmit_wanted takes plus those whose metric_failed[i] is set
 * (completed but without a metric; metric_failed may be NULL). Returns how
 * many were marked.
 */
size_t finish_select(unsigned char *only, const struct task_outcome *outcomes, size_t n,
                     bool retry_on_exit, const unsigned char *metric_failed);

enum finish_action {
	FINISH_CONTINUE, /* another action has more to submit: do it, chain the next follow-up */
	FINISH_RETRY,    /* run the selected tasks again, chain the next follow-up */
	FINISH_LAST,     /* nothing follows: write the report, notify */
};

struct finish_input {
	unsigned retries;      /* the sweep's retries: */
	unsigned retries_done; /* retry rounds already submitted (attempts - 1) */
	size_t nselected;      /* tasks a retry round would run now (finish_select) */
	bool stopped;          /* stopped by fail_fast, or cancelled: nothing more runs */
	bool more_to_submit;   /* another action still has tasks to submit */
};

struct finish_decision {
	enum finish_action action;
	/*
	 * For CONTINUE and RETRY: whether the follow-up chained after it is
	 * surely the last (no retry left once it runs), so it can carry the
	 * scheduler's end mail from its submission.
	 */
	bool next_is_last;
};

void finish_decide(struct finish_decision *out, const struct finish_input *in);

/* The next follow-up's purpose in words, for status: "retry round 2 of 3, then notify". */
const char *finish_action_name(enum finish_action a);

/*
 * fail_fast: a task whose command failed by itself (a non-zero exit, no
 * warning signal) appends one line, "INDEX ARRAYJOB_ARRAYTASK", to this file
 * in the sweep folder, under flock of FINISH_FAIL_FAST_FILE ".lock", and reads the count
 * back; the task whose count reaches SWEEP_FAIL_FAST cancels the rest of the
 * sweep (templates/array.sbatch, "Fail fast"); the
 * local runner and the follow-up read it.
 */
#define FINISH_FAIL_FAST_FILE "fail-fast"

/*
 * The indices in a sweep folder's fail_fast counter, in the order they
 * counted (the first K stopped the sweep). *out is NULL (and *n 0) when
 * none failed; the caller frees it.
 */
int finish_read_failures(size_t **out, size_t *n, const char *sweep_dir);

#endif
