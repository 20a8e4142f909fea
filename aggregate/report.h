#ifndef SWEEP_REPORT_H
#define SWEEP_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compare.h"
#include "stats.h"
#include "taskdir.h"

struct gate_failure;
struct gate_result;
struct plan;
struct result;

/*
 * The report of a sweep: per setting and metric, mean ± sample std over the
 * seeds with n and the 95% confidence interval, and the printers for it
 * (an aligned table for people, JSON and CSV for programs).
 *
 * What is printed depends on the gate:
 *  - complete: the statistics;
 *  - incomplete: only the list of missing and failed tasks (the caller
 *    exits with EXIT_INCOMPLETE);
 *  - incomplete with allow_incomplete: the statistics over the tasks that
 *    passed, every short setting marked "n = k of N", and the list of the
 *    excluded tasks. Nothing is left out silently.
 *
 * The table prints numbers as papers do (stats_print_place): the std to 2
 * significant digits (3 when it starts with a 1), the mean and the CI to
 * the same decimal place; JSON and CSV keep full precision.
 *
 * Undefined values (the std of one seed, the mean of none) print as "n/a"
 * in the table, null in JSON and an empty field in CSV.
 */
/* Settings a user left out of the report (report --exclude), and why. */
struct report_exclusion {
	const char *selector; /* "lr=-0.1" */
	const char *reason;
	size_t nsettings;    /* how many settings it left out */
	int64_t recorded_at; /* when (seconds since the epoch) */
};

struct report {
	/* Filled in by the caller; borrowed, and must outlive the report. */
	const char *name; /* the sweep's job name (log files are <logs>/<name>_%A_%a.out) */
	int64_t id;       /* the sweep's id */
	const char *logs; /* the logs folder; NULL leaves log paths out */
	const char *dir;  /* the sweep's folder, to say where result files are; may be NULL */
	enum taskdir_layout task_layout; /* of its task folders, with dir */
	bool allow_incomplete;
	int digits; /* the table's std to this many significant digits; 0: 2, or 3 from a 1 */
	/* Printed under the table and in JSON ("excluded"): never left out silently. */
	const struct report_exclusion *exclusions;
	size_t nexclusions;
	/*
	 * Why failed runs failed, per task index (the command reads them,
	 * causes.h): the cause line (NULL for a task whose run did not fail),
	 * what groups it, and whether a resource explains it. All NULL leaves
	 * causes out (no groups, no cause column or field); a failure without a
	 * cause is grouped by its reason.
	 */
	const char *const *cause_text;
	const char *const *cause_group;
	const bool *cause_resource;
	/*
	 * Per metric of the gate, its axis label in plots (the sweep file's
	 * `metrics: {loss: {label: ...}}`), or NULL for the name; NULL: names.
	 */
	const char *const *labels;
	/*
	 * A sweep confirm sweep: where its settings were chosen and where they
	 * are estimated ("selected on seeds 0-4 of sweep 12; estimated on seeds
	 * 5-9"), said under the table (and in JSON) instead of the winner's
	 * curse note; NULL for any other sweep.
	 */
	const char *provenance;

	/* Filled in by report_build. */
	const struct plan *plan;        /* borrowed */
	const struct gate_result *gate; /* borrowed */
	struct stats_summary *stats;    /* nsettings x nmetrics, row-major; owned */

	/* Filled in by report_rank; NULL before (nothing is ranked). */
	enum compare_goal *goals;  /* per metric; owned */
	struct compare_entry *cmp; /* nsettings x nmetrics, row-major; owned */
	size_t *ref;               /* per metric: the reference best, or nsettings; owned */

	/* Filled in by report_order; NULL: every setting, in the plan's order. */
	size_t *order; /* the settings shown, in this order; owned */
	size_t norder;
};

void report_init(struct report *r);
/* Frees what report_build allocated; the borrowed fields are left alone. */
void report_release(struct report *r);

/*
 * Computes the statistics of every setting over the tasks the gate passed,
 * reading each metric from results (plan->ntasks of them). plan and gate
 * are borrowed by out. Pure; cannot fail.
 */
void report_build(struct report *out, const struct plan *plan, const struct gate_result *gate,
                  const struct result *results);

/*
 * Names the best setting of every metric that has a goal (goals[m] for the
 * gate's metric m; GOAL_NONE ranks nothing) and compares the others with
 * it (compare.h). After report_build; pure; cannot fail.
 */
void report_rank(struct report *r, const enum compare_goal *goals);

/*
 * Orders the settings best first by the first metric with a goal (means by
 * that goal; settings without a mean last; ties in plan order), and keeps
 * the first top of them (0: all). The table, JSON and CSV then show those,
 * in that order. After report_rank; does nothing when no metric has a
 * goal. Pure; cannot fail.
 */
void report_order(struct report *r, size_t top);

/* The number of settings shown, and the one shown at position i (report_order). */
size_t report_nshown(const struct report *r);
size_t report_shown(const struct report *r, size_t i);

/* Whether report_rank gave any metric a goal. */
bool report_ranked(const struct report *r);

/* Borrowed from r: the statistics of metric m (the gate's order) in setting s. */
const struct stats_summary *report_stats(const struct report *r, size_t s, size_t m);

/*
 * The log file of a failed task, <logs>/<name>_<array job>_<array task>.out;
 * NULL when there is none yet (no record, still pending) or r->logs is NULL.
 * The caller frees it.
 */
char *report_log_path(const struct report *r, const struct gate_failure *f);

/* The printers are in aggregate/print/report_print.h. */

#endif
