#ifndef SWEEP_FOLLOWUP_RUN_H
#define SWEEP_FOLLOWUP_RUN_H

#include <stdint.h>

/*
 * Running one follow-up (followup.h says what a follow-up is and arranges
 * them): claims its row in the store, waits (bounded) for the final records,
 * decides (aggregate/finish.h), acts (a retry round through rerun.h, or the
 * report and the one notification) and records what it did.
 */

/* `sweep __followup --state-dir DIR SWEEP_ID SEQ`: runs one follow-up. */
int followup_run_main(int argc, char **argv);

/*
 * The local runner's hook, called when array job job_id of the sweep has
 * no task left to run: runs the pending follow-up that waits for it once
 * every job it waits for is done.
 */
int followup_run_local_ended(const char *state_dir, int64_t sweep_id, uint32_t job_id);

#endif
