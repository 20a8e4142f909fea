#ifndef SWEEP_SUBMISSION_H
#define SWEEP_SUBMISSION_H

#include <stdbool.h>
#include <stdint.h>

struct backend_ops;

/*
 * What submit and resubmit share around handing array jobs to a backend.
 */

/*
 * The backend's largest array (MaxArraySize; 0 = no limit). A dry run works
 * without a cluster: there a failure is shown as a warning followed by
 * unknown_says, and the dry run goes on with no limit.
 */
int submission_max_array_size(const struct backend_ops *ops, uint32_t *out, bool dry_run,
                              const char *unknown_says);

#endif
