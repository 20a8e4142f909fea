/*
 * Right-sizing arithmetic. Everything is done in whole units (MiB,
 * seconds) and factors in thousandths, so that 50 s x 1.2 is 60 s and not
 * 60.000000000000007 s rounded up to a second minute.
 */
#include "rightsize.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "outcome.h"
#include "strbuf.h"
#include "units.h"

#include "banned.h"

#define MIB (1024u * 1024u)

/* one when n is 1, else many (the printers have output_plural). */
static const char *plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

void rightsize_policy_init(struct rightsize_policy *p)
{
	p->headroom = RIGHTSIZE_HEADROOM;
	p->mem_factor = RIGHTSIZE_MEM_FACTOR;
	p->time_factor = RIGHTSIZE_TIME_FACTOR;
}

int rightsize_parse_factor(double *out, const char *s, double min, bool strict, const char **why)
{
	char *end;
	double v;

	if (!*s || !((*s >= '0' && *s <= '9') || *s == '.')) {
		*why = "expected a number such as 1.5";
		return -1;
	}
	v = strtod(s, &end);
	if (*end || !isfinite(v)) {
		*why = "expected a number such as 1.5";
		return -1;
	}
	if (v > RIGHTSIZE_FACTOR_MAX) {
		*why = "it must be at most 1000";
		return -1;
	}
	/* The arithmetic works in thousandths: 1.0001 would be 1. */
	if (strict ? llround(v * 1000) <= llround(min * 1000)
	           : llround(v * 1000) < llround(min * 1000)) {
		*why = strict ? "it must be more than 1 (at least 1.001)" : "it must be at least 1";
		return -1;
	}
	*out = v;
	return 0;
}

uint64_t rightsize_clean_mem_mb(uint64_t mb)
{
	uint64_t step = mb <= 1024 ? 64 : mb <= 16 * 1024 ? 512 : 1024;

	if (!mb)
		return 64;
	if (mb > UINT64_MAX - step)
		return UINT64_MAX;
	return (mb + step - 1) / step * step;
}

uint64_t rightsize_clean_time_min(uint64_t seconds)
{
	uint64_t min = seconds / 60 + (seconds % 60 != 0);

	return min ? min : 1;
}

uint64_t rightsize_scale_up(uint64_t x, double factor)
{
	uint64_t m = (uint64_t)llround(factor * 1000);

	if (m && x > (UINT64_MAX - 999) / m)
		return UINT64_MAX;
	return (x * m + 999) / 1000;
}

uint64_t rightsize_raise(uint64_t had, double factor)
{
	uint64_t v = rightsize_scale_up(had, factor);

	return v > had ? v : had + (had < UINT64_MAX);
}

bool rightsize_out_of_memory(const struct task_outcome *o)
{
	return outcome_out_of_memory(o);
}

bool rightsize_out_of_time(const struct task_outcome *o)
{
	return o->state == TS_TIMEOUT;
}

bool rightsize_ran(const struct task_outcome *o)
{
	if (!task_state_is_final(o->state))
		return false;
	switch (o->state) {
	case TS_COMPLETED:
	case TS_FAILED:
	case TS_TIMEOUT:
	case TS_OUT_OF_MEMORY:
		return true;
	default:
		/* Cancelled, preempted, node failure...: only if it had started. */
		return o->elapsed_s > 0 || o->maxrss_bytes != ACCT_NO_VALUE;
	}
}

static uint64_t bytes_to_mib(uint64_t bytes)
{
	return bytes / MIB + (bytes % MIB != 0);
}

uint64_t rightsize_need_bytes(const struct task_outcome *o)
{
	/* With one task per node the node needed what that task did. */
	return o->tasks_per_node > 1 ? o->node_mem_bytes : o->maxrss_bytes;
}

uint64_t rightsize_mem_bound_mb(const struct task_outcome *o)
{
	uint64_t need = rightsize_need_bytes(o);
	uint64_t rss = need == ACCT_NO_VALUE ? 0 : bytes_to_mib(need);

	return rss > o->req_mem_mb ? rss : o->req_mem_mb;
}

