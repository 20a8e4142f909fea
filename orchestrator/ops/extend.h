#ifndef SWEEP_EXTEND_H
#define SWEEP_EXTEND_H

#include <stddef.h>
#include <stdint.h>

#include "plan.h"
#include "strbuf.h"

struct store;
struct sweep_rec;

/*
 * submit --extend SWEEP: which tasks of the new sweep SWEEP (and the sweeps
 * it extended, newest first) already ran. A task is reused when a sweep of
 * that chain with the same recipe (plan/reuse.h: command text, setup,
 * environment, template) has a task with its setting and seed whose latest
 * run passed the gate; the newest such task decides (if it failed, the task
 * runs again). One records query per sweep of the chain.
 */
struct extend {
	int64_t base;        /* the sweep named */
	size_t ntasks;       /* of the new plan */
	int64_t *from_sweep; /* per task: the sweep that ran it, 0 = run it now */
	size_t *from_index;  /* per task: its index there */
	int64_t *matched_in; /* per task: the sweep of the chain it matched in, 0 = none */
	size_t *matched_index;
	size_t nreused;
	struct strbuf why; /* what could not be reused and why, one line each */
	struct plan base_plan; /* of the sweep named, to tell a changed setting from a new one */
};

void extend_init(struct extend *x);
void extend_release(struct extend *x);

/*
 * Fills x for plan (the new sweep's) with recipe (reuse_recipe) against
 * the sweep named which in st. Fails when that sweep cannot be found or
 * read; a changed recipe is no failure: nothing is reused and x->why says
 * what changed.
 */
int extend_find(struct extend *x, struct store *st, const char *which, const struct plan *plan,
                const char *recipe);

/*
 * Copies the result file of every reused task, from its task folder in
 * the sweep it matched in (that sweep's layout), into the new sweep's
 * (rec: its folder and layout; result_path), so the report reads it where
 * it reads every task's. Only for a sweep whose metrics are in
 * result.json (cfg_results_in_sweep_result): others have none to copy.
 */
int extend_copy_results(const struct extend *x, struct store *st, const struct sweep_rec *rec);

/*
 * Per setting of want (the new plan), one line each: reused (every seed),
 * partly reused (which seeds run, and why), changed (the value edited
 * from the setting of the sweep named: "lr: -0.1 -> 0.05") or new. For
 * submit --extend --dry-run.
 */
void extend_describe_settings(struct strbuf *out, const struct extend *x,
                              const struct plan *want);

/* "3 reused from sweep 1 (indices 0-1,4)" lines for the report and submit. */
void extend_describe(struct strbuf *out, const int64_t *from_sweep, size_t ntasks);

#endif
