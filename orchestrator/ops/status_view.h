#ifndef SWEEP_STATUS_VIEW_H
#define SWEEP_STATUS_VIEW_H

/*
 * The operations and printers of `sweep status`: store (what was asked) +
 * accounting (what Slurm did, one query for all the sweep's array jobs) ->
 * one outcome per task -> counts, progress, causes and staging notes (one
 * status_view per refresh) -> the text (with --tasks, one row per task) or
 * JSON. The command repeats that for --watch.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "acct.h"
#include "backend.h"
#include "causes.h"
#include "outcome.h"
#include "plan.h"
#include "script_stage.h"
#include "store.h"
#include "strbuf.h"

struct loaded_sweep;
struct verdict_reads;

/* What the command's options ask of a view. */
struct status_ask {
	bool tasks;   /* --tasks: the task table (and MaxRSS, from the steps) */
	bool json;    /* --json (MaxRSS too) */
	bool watch;   /* --watch: the read note only in debug; --refresh only on the first read */
	bool refresh; /* --refresh */
	bool stages;  /* the sweep has `stage:` (its kept sweep file) */
};

/* One refresh: the sweep as the store has it now and what its backend says of its tasks. */
struct status_view {
	struct sweep_rec rec;
	struct array_rec *arrays;
	size_t narrays;
	struct acct_set set;
	size_t ntasks;              /* the plan's */
	struct task_outcome *tasks; /* ntasks */
	struct backend_read read;   /* steps and refresh as asked; where the records came from */
	size_t counts[TS_NSTATES];
	size_t done;   /* tasks in a final state */
	size_t active; /* tasks that will still change by themselves */
	size_t
	    unsubmitted_from;  /* a rolling sweep's first task not submitted yet; ntasks if none */
	size_t unsubmitted;    /* tasks from there on with no record: not in any array job yet */
	struct strbuf finish;  /* follow-ups and fail_fast, in words (followup_describe) */
	struct causes causes;  /* why each failed task failed */
	bool followups_active; /* a follow-up is pending or running: more may come */
	struct stage_note *stage; /* plan->ntasks: what each task's staging took */
	size_t nstaged;           /* tasks with a note */
	/*
	 * Report's verdict (verdict.h, its one owner), taken when some run
	 * passed: per task, the gate's words when its run completed yet its
	 * metric is missing ("completed, no metric"), else NULL. judged: the
	 * verdict is known (the kept sweep file reads).
	 */
	char **no_metric; /* plan->ntasks */
	size_t nno_metric;
	bool judged;
};

struct status_settling {
	size_t missing;    /* tasks without a record at the last refresh */
	time_t missing_at; /* since when there have been that many */
};

/* A zeroed view; status_view_release frees what a load filled and leaves it zeroed again. */
void status_view_init(struct status_view *v);
void status_view_release(struct status_view *v);

/*
 * Fills v (initialised) for the loaded sweep (opened, its plan loaded),
 * reading its record in the store again. MaxRSS (steps) only for the task
 * table and JSON; the counts need the job records alone, and the results
 * of the tasks whose run passed (the verdict: list's and report's), each
 * read once in a watch: reads holds what the previous refresh read
 * (verdict.h; zeroed before the first, verdict_reads_release after the
 * last) and is replaced by this one's. first: the watch's first read. 0,
 * or a negative code with the error said.
 */
int status_view_load(struct status_view *v, struct loaded_sweep *l, const struct status_ask *o,
                     bool first, struct verdict_reads *reads);

/* Task i belongs to a rolling sweep and no array job holds it yet: the next chunk will. */
bool status_view_not_submitted(const struct status_view *v, size_t i);

/* The header, counts, progress (a bar when tty), causes and, as asked, the task tables. */
void status_view_print_text(FILE *f, const struct status_view *v, const struct plan *plan,
                            const struct status_ask *o, bool tty);

/* The view as one JSON document, on one line when one_line (a watch). */
void status_view_print_json(FILE *f, const struct status_view *v, const struct plan *plan,
                            bool one_line);

/*
 * Whether --watch can stop: nothing pending or running any more, and no
 * follow-up job pending or running (it may start more tasks). Tasks with
 * no record at all are taken as missing only once their number has not
 * changed for a while (st keeps count between refreshes; zero it first).
 */
bool status_view_settled(const struct status_view *v, struct status_settling *st);

#endif
