#ifndef SWEEP_ROLLOUT_H
#define SWEEP_ROLLOUT_H

#include <stddef.h>
#include <stdint.h>

/*
 * How much of a sweep may be queued at once, and in which pieces: a pure
 * function of the cluster's limits (read by the backend, see quota.h) and
 * the number of array tasks. No I/O, so unit tests feed it limits directly.
 *
 * Every array task counts against Slurm's job limits (MaxJobCount, and the
 * QOS and association MaxSubmitJobs), pending ones included, so a throttle
 * (%K) does not help: only submitting fewer tasks at once does.
 */

#define ROLLOUT_UNLIMITED UINT32_MAX

/* One limit: at most max jobs, used of them taken now. */
struct rollout_limit {
	uint32_t max;
	uint32_t used;
	char what[128]; /* for people: "QOS 'small' MaxSubmitJobsPerUser" */
};

/* Array tasks [first, first + count) of the sweep's array task sequence. */
struct rollout_chunk {
	uint64_t first;
	uint32_t count;
};

struct rollout_plan {
	struct rollout_chunk *chunks; /* all chunks, in submission order; the caller frees */
	size_t nchunks;
	size_t nnow;       /* the first nnow chunks may be submitted now */
	uint64_t budget;   /* array tasks that may be queued now; UINT64_MAX: no limit */
	uint64_t capacity; /* the same with nothing of the user queued */
	int bound;         /* the limit that set budget (index into the limits), -1 none */
};

/* The default share of each limit left for the user's other jobs: 10%. */
#define ROLLOUT_HEADROOM 0.1

/*
 * The jobs free under one limit, keeping headroom × max (rounded up) for
 * others: max - ceil(max × headroom) - used, never below 0;
 * ROLLOUT_UNLIMITED for an unlimited one.
 */
uint32_t rollout_free(const struct rollout_limit *lim, double headroom);

/*
 * Plans units array tasks under the limits. Chunks never exceed
 * max_array (0 = no limit). When everything fits, the chunks are as large
 * as max_array allows and all go now. When not, chunks are also at most a
 * quarter of the capacity (so several are in flight and each end frees
 * room for the next), and nnow is as many leading chunks as the budget
 * holds (possibly 0). Returns 0; out is the caller's (rollout_plan_release).
 */
int rollout_plan_make(struct rollout_plan *out, uint64_t units, uint32_t max_array,
                      const struct rollout_limit *limits, size_t nlimits, double headroom);

void rollout_plan_release(struct rollout_plan *plan);

/* Array tasks the first n chunks hold. */
uint64_t rollout_units(const struct rollout_plan *plan, size_t n);

/*
 * The smallest pack (sweep tasks per array task) that lets ntasks go in at
 * once within budget array tasks; 0 when none can (budget 0).
 */
uint64_t rollout_pack_to_fit(uint64_t ntasks, uint64_t budget);

#endif
