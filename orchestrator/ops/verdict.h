#ifndef SWEEP_VERDICT_H
#define SWEEP_VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cfg.h"
#include "compare.h"
#include "gate.h"
#include "loaded.h"
#include "plan.h"
#include "result.h"

struct task_outcome;

/* The run a result was read for: the same run has the same result. */
struct verdict_run {
	bool read; /* the result of this run was read (it passed) */
	uint32_t array_job_id, array_task_id, job_id;
	int64_t end_time;
};

/*
 * What one verdict read, kept for the next over the same sweep (status
 * --watch): per task index, the result and the run it was read for. A run
 * that passed has ended, so the next verdict takes its result from here
 * while the run is the same, instead of reading its file or logs again.
 */
struct verdict_reads {
	struct result *results;
	struct verdict_run *runs;
	size_t n;
};

void verdict_reads_release(struct verdict_reads *r);

/*
 * Which tasks of a sweep passed: the ONE place that decides it, for
 * report, submit --extend, retry rounds (retry_on_exit), the last
 * follow-up's report and notification, and list. The results are read
 * from where the sweep file as submitted (kept in the store) says:
 * `results: file` (relative to the folder submit ran in), `results: log`
 * (the task's .out log), or $SWEEP_RESULT; then the gate (gate_check)
 * decides.
 */
struct verdict {
	/*
	 * In, before verdict_check: per setting of the sweep's plan, 1 when
	 * report --exclude left it out (borrowed; NULL: none).
	 */
	const unsigned char *excluded;
	/*
	 * In, before verdict_check: the step key of series result files (JSON
	 * Lines, CSV), their x axis and never a metric (report --step,
	 * borrowed); NULL: RESULT_STEP_KEY.
	 */
	const char *step_key;
	/*
	 * In, optional: what an earlier verdict over the same sweep read
	 * (verdict_keep_reads); results of the same runs are taken from it.
	 */
	struct verdict_reads *prior;
	struct verdict_run *runs; /* per task index of the sweep: the run read */

	/*
	 * The sweep file as submitted (empty when none was kept), borrowed
	 * from the loaded sweep's kept file (loaded_sweepfile) or from own.
	 */
	const struct cfg *cfg;
	struct kept_file own; /* the kept file, read by verdict_check itself */
	char *workdir;        /* the script's --chdir: where relative result files are */
	struct result_log_spec log;
	enum result_format format;
	/*
	 * What the gate was over: the sweep's plan, or with exclusions the
	 * plan of the settings kept (kept); results per task index of plan
	 * (only those whose run passed were read). The gate's failures keep
	 * the sweep's own task indices.
	 */
	const struct plan *plan;
	struct result *results;
	size_t ntasks;
	struct gate_result gate;
	struct plan kept;
	struct task_outcome *kept_outcomes;
	size_t *kept_from;  /* per setting of kept: the sweep's setting; NULL without exclusions */
	struct result *all; /* with exclusions: every task's result (results point into it) */
	size_t nall;
};

void verdict_init(struct verdict *v);
void verdict_release(struct verdict *v);

/*
 * Reads the result of every task of plan whose latest run (oc) passed and
 * checks the gate over metrics (nmetrics == 0: every numeric key, as
 * gate_check). Returns 0, or a negative code (error() reported) when the
 * sweep's result sources cannot be told (its kept sweep file does not
 * read, see kept_file_get; its script is gone). Reads the kept sweep file
 * itself (v->own).
 */
int verdict_check(struct verdict *v, struct store *st, const struct sweep_rec *rec,
                  const struct plan *plan, const struct task_outcome *oc,
                  const char *const *metrics, size_t nmetrics);

/*
 * verdict_check of the loaded sweep's plan and outcomes, through its kept
 * sweep file (loaded_sweepfile: parsed once for the whole command) and its
 * reused tasks (loaded_reused: read once).
 */
int verdict_check_loaded(struct verdict *v, struct loaded_sweep *l, const char *const *metrics,
                         size_t nmetrics);

/*
 * Moves what v read (its results and their runs) into keep, for the next
 * verdict's prior, freeing what keep held; v keeps its gate. Nothing moves
 * from a verdict with exclusions (its results are not per task).
 */
void verdict_keep_reads(struct verdict_reads *keep, struct verdict *v);

/*
 * verdict_check_loaded over other outcomes of the loaded sweep's plan (oc:
 * one per task), for status, which reads its own on every refresh.
 */
int verdict_check_outcomes(struct verdict *v, struct loaded_sweep *l, const struct task_outcome *oc,
                           const char *const *metrics, size_t nmetrics);

/*
 * The results.log patterns of r compiled into out (released by
 * result_log_spec_release): 0, or an error naming the metric.
 */
struct cfg_results;
int verdict_log_spec(struct result_log_spec *out, const struct cfg_results *r);

/*
 * The folder submit ran in (the script's --chdir), where every relative
 * path a user gives is; what names the path wanted, for the error. The
 * caller frees *out.
 */
int verdict_workdir(char **out, const struct sweep_rec *rec, const char *what);

/*
 * Whether the results are sweep's own files ($SWEEP_RESULT), the ones a
 * report's hint may name.
 */
bool verdict_own_files(const struct verdict *v);

/*
 * Into out (initialised): the goals of the checked sweep file's `metrics:`
 * (v->cfg), then cli's (--goal) over them. The one place that merges them.
 */
void verdict_goals(struct compare_goals *out, const struct verdict *v,
                   const struct compare_goals *cli);

#endif
