#ifndef SWEEP_SIZING_H
#define SWEEP_SIZING_H

#include <stdbool.h>

#include "loaded.h"
#include "rightsize.h"

struct cfg;

/* A sweep sized: the rightsize recommendation borrows from the loaded plan and outcomes. */
struct sizing {
	struct loaded_sweep l;
	struct rightsize rs;
};

void sizing_init(struct sizing *z);
void sizing_release(struct sizing *z);
/*
 * Loads the sweep named by which in state_dir, its records with their steps
 * (MaxRSS; all of them read again from the scheduler when refresh), and
 * sizes it with policy p.
 */
int sizing_load(struct sizing *z, const char *state_dir, const char *which,
                const struct rightsize_policy *p, bool refresh);

/*
 * For submit --resources-from: applies the whole-sweep recommendation
 * (default headroom and factors) of the sweep named by which in state_dir
 * to cfg's slurm.mem and slurm.time, and prints each change. Fails, with
 * the reason reported, when that sweep cannot be read or its data support
 * no recommendation (nothing ran, tasks still running).
 */
int sizing_apply(struct cfg *cfg, const char *state_dir, const char *which);

#endif
