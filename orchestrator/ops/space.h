#ifndef SWEEP_SPACE_H
#define SWEEP_SPACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "diskquota.h"

/*
 * Checkpoint space (prefix space_): before submitting, the file system that
 * takes the checkpoints (checkpoint.dir, else the tasks' folders) must have
 * room, in its free space and in every quota of this user there
 * (diskquota.h), for every checkpoint that the tasks running at once may keep.
 */

/*
 * MiB needed: (tasks that may run at once) x size x keep, where the tasks
 * at once are the throttle (0 = none) or all tasks, whichever is fewer.
 * Saturates at UINT64_MAX instead of overflowing.
 */
uint64_t space_needed_mb(size_t ntasks, unsigned max_concurrent, uint64_t size_mb, unsigned keep);

/*
 * Bytes a quota leaves: its soft limit (else its hard limit) minus what is
 * used, 0 when that is reached; UINT64_MAX when it has no limit. The soft
 * limit counts because past it the grace runs out during a long sweep.
 */
uint64_t space_quota_left(const struct diskquota *q);

/* The tightest bound on what checkpoints may take. */
struct space_fit {
	uint64_t left; /* bytes */
	const struct diskquota
	    *by; /* the quota that leaves least (borrowed from the array), or NULL: free space */
};

/*
 * Pure: whether need bytes fit in min(free_bytes, what each of the n quotas
 * leaves). Sets *out to the tightest bound and returns 1 when it fits, 0
 * when not.
 */
int space_fits(struct space_fit *out, uint64_t need, uint64_t free_bytes,
               const struct diskquota *quotas, size_t n);

/*
 * The folder whose file system takes the checkpoints: checkpoint_dir (NULL
 * = default_dir) up to its last '/' before its first placeholder, relative
 * to cwd, then its nearest existing folder (the checkpoints' folders are
 * made by the tasks). NULL when checkpoint_dir starts with {stage}: each
 * node's local disk, which submit cannot see. Caller frees.
 */
char *space_checkpoint_root(const char *checkpoint_dir, const char *cwd, const char *default_dir);

/*
 * Checks that dir's file system has needed_mb free for this user (statvfs
 * f_bavail, so root's reserve does not count) and that every quota sys
 * finds for dir leaves that much. With show (--dry-run), prints the check
 * there as "# " lines, the quotas found or why they are unknown. Reports,
 * with the figures and what to change, and fails when it does not fit.
 */
int space_check(const char *dir, uint64_t needed_mb, size_t at_once, uint64_t size_mb,
                unsigned keep, const struct diskquota_sys *sys, FILE *show);

#endif
