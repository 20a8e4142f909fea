#ifndef SWEEP_ADVISE_H
#define SWEEP_ADVISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acct.h"

/*
 * How often a job should checkpoint: Young's first-order optimum
 * sqrt(2 x cost x MTBF), Daly's higher-order refinement, the exact best
 * interval for a given amount of work, and the expected wall time of a
 * range of intervals, both from the closed form and from a Monte Carlo
 * simulation of the same model. Pure: no I/O, no error() calls.
 *
 * The model (the closed form and the simulation follow exactly this):
 *  - the job needs work_s of useful work; it checkpoints after every
 *    interval_s of work, which takes cost_s; the last segment ends the job
 *    and writes no checkpoint, so an interval at or beyond the work means
 *    "no checkpoint at all";
 *  - interruptions come as a Poisson process with mean time mtbf_s
 *    (exponential times between them, memoryless) and can strike at any
 *    moment of work or checkpoint writing;
 *  - an interruption loses everything since the last completed checkpoint
 *    and then costs restart_s (requeue, start, reading the checkpoint)
 *    before work resumes; no interruption strikes during a restart.
 *
 * All durations are in seconds.
 */

struct advise_params {
	double work_s;    /* useful work of the job, > 0 */
	double cost_s;    /* writing one checkpoint, > 0 */
	double restart_s; /* lost after each interruption before work resumes, >= 0 */
	double mtbf_s;    /* mean time between interruptions, > 0 */
};

/* A year of seconds, as durations are read and written. */
#define ADVISE_YEAR_S (365.25 * 86400)

/*
 * Reads a duration: one or more <number><unit> from the largest unit to
 * the smallest, each unit once, units d, h, m, s ("3m", "90s", "1.5h",
 * "1h30m", "2d"); "0" alone is zero. A plain number is refused (sbatch
 * reads it as minutes, people as anything), as are signs, spaces and
 * durations above 100 years. Returns 0, or -1 with *why set to a static
 * lower-case explanation.
 */
int advise_parse_duration(double *seconds, const char *s, const char **why);

/* Young's first-order optimum interval: sqrt(2 x cost x MTBF). */
double advise_young(double cost_s, double mtbf_s);

/*
 * Daly's higher-order estimate (2006), for a model where interruptions may
 * also strike during restarts: sqrt(2CM) (1 + sqrt(C/2M)/3 + (C/2M)/9) - C
 * for C < 2M, else M.
 */
double advise_daly(double cost_s, double mtbf_s);

/* How interval_s cuts the work: segments with a checkpoint, then one last without. */
struct advise_segments {
	uint64_t checkpoints; /* segments of interval_s work followed by a checkpoint */
	double last_s;        /* work of the last segment (no checkpoint) */
};

/* interval_s <= 0 or >= the work (and NAN) means no checkpoint: one segment. */
void advise_split(struct advise_segments *out, double work_s, double interval_s);

/*
 * The expected wall time of the whole job from the closed form (see
 * advise.c for the derivation). May be +inf when interruptions make the
 * job practically never finish.
 */
double advise_expected(const struct advise_params *p, double interval_s);

/*
 * The exact best interval of the model for this job: the work cut into n
 * equal segments, with the n that minimises advise_expected; 0 when one
 * segment (no checkpoint) is best. Sets *segments to that n when not NULL.
 */
double advise_best_interval(const struct advise_params *p, uint64_t *segments);

/* A Monte Carlo estimate of the expected wall time. */
struct advise_mc {
	bool done;     /* false when the simulation would take too long (see runs) */
	size_t runs;   /* simulated jobs */
	double mean_s; /* their mean wall time */
	double se_s;   /* its standard error: sample std / sqrt(runs) */
};

/*
 * Simulates up to runs jobs event by event: each attempt at a segment draws
 * an exponential time to the next interruption (xoshiro256** seeded with
 * splitmix64 from seed; the same seed gives the same result). When the
 * expected number of draws would exceed a fixed budget (a few million),
 * fewer runs are made; below 100 runs, none, and out->done is false.
 */
void advise_simulate(struct advise_mc *out, const struct advise_params *p, double interval_s,
                     size_t runs, uint64_t seed);

/* What the accounting of a sweep says about interruptions. */
struct advise_mtbf {
	size_t runs;                 /* task runs that started (a requeued task has several) */
	double run_s;                /* their elapsed time, summed */
	size_t interruptions;        /* runs counted as interrupted */
	size_t by_state[TS_NSTATES]; /* interruptions by the state their run ended in */
	size_t timeouts;             /* runs that hit their time limit: not counted */
	bool has_estimate;           /* interruptions > 0 and run_s > 0 */
	double mtbf_s;               /* run_s / interruptions, when has_estimate */
};

/*
 * Estimates the MTBF from the records of a sweep: run time summed over all
 * runs of all tasks, divided by the interruptions among them. A run is an
 * interruption when it ended PREEMPTED, NODE_FAIL or REQUEUED, or when a
 * later run of the same task in the same array job exists (it was
 * requeued) and it did not complete. TIMEOUT is not an interruption: the
 * time limit is the job's own, not a failure. Pending records are ignored.
 */
void advise_estimate_mtbf(struct advise_mtbf *out, const struct acct_set *set);

/* One row of the table. */
struct advise_row {
	const char *label; /* "Young", "best", "none" or NULL; static */
	double factor;     /* interval / Young's, or 0 for the rows that are not a multiple */
	double interval_s; /* 0 for "no checkpoint" */
	uint64_t checkpoints;
	double expected_s; /* closed form; may be +inf */
	double overhead;   /* (expected - work) / work */
	struct advise_mc mc;
};

#define ADVISE_MC_RUNS      20000
#define ADVISE_DEFAULT_SEED 1

/* Everything the command prints. */
struct advise_report {
	/* Set by the caller. */
	struct advise_params params; /* params.mtbf_s: given, or estimated (0 when none) */
	uint64_t seed;
	const char *sweep; /* --from: the sweep's name (borrowed), else NULL */
	int64_t sweep_id;
	const struct advise_mtbf *observed; /* --from: the estimate (borrowed), else NULL */

	/* Filled by advise_build; has_table is false when the MTBF is unknown. */
	bool has_table;
	double young_s, daly_s, best_s;
	uint64_t best_segments;
	struct advise_row *rows; /* owned */
	size_t nrows;
};

void advise_report_init(struct advise_report *r);
/* Frees the rows; the borrowed fields are left alone. */
void advise_report_release(struct advise_report *r);

/*
 * Fills the table: 0.25x to 4x Young's interval, the best interval for the
 * job and no checkpoint at all, sorted by interval, each with the closed
 * form and ADVISE_MC_RUNS simulated jobs (all rows from r->seed). Does
 * nothing but clear has_table when params.mtbf_s is 0.
 */
void advise_build(struct advise_report *r);

/* The printers are in aggregate/print/advise_print.h. */

#endif
