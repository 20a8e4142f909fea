#ifndef SWEEP_QUOTA_H
#define SWEEP_QUOTA_H

#include <stddef.h>
#include <stdint.h>

#include "rollout.h"

/*
 * What the cluster lets this user queue, read before submitting by the
 * backend (backend_ops.limits; on Slurm: the controller's MaxArraySize and
 * MaxJobCount, the association and QOS limits that apply, and how much of
 * each is taken now, every pending or running array task counting as one
 * job, as Slurm counts it). This header and quota.c are pure: the struct,
 * and what to say about it.
 */
struct quota {
	uint32_t max_array;           /* MaxArraySize (0 = unknown) */
	struct rollout_limit *submit; /* limits on queued jobs (pending + running) */
	size_t nsubmit;
	struct rollout_limit *run; /* limits on running jobs: they only slow a sweep down */
	size_t nrun;
	uint32_t queued;            /* the user's jobs pending or running now */
	char *user, *account, *qos; /* the association and QOS the sweep will use */
	char *note;                 /* why a part could not be read (slurmdbd down...), or NULL */
};

void quota_init(struct quota *q);
void quota_release(struct quota *q);

/*
 * The jobs an --array value such as "0-49%10", "3,17-19" or a hex bitmap
 * "0x..." names (its count; 0 for an empty or unreadable one).
 */
uint64_t quota_count_tasks(const char *spec);

/*
 * sbatch's refusal text turned into the limit that caused it, for people:
 * "QOS 'small' MaxSubmitJobsPerUser (100; 95 queued)" when q names it, or a
 * short description of Slurm's reason; NULL when the text names no limit.
 * The caller frees.
 */
char *quota_explain_refusal(const char *sbatch_stderr, const struct quota *q);

/* Prints the limits and how much of each is used, one per line, each starting with prefix. */
void quota_print(const struct quota *q, const char *prefix);

#endif
