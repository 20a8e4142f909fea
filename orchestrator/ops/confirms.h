#ifndef SWEEP_CONFIRMS_H
#define SWEEP_CONFIRMS_H

#include <stddef.h>
#include <stdint.h>

struct cfg;
struct plan;
struct store;
struct sweep_rec;

/*
 * Sweeps made by sweep confirm, as the state store has them: each names
 * the sweep whose best settings it runs again (`confirm_of:` in its file),
 * so a sweep and its confirms, and their confirms, form a family.
 */

/* How long confirms_used_seeds waits for the family's lock. */
#define CONFIRMS_LOCK_WAIT_S 120

/*
 * The seeds every sweep of rec's family ran (the sweep it started from and
 * every confirm below it): none of them is fresh for a new confirm. *used
 * (the caller frees it) gets *nused seeds, *others the number of family
 * sweeps other than rec.
 *
 * With lock_fd, the seeds are read under the family's lock, the
 * submission lock (submission.h) of the family's first sweep still in the
 * store, waited for up to CONFIRMS_LOCK_WAIT_S: *lock_fd gets it, and the
 * caller closes it only once the new sweep is recorded, so that two
 * confirms of one family get disjoint seeds. *lock_fd is -1 on failure.
 */
int confirms_used_seeds(int64_t **used, size_t *nused, unsigned *others, int *lock_fd,
                        struct store *st, const struct sweep_rec *rec);

/*
 * Of a confirm sweep (cfg->confirm_of) of plan: "selected on seeds 0-4 of
 * sweep 12; estimated on seeds 5-9", from the two sweeps' plans; NULL for
 * any other sweep. The caller frees it.
 */
char *confirms_provenance(struct store *st, const struct cfg *cfg, const struct plan *plan);

#endif
