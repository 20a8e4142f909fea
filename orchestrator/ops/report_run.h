#ifndef SWEEP_REPORT_RUN_H
#define SWEEP_REPORT_RUN_H

/*
 * The operations of `sweep report`: the loaded sweep (loaded.h: the store's
 * record and plan, accounting's records in one query -> one outcome per
 * task; the kept sweep file parsed once and the reused tasks read once, for
 * the whole report) -> the exclusions -> the verdict (result files, read
 * within SWEEP_RESULT_MAX; gate_passed, the one pass test) -> the gate ->
 * statistics, ranked and ordered -> the causes of the failed tasks. The
 * command prints what they built (report_print.h) and draws it (plot.h).
 */
#include <stdbool.h>
#include <stddef.h>

#include "causes.h"
#include "compare.h"
#include "gate.h"
#include "loaded.h"
#include "report.h"
#include "store.h"
#include "verdict.h"

/* What report's options ask of the operations; every string is borrowed from argv. */
struct report_request {
	const char *state_dir; /* resolved: the state folder */
	const char *which;     /* the sweep's name or id; NULL: the most recent */
	const char **metrics;  /* --metric, borrowed array */
	size_t nmetrics;
	bool allow_incomplete;
	const struct compare_goals *goals; /* from --goal, borrowed */
	const char *plot;
	const char *curves; /* a curve file's pattern, or REPORT_CURVES_LOG */
	const char *step; /* --step: the x axis of series results and curves, never a metric */
	const char *x;
	bool logx;
	const char *title; /* --title */
	bool no_title;     /* --no-title */
	int digits;
	bool refresh;
	size_t top;           /* --top N; 0: every setting */
	const char **exclude; /* --exclude selectors, borrowed array */
	size_t nexclude;
	const char *reason;  /* --reason */
	const char *include; /* --include */
};

/* What report --exclude left out of a sweep: recorded, loaded and said. */
struct report_exclusions {
	struct exclusion_rec *recs;
	size_t n;
	struct report_exclusion *lines; /* for the printers; borrow from recs */
	unsigned char *excluded;        /* per setting */
};

/* Why the failed tasks failed, for the report to show and group (kept after the first read). */
struct report_causes {
	struct causes causes;
	const char **text, **group;
	bool *resource;
};

/* One report of one sweep: everything it loaded and built; report_run_release frees it all. */
struct report_run {
	struct loaded_sweep l;
	struct verdict v;
	struct report_exclusions excl;
	struct report rep; /* points into the members above */
	struct compare_goals goals;
	enum compare_goal *by_metric;
	const char **labels;
	struct report_causes rc;
	char *provenance;
};

void report_run_init(struct report_run *r);
void report_run_release(struct report_run *r);

/*
 * The sweep, its plan and one outcome per task; warns of one not fully
 * submitted. 0, or SWEEP_ERR with the error said.
 */
int report_run_load(struct report_run *r, const struct report_request *q);

/*
 * --curves log: the curves are in the task logs, read with the sweep
 * file's results.step and results.log (a file named log is ./log).
 */
#define REPORT_CURVES_LOG "log"

/*
 * --curves: the learning curves of every task that passed the gate,
 * averaged per setting, drawn into q->plot instead of the report.
 * Returns the exit code: EXIT_INCOMPLETE when a task has no usable curve
 * (listed on stderr), EXIT_ERROR, or EXIT_OK.
 */
int report_run_curves(struct report_run *r, const struct report_request *q);

/*
 * After report_run_load: records and loads the exclusions, runs the
 * verdict and the gate, builds the statistics into r->rep with their
 * labels, goals, order, provenance and (when some task failed) causes.
 * 0, or SWEEP_ERR with the error said.
 */
int report_run_build(struct report_run *r, const struct report_request *q);

/* An extending sweep pools what it reused: says on stdout from which sweeps. */
void report_run_print_reused(struct report_run *r);

/* The staging line of a sweep with `stage:` on stdout, as status prints it. */
void report_run_print_staging(const struct sweep_rec *rec, size_t ntasks);

/* Draws the figure of r->rep into q->plot; says where on stderr. 0 or SWEEP_ERR. */
int report_run_plot(const struct report_run *r, const struct report_request *q);

/* EXIT_OK, or EXIT_INCOMPLETE with a warning that says what it means. */
int report_run_exit_code(const struct report_request *q, const struct gate_result *gate);

#endif
