#ifndef SWEEP_LOADED_H
#define SWEEP_LOADED_H

#include <stdbool.h>
#include <stddef.h>

#include "acct.h"
#include "backend.h"
#include "cfg.h"
#include "plan.h"
#include "store.h"

struct task_outcome;

/*
 * How a caller of the kept sweep file wants its failure told: not at all
 * (it only asks, as "does it stage?"), as a warning (it goes on without
 * the file), or as an error (it stops).
 */
enum loaded_say {
	LOADED_QUIET,
	LOADED_WARN,
	LOADED_ERROR,
};

/*
 * The sweep file a sweep was submitted with, as the state store keeps it:
 * read and parsed at most once, on first use, with the failure kept too.
 * struct loaded_sweep holds one (loaded_sweepfile); code that walks other
 * sweeps of the store (a family of confirms, the sweeps reused tasks came
 * from) keeps one per sweep and asks kept_file_get.
 */
enum kept_state {
	KEPT_UNREAD,
	KEPT_NONE,   /* the sweep was recorded without its file */
	KEPT_READ,   /* cfg holds it */
	KEPT_BROKEN, /* it cannot be read or no longer parses: why says so */
};

struct kept_file {
	enum kept_state state;
	char *text;     /* as kept: "" for KEPT_NONE, NULL before reading or when unreadable */
	struct cfg cfg; /* KEPT_READ: the parse; otherwise empty */
	char *why;      /* KEPT_BROKEN: what the store or the reader said */
	enum loaded_say said; /* KEPT_BROKEN: the loudest way it was told */
};

void kept_file_init(struct kept_file *kf);
void kept_file_release(struct kept_file *kf);

/*
 * Sets *out to rec's parsed sweep file (borrowed from kf: an empty cfg
 * when the sweep was recorded without one, or when it fails), reading and
 * parsing it on the first call only. Returns 0, or SWEEP_ERR when it
 * cannot be read or no longer parses; then, unless say is LOADED_QUIET
 * or it was told that loudly already, says so in the one wording "the
 * sweep file kept for sweep N does not read: WHY". st and rec are the
 * same on every call for one kf.
 */
int kept_file_get(const struct cfg **out, struct kept_file *kf, struct store *st,
                  const struct sweep_rec *rec, enum loaded_say say);

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
	struct kept_file file; /* the kept sweep file: loaded_sweepfile */
	/* The tasks reused from earlier sweeps (loaded_reused), by index; NULL when none. */
	struct reused_rec *reused;
	size_t nreused;
	bool reused_read;
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
 * (backend_outcomes_reusing, with loaded_reused's tasks); says on stderr
 * when the state store answered.
 */
int loaded_outcomes(struct loaded_sweep *l);

/*
 * The tasks the sweep reused from earlier sweeps (submit --extend), as
 * store_load_reused has them: read from the store on the first call only,
 * for the outcomes, the verdict and report's note alike. *out (borrowed
 * from l; NULL when none) has *n entries.
 */
int loaded_reused(const struct reused_rec **out, size_t *n, struct loaded_sweep *l);

/* kept_file_get for the loaded sweep (l->file). */
int loaded_sweepfile(const struct cfg **out, struct loaded_sweep *l, enum loaded_say say);

/*
 * How many times a kept sweep file was parsed in this process (every
 * kept_file, every sweep), for SWEEP_DEBUG_QUERIES and the tests.
 */
unsigned loaded_sweepfile_parses(void);

/*
 * How long after sbatch a record missing from slurmdbd is still normal: it
 * hears of new array jobs a moment after sbatch returns.
 */
#define LOADED_MISSING_GRACE_S 120

/* Whether one of the n array jobs was submitted less than LOADED_MISSING_GRACE_S ago. */
bool loaded_records_may_lag(const struct array_rec *arrays, size_t n);

#endif
