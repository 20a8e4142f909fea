/*
 * Rolling submission, the planning half. The budget is the least of what
 * every limit leaves free; a share of each limit stays free for the user's
 * other work (and, for MaxJobCount, everyone else's).
 */
#include "rollout.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

#include "banned.h"

uint32_t rollout_free(const struct rollout_limit *lim, double headroom)
{
	uint64_t keep, usable;

	if (lim->max == ROLLOUT_UNLIMITED)
		return ROLLOUT_UNLIMITED;
	keep = (uint64_t)ceil((double)lim->max * headroom);
	usable = lim->max > keep ? lim->max - keep : 0;
	return usable > lim->used ? (uint32_t)(usable - lim->used) : 0;
}

static uint64_t capacity_of(const struct rollout_limit *lim, double headroom)
{
	struct rollout_limit empty = *lim;

	empty.used = 0;
	return rollout_free(&empty, headroom);
}

int rollout_plan_make(struct rollout_plan *out, uint64_t units, uint32_t max_array,
                      const struct rollout_limit *limits, size_t nlimits, double headroom)
{
	uint64_t size = max_array ? max_array : UINT32_MAX, held = 0;
	size_t alloc;

	memset(out, 0, sizeof(*out));
	out->budget = UINT64_MAX;
	out->capacity = UINT64_MAX;
	out->bound = -1;
	for (size_t i = 0; i < nlimits; i++) {
		uint32_t f = rollout_free(&limits[i], headroom);
		uint64_t cap = capacity_of(&limits[i], headroom);

		if (f == ROLLOUT_UNLIMITED)
			continue;
		if (f < out->budget) {
			out->budget = f;
			out->bound = (int)i;
		}
		if (cap < out->capacity)
			out->capacity = cap;
	}
	if (units > out->budget && out->capacity != UINT64_MAX) {
		uint64_t quarter = out->capacity / 4 ? out->capacity / 4 : 1;

		if (quarter < size)
			size = quarter;
	}
	alloc = (size_t)((units + size - 1) / size);
	out->chunks = xcalloc(alloc ? alloc : 1, sizeof(*out->chunks));
	for (uint64_t first = 0; first < units; first += size) {
		struct rollout_chunk *c = &out->chunks[out->nchunks++];

		c->first = first;
		c->count = (uint32_t)(units - first < size ? units - first : size);
	}
	while (out->nnow < out->nchunks && held + out->chunks[out->nnow].count <= out->budget)
		held += out->chunks[out->nnow++].count;
	return 0;
}

void rollout_plan_release(struct rollout_plan *plan)
{
	free(plan->chunks);
	memset(plan, 0, sizeof(*plan));
}

uint64_t rollout_units(const struct rollout_plan *plan, size_t n)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < n && i < plan->nchunks; i++)
		sum += plan->chunks[i].count;
	return sum;
}

uint64_t rollout_pack_to_fit(uint64_t ntasks, uint64_t budget)
{
	if (!budget)
		return 0;
	if (ntasks <= budget)
		return 1;
	return (ntasks + budget - 1) / budget;
}