static uint64_t mem_bound_bytes(const struct task_outcome *o)
{
	uint64_t req = o->req_mem_mb > UINT64_MAX / MIB ? UINT64_MAX : o->req_mem_mb * MIB;
	uint64_t need = rightsize_need_bytes(o);

	return need != ACCT_NO_VALUE && need > req ? need : req;
}

uint64_t rightsize_time_bound_s(const struct task_outcome *o)
{
	uint64_t limit = o->timelimit_s == ACCT_NO_VALUE ? 0 : o->timelimit_s;

	return o->elapsed_s > limit ? o->elapsed_s : limit;
}

void rightsize_task_eval(struct rightsize_task *out, const struct task_outcome *o)
{
	out->mem_eff = NAN;
	out->time_eff = NAN;
	out->cpu_eff = NAN;
	if (!rightsize_ran(o))
		return;
	if (rightsize_need_bytes(o) != ACCT_NO_VALUE && o->req_mem_mb &&
	    o->req_mem_mb != UINT64_MAX)
		out->mem_eff = (double)rightsize_need_bytes(o) / ((double)o->req_mem_mb * MIB);
	if (o->timelimit_s != ACCT_NO_VALUE && o->timelimit_s)
		out->time_eff = (double)o->elapsed_s / (double)o->timelimit_s;
	if (o->total_cpu_us != ACCT_NO_VALUE && o->elapsed_s && o->ncpus)
		out->cpu_eff =
		    (double)o->total_cpu_us / (1e6 * (double)o->elapsed_s * (double)o->ncpus);
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static void widen(double *lo, double *hi, double x)
{
	if (isnan(x))
		return;
	if (isnan(*lo) || x < *lo)
		*lo = x;
	if (isnan(*hi) || x > *hi)
		*hi = x;
}

static void measure(struct rightsize_group *g, const struct task_outcome *o)
{
	struct rightsize_task eff;

	g->nran++;
	g->req_mem_mb = max_u64(g->req_mem_mb, o->req_mem_mb);
	if (o->timelimit_s != ACCT_NO_VALUE)
		g->timelimit_s = g->timelimit_s == ACCT_NO_VALUE
		                     ? o->timelimit_s
		                     : max_u64(g->timelimit_s, o->timelimit_s);
	if (rightsize_need_bytes(o) == ACCT_NO_VALUE)
		g->nno_rss++;
	else if (g->peak_rss == ACCT_NO_VALUE || rightsize_need_bytes(o) > g->peak_rss)
		g->peak_rss = rightsize_need_bytes(o);
	if (o->tasks_per_node > g->tasks_per_node)
		g->tasks_per_node = o->tasks_per_node;
	/* A per-CPU recommendation only when every task asked per CPU. */
	if (!o->req_mem_per_cpu || !o->cpus_per_node)
		g->per_cpu = false;
	else if (!g->cpus_per_node || o->cpus_per_node < g->cpus_per_node)
		g->cpus_per_node = o->cpus_per_node;
	g->longest_s = max_u64(g->longest_s, o->elapsed_s);
	if (rightsize_out_of_memory(o)) {
		g->noom++;
		g->mem_bound_mb = max_u64(g->mem_bound_mb, rightsize_mem_bound_mb(o));
		g->mem_bound_bytes = max_u64(g->mem_bound_bytes, mem_bound_bytes(o));
	}
	if (rightsize_out_of_time(o)) {
		g->ntimeout++;
		g->time_bound_s = max_u64(g->time_bound_s, rightsize_time_bound_s(o));
	}
	if (o->total_cpu_us != ACCT_NO_VALUE && o->elapsed_s && o->ncpus) {
		double busy = (double)o->total_cpu_us / (1e6 * (double)o->elapsed_s);

		g->ncpu_known++;
		g->cpu_used_us += o->total_cpu_us;
		g->cpu_alloc_us += o->elapsed_s * 1000000u * o->ncpus;
		if (isnan(g->cores_busy) || busy > g->cores_busy)
			g->cores_busy = busy;
	}
	if (o->ncpus > g->ncpus)
		g->ncpus = o->ncpus;
	if (o->gpu_util != ACCT_NO_VALUE)
		g->gpu_util =
		    g->gpu_util == ACCT_NO_VALUE ? o->gpu_util : max_u64(g->gpu_util, o->gpu_util);
	if (o->gpu_mem_bytes != ACCT_NO_VALUE)
		g->gpu_mem_bytes = g->gpu_mem_bytes == ACCT_NO_VALUE
		                       ? o->gpu_mem_bytes
		                       : max_u64(g->gpu_mem_bytes, o->gpu_mem_bytes);
	rightsize_task_eval(&eff, o);
	widen(&g->mem_eff_min, &g->mem_eff_max, eff.mem_eff);
	widen(&g->time_eff_min, &g->time_eff_max, eff.time_eff);
}

static void recommend(struct rightsize_group *g, const struct rightsize_policy *p)
{
	uint64_t need = 0;

	if (g->peak_rss != ACCT_NO_VALUE)
		need = rightsize_scale_up(bytes_to_mib(g->peak_rss), p->headroom);
	if (g->mem_bound_mb)
		need = max_u64(need, rightsize_raise(g->mem_bound_mb, p->mem_factor));
	if (need) {
		g->mem_mb = rightsize_clean_mem_mb(need);
		g->mem_gap = RIGHTSIZE_OK;
		if (g->per_cpu && g->cpus_per_node)
			g->mem_per_cpu_mb = rightsize_clean_mem_mb(
			    g->mem_mb / g->cpus_per_node + (g->mem_mb % g->cpus_per_node != 0));
	} else {
		g->mem_gap = RIGHTSIZE_NO_MAXRSS;
	}

	need = rightsize_scale_up(g->longest_s, p->headroom);
	if (g->ntimeout)
		need = max_u64(need, rightsize_raise(g->time_bound_s, p->time_factor));
	g->time_min = rightsize_clean_time_min(need);
	g->time_gap = RIGHTSIZE_OK;
}

void rightsize_group_build(struct rightsize_group *out, const struct task_outcome *o, size_t n,
                           const struct rightsize_policy *p)
{
	memset(out, 0, sizeof(*out));
	out->ntasks = n;
	out->timelimit_s = ACCT_NO_VALUE;
	out->peak_rss = ACCT_NO_VALUE;
	out->mem_eff_min = out->mem_eff_max = NAN;
	out->per_cpu = true;
	out->time_eff_min = out->time_eff_max = NAN;
	out->cores_busy = out->cpu_eff = NAN;
	out->gpu_util = out->gpu_mem_bytes = ACCT_NO_VALUE;
	for (size_t i = 0; i < n; i++) {
		if (o[i].state == TS_MISSING)
			out->nmissing++;
		else if (!task_state_is_final(o[i].state))
			out->nactive++;
		else if (rightsize_ran(&o[i]))
			measure(out, &o[i]);
	}
	/* A task still running may turn out the longest or the largest. */
	if (out->nactive)
		out->mem_gap = out->time_gap = RIGHTSIZE_ACTIVE;
	else if (!out->nran)
		out->mem_gap = out->time_gap =
		    out->nmissing == n ? RIGHTSIZE_NO_RECORD : RIGHTSIZE_NO_FINISHED;
	else
		recommend(out, p);
	if (out->cpu_alloc_us)
		out->cpu_eff = (double)out->cpu_used_us / (double)out->cpu_alloc_us;
	/* Only finished tasks: a running one may still get busy. */
	if (!out->nactive && out->ncpus > 1 && out->cpu_eff < RIGHTSIZE_CPU_IDLE) {
		double need = ceil(out->cores_busy * p->headroom - 1e-9);

		out->cpus = need < 1 ? 1 : (unsigned)need;
		if (out->cpus >= out->ncpus)
			out->cpus = 0;
	}
}

void rightsize_explain(struct strbuf *out, const struct rightsize_group *g, enum rightsize_gap gap)
{
	switch (gap) {
	case RIGHTSIZE_OK:
		break;
	case RIGHTSIZE_ACTIVE:
		strbuf_addf(out, "%zu task%s still pending or running: ask again when %s ended",
		            g->nactive, plural(g->nactive, " is", "s are"),
		            plural(g->nactive, "it has", "they have"));
		break;
	case RIGHTSIZE_NO_RECORD:
		strbuf_addstr(out,
		              "no task has a record in Slurm accounting: nothing was measured");
		break;
	case RIGHTSIZE_NO_FINISHED:
		strbuf_addstr(out, "no task has run to its end: nothing was measured");
		break;
	case RIGHTSIZE_NO_MAXRSS:
		strbuf_addf(out,
		            "no task that ran has a MaxRSS (tasks shorter than the accounting "
		            "sampling interval, JobAcctGatherFrequency, leave none): --mem "
		            "cannot be sized from %s",
		            plural(g->nran, "it", "them"));
		break;
	}
}

void rightsize_explain_bounds(struct strbuf *out, const struct rightsize_group *g,
                              const struct rightsize_policy *p, const char *sep)
{
	char buf[64];

	if (g->noom && g->mem_bound_mb) {
		units_format_bytes(buf, sizeof(buf), g->mem_bound_bytes);
		strbuf_addf(out,
		            "%zu task%s ran out of memory with %s%s: %s needed more, so --mem is "
		            "at least %g x that",
		            g->noom, plural(g->noom, "", "s"), g->noom > 1 ? "up to " : "", buf,
		            plural(g->noom, "it", "they"), p->mem_factor);
	}
	if (g->tasks_per_node > 1) {
		if (g->noom && g->mem_bound_mb)
			strbuf_addstr(out, sep);
		strbuf_addf(out,
		            "up to %u tasks ran on one node: the memory a node needed is taken as "
		            "MaxRSS x %u, an upper bound (accounting keeps each task's peak, not "
		            "their sum per node)",
		            (unsigned)g->tasks_per_node, (unsigned)g->tasks_per_node);
	}
	if (g->ntimeout) {
		units_format_time(buf, sizeof(buf), g->time_bound_s);
		if ((g->noom && g->mem_bound_mb) || g->tasks_per_node > 1)
			strbuf_addstr(out, sep);
		strbuf_addf(out,
		            "%zu task%s hit the time limit after %s%s: %s needed more, so --time "
		            "is at least %g x that",
		            g->ntimeout, plural(g->ntimeout, "", "s"),
		            g->ntimeout > 1 ? "up to " : "", buf, plural(g->ntimeout, "it", "they"),
		            p->time_factor);
	}
}

void rightsize_init(struct rightsize *r)
{
	memset(r, 0, sizeof(*r));
	rightsize_policy_init(&r->policy);
}

void rightsize_release(struct rightsize *r)
{
	free(r->tasks);
	free(r->settings);
	rightsize_init(r);
}

void rightsize_build(struct rightsize *out, const struct plan *plan,
                     const struct task_outcome *outcomes, const struct rightsize_policy *p)
{
	out->plan = plan;
	out->outcomes = outcomes;
	out->policy = *p;
	out->ntasks = plan->ntasks;
	out->tasks = xcalloc(plan->ntasks ? plan->ntasks : 1, sizeof(*out->tasks));
	for (size_t i = 0; i < plan->ntasks; i++)
		rightsize_task_eval(&out->tasks[i], &outcomes[i]);
	out->nsettings = plan->nsettings;
	out->settings = xcalloc(plan->nsettings ? plan->nsettings : 1, sizeof(*out->settings));
	for (size_t s = 0; s < plan->nsettings; s++)
		rightsize_group_build(&out->settings[s], outcomes + s * plan->nseeds, plan->nseeds,
		                      p);
	rightsize_group_build(&out->sweep, outcomes, plan->ntasks, p);
}

/* ---- printers ---- */
