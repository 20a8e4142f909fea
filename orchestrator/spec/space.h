#ifndef SWEEP_SPACE_H
#define SWEEP_SPACE_H

#include <stddef.h>
#include <stdint.h>

/*
 * Checkpoint space (prefix space_): before submitting, the folder that holds the
 * tasks' folders must have room for every checkpoint that the tasks running
 * at once may keep.
 */

/*
 * MiB needed: (tasks that may run at once) x size x keep, where the tasks
 * at once are the throttle (0 = none) or all tasks, whichever is fewer.
 * Saturates at UINT64_MAX instead of overflowing.
 */
uint64_t space_needed_mb(size_t ntasks, unsigned max_concurrent, uint64_t size_mb, unsigned keep);

/*
 * Checks that dir's file system has needed_mb free for this user (statvfs
 * f_bavail, so root's reserve does not count). Reports, with the figures and
 * what to change, and fails when it has not.
 */
int space_check(const char *dir, uint64_t needed_mb, size_t at_once, uint64_t size_mb,
                unsigned keep);

#endif
