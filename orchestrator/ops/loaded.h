#ifndef SWEEP_LOADED_H
#define SWEEP_LOADED_H

#include <stdbool.h>
#include <stddef.h>

#include "acct.h"
#include "backend.h"
#include "plan.h"
#include "store.h"

struct task_outcome;

/*
 * One sweep as the commands read it: the open store, the sweep's record
 * (repaired when a submission died, see submission_recover), its plan,
 * its array jobs, their records on its backend and one outcome per task.
 * Loaded in stages, each after the one before, so a command says what it
 * has to say between them; loaded_release frees whatever was loaded.
 */
struct loaded_sweep {
	struct store *st;
	struct sweep_rec rec;
	struct plan plan;
	struct array_rec *arrays;
	size_t narrays;
	struct acct_set set;
	struct task_outcome *outcomes; /* rec.ntasks entries (outcomes borrow from set) */
	/*
	 * How records are read: the command sets read.steps when it needs
	 * MaxRSS and read.refresh for --refresh before loaded_records or
	 * loaded_outcomes, which fill in where the records came from.
	 */
	struct backend_read read;
};

void loaded_init(struct loaded_sweep *l);
void loaded_release(struct loaded_sweep *l);

/*
 * Opens the store in state_dir (without creating it), finds the sweep
 * named by which (name, id, or NULL for the most recent) and repairs what
 * an interrupted submission left (submission_recover), so every command
 * sees the repaired sweep. Errors are reported.
 */
int loaded_open(struct loaded_sweep *l, const char *state_dir, const char *which);
/* Loads the plan of the opened sweep. */
int loaded_plan(struct loaded_sweep *l);
/* Loads the array jobs of the opened sweep (again, when called twice). */
int loaded_arrays(struct loaded_sweep *l);
/*
 * Loads the array jobs and every record of them on the sweep's backend
 * (none when none), as l->read asks; says on stderr when the state store
 * answered (backend_read_note).
 */
int loaded_records(struct loaded_sweep *l);
/*
 * Loads (again, when called twice) the array jobs, one records query on the
 * sweep's backend (as l->read asks), and the outcomes
 * (backend_load_outcomes); says on stderr when the state store answered.
 */
int loaded_outcomes(struct loaded_sweep *l);

struct cfg;
struct store;

/*
 * The sweep file rec was submitted with (kept in the state store), parsed
 * into cfg (initialised by the caller, released by the caller). Returns 0,
 * or -1 when none is kept or it does not parse (said on stderr).
 */
int loaded_spec(struct cfg *cfg, struct store *st, const struct sweep_rec *rec);

/*
 * Whether rec's sweep file has `stage:`: only then do its tasks leave
 * staging notes worth looking for (one file per task). A file without the
 * word is not parsed, so a kept file that no longer reads says nothing.
 */
bool loaded_stages(struct store *st, const struct sweep_rec *rec);

/*
 * How long after sbatch a record missing from slurmdbd is still normal: it
 * hears of new array jobs a moment after sbatch returns.
 */
#define LOADED_MISSING_GRACE_S 120

/* Whether one of the n array jobs was submitted less than LOADED_MISSING_GRACE_S ago. */
bool loaded_records_may_lag(const struct array_rec *arrays, size_t n);

#endif
