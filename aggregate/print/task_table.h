#ifndef SWEEP_TASK_TABLE_H
#define SWEEP_TASK_TABLE_H

/*
 * The one per-task table (sacct's fields[]): status --tasks, report's failed
 * tasks, rightsize --tasks and resubmit's plan each pick their columns from
 * one column table, so that a column has the same UPPER-CASE header, the
 * same alignment and the same cell text in all of them.
 *
 * A row is a task_row: what the callers know of task i (its outcome, its
 * setting's label, its seed, the texts they worked out); each column writes
 * its cell from it, "-" where the row does not say.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "acct.h"
#include "outcome.h"
#include "table.h"

enum task_col {
	TT_INDEX,    /* the task index */
	TT_SETTING,  /* the setting's label, "lr=0.1 wd=0" */
	TT_SEED,     /* the seed */
	TT_STATE,    /* the state's name (or state_text) */
	TT_ATTEMPTS, /* submission attempts that covered the task */
	TT_EXIT,     /* task_table_exit_text */
	TT_JOB,      /* <array job>_<array task> of the latest run */
	TT_ELAPSED,  /* run time, "-" before it started */
	TT_TIME,     /* the time limit */
	TT_TIME_EFF, /* elapsed / time limit */
	TT_MAXRSS,   /* peak memory, with what the node needed when it ran several */
	TT_MEM,      /* the memory asked for */
	TT_MEM_EFF,  /* MaxRSS / memory asked for */
	TT_CPUS,     /* allocated CPUs */
	TT_CPU_EFF,  /* TotalCPU / (elapsed x CPUs) */
	TT_RESTARTS, /* requeues within the array job, with why */
	TT_REASON,   /* why the task is as it is (the caller's words) */
	TT_REQUEST,  /* what a resubmission asks */
	TT_NOTE,     /* a note of the caller's */
	TT_LOG,      /* the log file */
	TT_CAUSE,    /* the failure's cause line */
	TT_NCOLS
};

/* What the columns read for one task. task_row_init first; then fill what the table shows. */
struct task_row {
	size_t index;
	const char *setting; /* borrowed; NULL: "-" */
	int64_t seed;
	enum task_state state;
	const char *state_text; /* shown in place of the state's name ("NOT_SUBMITTED"), or NULL */
	int exit_code;
	int signal;
	uint32_t array_job_id; /* 0: no run known */
	uint32_t array_task_id;
	/* The accounting of the latest run (attempts, time, memory, CPUs, restarts); NULL: "-". */
	const struct task_outcome *o;
	/* Texts of the caller, borrowed; NULL: "-". */
	const char *reason;
	const char *request;
	const char *note;
	const char *log;
	const char *cause;
	/* Efficiencies, 0..1 (or above); NaN: "-". */
	double mem_eff;
	double time_eff;
	double cpu_eff;
};

/*
 * A row for task index: state, exit code, signal and job ids from o (which
 * it borrows; NULL leaves the task MISSING), efficiencies NaN, the rest
 * empty.
 */
void task_row_init(struct task_row *row, size_t index, const struct task_outcome *o);

/* "INDEX", "SETTING"...: column c's header. */
const char *task_col_name(enum task_col c);

/*
 * The exit cell, one format for both backends: "-" while the task has no
 * final state; else the exit code, and ":SIG" only when a signal ended it
 * ("0", "1", "0:9"). A task that reached its time limit or deadline shows
 * no signal: that signal is the scheduler's own (Slurm's job record keeps
 * none, the local runner's SIGTERM does), and the state already says it.
 * The caller frees the text.
 */
char *task_table_exit_text(enum task_state state, int exit_code, int signal);

/* Column c's cell for row, as the table shows it; the caller frees it. */
char *task_table_cell(enum task_col c, const struct task_row *row);

/* A table of the columns cols[0..ncols-1], in that order, headers first. */
struct task_table {
	struct table t;
	enum task_col cols[TT_NCOLS];
	size_t ncols;
};

/* ncols <= TT_NCOLS (assert); the columns are copied. */
void task_table_init(struct task_table *tt, const enum task_col *cols, size_t ncols);
/* Adds the row's cells of the table's columns. */
void task_table_add(struct task_table *tt, const struct task_row *row);
void task_table_print(FILE *f, const struct task_table *tt);
void task_table_release(struct task_table *tt);

#endif
