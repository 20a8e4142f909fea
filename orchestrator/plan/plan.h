#ifndef SWEEP_PLAN_H
#define SWEEP_PLAN_H

#include <stddef.h>
#include <stdint.h>

struct cfg;

/*
 * The plan: the task table of a sweep. Pure: no I/O.
 *
 * Settings are, in this order: the cartesian product of the `grid`
 * parameters (in file order, the last one varying fastest) with the rows
 * of `zip` as one more, innermost, axis; then the `cases`, in file order.
 * With `sample:` (random search, sample.h), each trial is one setting, or
 * one block of the grid x zip product: trial outermost, its drawn values
 * in the first parameters (sample keys, then grid keys, then zip keys).
 * Every setting runs once per seed; the seeds of one setting are adjacent:
 *
 *     task index = setting * nseeds + seed position
 *
 * so a task finds its setting and seed by arithmetic.
 */
struct plan {
	char **params; /* parameter names: sample, grid, zip keys, then keys only cases have */
	size_t nparams;
	char **values; /* nsettings x nparams, row-major; values[s * nparams + p] */
	size_t nsettings;
	int64_t *seeds;
	size_t nseeds;
	size_t ntasks;         /* nsettings * nseeds */
	unsigned char *varies; /* per parameter: 1 if it takes more than one value */
};

void plan_init(struct plan *plan);
void plan_release(struct plan *plan);

/*
 * Sets what follows from the params, values and seeds of plan: ntasks and
 * varies (allocated here; released by plan_release).
 */
void plan_derive(struct plan *plan);

/*
 * Expands a validated cfg into out (initialised). Strings are copied, so the
 * plan outlives the cfg. Fails (error() with the reason) only when the
 * sweep would have more than GRID_MAX_TASKS tasks or a case misses a
 * parameter that the other settings have.
 */
#define GRID_MAX_TASKS 10000000u
int plan_expand(struct plan *out, const struct cfg *cfg);

/*
 * Every value reaches its task as an environment variable
 * (SWEEP_PARAM_name=value), and most often as an argument of the command
 * too. Linux holds at most 128 KiB in one such string (MAX_ARG_STRLEN)
 * and about 2 MiB in all of them together (ARG_MAX with the usual 8 MiB
 * stack), so a larger value fails every task with "Argument list too
 * long" while Slurm says COMPLETED. Refuses, naming the parameter, the
 * setting and the limit: a variable over PLAN_MAX_VARIABLE bytes, or a
 * setting whose variables, counted twice (environment and arguments),
 * and the sweep file's env: take over PLAN_MAX_TASK_BYTES (half of
 * ARG_MAX: the rest is the environment Slurm passes on).
 */
#define PLAN_MAX_VARIABLE   (128u << 10)
#define PLAN_MAX_TASK_BYTES (1u << 20)
int plan_check_sizes(const struct plan *plan, const struct cfg *cfg);

/* Borrowed from plan: the value of parameter p in setting s. */
static inline const char *plan_value(const struct plan *plan, size_t s, size_t p)
{
	return plan->values[s * plan->nparams + p];
}

static inline size_t plan_setting_of(const struct plan *plan, size_t index)
{
	return index / plan->nseeds;
}

static inline int64_t plan_seed_of(const struct plan *plan, size_t index)
{
	return plan->seeds[index % plan->nseeds];
}

/*
 * Appends "lr=0.1 wd=0" (only the parameters that vary, or all when none
 * varies) for setting s to out; a newly allocated string the caller frees.
 */
char *plan_setting_label(const struct plan *plan, size_t s);

#endif
