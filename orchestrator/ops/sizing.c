/*
 * A sweep sized: its loaded outcomes and the rightsize recommendation
 * built from them, for sweep rightsize and for submit --resources-from,
 * which applies the recommendation to a new sweep's file.
 */
#include "sizing.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg.h"
#include "error.h"
#include "outcome.h"
#include "strbuf.h"
#include "units.h"

#include "banned.h"

void sizing_init(struct sizing *z)
{
	loaded_init(&z->l);
	rightsize_init(&z->rs);
}

void sizing_release(struct sizing *z)
{
	rightsize_release(&z->rs);
	loaded_release(&z->l);
	sizing_init(z);
}

int sizing_load(struct sizing *z, const char *state_dir, const char *which,
                const struct rightsize_policy *p, bool refresh)
{
	int ret;

	z->l.read.steps = true;
	z->l.read.refresh = refresh;
	ret = loaded_open(&z->l, state_dir, which);
	if (ret == 0)
		ret = loaded_plan(&z->l);
	if (ret == 0)
		ret = loaded_outcomes(&z->l);
	if (ret < 0)
		return ret;
	/*
	 * An array job submitted moments ago (a resubmit) has no record yet:
	 * its tasks are pending, not unmeasured for good. Say so now, as a few
	 * seconds later, not "no task has a record: nothing was measured".
	 */
	if (loaded_records_may_lag(z->l.arrays, z->l.narrays))
		for (size_t i = 0; i < z->l.plan.ntasks; i++)
			if (z->l.outcomes[i].state == TS_MISSING)
				z->l.outcomes[i].state = TS_PENDING;
	rightsize_build(&z->rs, &z->l.plan, z->l.outcomes, p);
	z->rs.name = z->l.rec.name;
	z->rs.gpu_recorded = z->l.set.gpu_recorded;
	z->rs.local = z->l.rec.backend && !strcmp(z->l.rec.backend, "local");
	z->rs.id = z->l.rec.id;
	return 0;
}

/* Whether an option of slurm.extra is --mem-per-gpu, which sbatch refuses beside --mem. */
static bool asks_mem_per_gpu(const struct cfg *cfg)
{
	for (size_t i = 0; i < cfg->slurm.nextra; i++)
		if (!strncmp(cfg->slurm.extra[i], "--mem-per-gpu", 13) &&
		    (!cfg->slurm.extra[i][13] || cfg->slurm.extra[i][13] == '='))
			return true;
	return false;
}

static void apply_mem(struct cfg *cfg, const struct rightsize_group *g)
{
	char before[64], after[64];

	if (cfg->slurm.mem_per_cpu_mb && g->mem_per_cpu_mb) {
		units_format_mem(before, sizeof(before), cfg->slurm.mem_per_cpu_mb);
		units_format_mem(after, sizeof(after), g->mem_per_cpu_mb);
		printf("  slurm.mem_per_cpu: %s -> %s\n", before, after);
		cfg->slurm.mem_per_cpu_mb = g->mem_per_cpu_mb;
		return;
	}
	units_format_mem(after, sizeof(after), g->mem_mb);
	if (cfg->slurm.mem_per_cpu_mb) {
		units_format_mem(before, sizeof(before), cfg->slurm.mem_per_cpu_mb);
		printf("  slurm.mem_per_cpu: %s -> slurm.mem: %s (per task)\n", before, after);
	} else if (cfg->slurm.mem_mb) {
		units_format_mem(before, sizeof(before), cfg->slurm.mem_mb);
		printf("  slurm.mem: %s -> %s\n", before, after);
	} else {
		printf("  slurm.mem: (not set) -> %s\n", after);
	}
	cfg->slurm.mem_mb = g->mem_mb;
	cfg->slurm.mem_per_cpu_mb = 0;
}

static void apply_time(struct cfg *cfg, const struct rightsize_group *g)
{
	uint64_t minutes = g->time_min;
	char before[64], after[64];

	if (cfg->slurm.time_unlimited)
		snprintf(before, sizeof(before), "UNLIMITED");
	else if (cfg->slurm.time_min)
		units_format_time(before, sizeof(before), (uint64_t)cfg->slurm.time_min * 60);
	else
		snprintf(before, sizeof(before), "(not set)");
	/* The warning signal must come after the start: the sweep file reader insists. */
	if (minutes * 60 <= cfg->slurm.signal_seconds)
		minutes = cfg->slurm.signal_seconds / 60 + 1;
	if (minutes > UINT32_MAX)
		minutes = UINT32_MAX;
	units_format_time(after, sizeof(after), minutes * 60);
	printf("  slurm.time: %s -> %s", before, after);
	if (minutes != g->time_min)
		printf(" (more than the %u s warning signal before the end, slurm.signal)",
		       cfg->slurm.signal_seconds);
	putchar('\n');
	cfg->slurm.time_min = (uint32_t)minutes;
	cfg->slurm.time_unlimited = false;
}

int sizing_apply(struct cfg *cfg, const char *state_dir, const char *which)
{
	struct rightsize_policy policy;
	struct sizing z;
	struct strbuf why = STRBUF_INIT;
	const struct rightsize_group *g;
	int ret;

	rightsize_policy_init(&policy);
	sizing_init(&z);
	ret = sizing_load(&z, state_dir, which, &policy, false);
	if (ret < 0)
		goto out;
	g = &z.rs.sweep;
	/* Once anything ran its time can be sized; its memory may lack MaxRSS. */
	if (g->time_gap != RIGHTSIZE_OK) {
		rightsize_explain(&why, g, g->time_gap);
		ret = error("sweep %" PRId64 " '%s' cannot size this one: %s", z.l.rec.id,
		            z.l.rec.name, why.buf);
		goto out;
	}
	if (g->mem_gap == RIGHTSIZE_OK && asks_mem_per_gpu(cfg)) {
		ret = error("--resources-from sets slurm.mem, which sbatch refuses beside the "
		            "--mem-per-gpu of slurm.extra: remove one of them");
		goto out;
	}
	printf("resources from sweep %" PRId64 " '%s' (its peaks x %g, rounded up):\n", z.l.rec.id,
	       z.l.rec.name, policy.headroom);
	if (g->mem_gap == RIGHTSIZE_OK) {
		apply_mem(cfg, g);
	} else {
		rightsize_explain(&why, g, g->mem_gap);
		printf("  slurm.mem: unchanged: %s\n", why.buf);
	}
	apply_time(cfg, g);
	strbuf_reset(&why);
	rightsize_explain_bounds(&why, g, &policy, "; ");
	if (why.len)
		printf("  (%s)\n", why.buf);
	putchar('\n');
out:
	strbuf_release(&why);
	sizing_release(&z);
	return ret;
}
