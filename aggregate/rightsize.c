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

#include <jansson.h>

#include "plan.h"
#include "outcome.h"
#include "output.h"
#include "strbuf.h"
#include "table.h"
#include "units.h"

#include "banned.h"

#define MIB (1024u * 1024u)

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
	/* Without cgroups, OverMemoryKill ends the task FAILED with signal 9. */
	return o->state == TS_OUT_OF_MEMORY || (o->state == TS_FAILED && o->signal == 9);
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
		            g->nactive, output_plural(g->nactive, " is", "s are"),
		            output_plural(g->nactive, "it has", "they have"));
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
		            output_plural(g->nran, "it", "them"));
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
		            g->noom, output_plural(g->noom, "", "s"), g->noom > 1 ? "up to " : "",
		            buf, output_plural(g->noom, "it", "they"), p->mem_factor);
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
		            g->ntimeout, output_plural(g->ntimeout, "", "s"),
		            g->ntimeout > 1 ? "up to " : "", buf,
		            output_plural(g->ntimeout, "it", "they"), p->time_factor);
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

static char *mem_text(uint64_t mb)
{
	char buf[64];

	if (!mb || mb == UINT64_MAX)
		return xstrdup("-");
	units_format_mem(buf, sizeof(buf), mb);
	return xstrdup(buf);
}

static char *rss_text(uint64_t bytes)
{
	char buf[64];

	if (bytes == ACCT_NO_VALUE)
		return xstrdup("-");
	units_format_bytes(buf, sizeof(buf), bytes);
	return xstrdup(buf);
}

static char *time_text(uint64_t seconds)
{
	char buf[64];

	if (seconds == ACCT_NO_VALUE)
		return xstrdup("-");
	units_format_time(buf, sizeof(buf), seconds);
	return xstrdup(buf);
}

/* "30%", or "28-31%" over several tasks; "-" when unknown. */
static char *eff_text(double lo, double hi)
{
	double a = round(lo * 100), b = round(hi * 100);

	if (isnan(lo))
		return xstrdup("-");
	if (a == b)
		return xstrfmt("%.0f%%", a);
	return xstrfmt("%.0f-%.0f%%", a, b);
}

static void note(struct strbuf *out, size_t n, const char *what)
{
	if (!n)
		return;
	if (out->len)
		strbuf_addstr(out, ", ");
	strbuf_addf(out, "%zu %s", n, what);
}

static char *group_notes(const struct rightsize_group *g)
{
	struct strbuf sb = STRBUF_INIT;

	note(&sb, g->noom, "out of memory");
	note(&sb, g->ntimeout, "over time");
	note(&sb, g->nactive, "pending or running");
	note(&sb, g->nmissing, "missing");
	note(&sb, g->ntasks - g->nran - g->nactive - g->nmissing, "ended before running");
	note(&sb, g->nran && g->mem_gap == RIGHTSIZE_OK ? g->nno_rss : 0, "without MaxRSS");
	if (g->mem_gap == RIGHTSIZE_NO_MAXRSS) {
		if (sb.len)
			strbuf_addstr(&sb, ", ");
		strbuf_addstr(&sb, "no MaxRSS");
	}
	if (!sb.len)
		strbuf_addch(&sb, '-');
	return strbuf_detach(&sb, NULL);
}

/* "23% of 4": the share of the allocated CPUs used; "-" when not recorded. */
static char *cpu_eff_text(const struct rightsize_group *g)
{
	if (isnan(g->cpu_eff))
		return xstrdup("-");
	return xstrfmt("%.0f%% of %" PRIu32, round(g->cpu_eff * 100), g->ncpus);
}

static void print_settings(FILE *f, const struct rightsize *r)
{
	static const char *const head[] = {"SETTING", "RAN",     "MEM",      "MAXRSS",  "MEM EFF",
	                                   "TIME",    "ELAPSED", "TIME EFF", "CPU EFF", "--mem",
	                                   "--time",  "--cpus",  "NOTE"};
	struct table t;

	table_init_head(&t, head, sizeof(head) / sizeof(head[0]));
	for (size_t s = 0; s < r->nsettings; s++) {
		const struct rightsize_group *g = &r->settings[s];
		bool ran = g->nran > 0;

		table_add(&t, plan_setting_label(r->plan, s));
		table_add(&t, xstrfmt("%zu/%zu", g->nran, g->ntasks));
		table_add(&t, ran ? mem_text(g->req_mem_mb) : xstrdup("-"));
		table_add(&t, rss_text(g->peak_rss));
		table_add(&t, eff_text(g->mem_eff_min, g->mem_eff_max));
		table_add(&t, ran ? time_text(g->timelimit_s) : xstrdup("-"));
		table_add(&t, ran ? time_text(g->longest_s) : xstrdup("-"));
		table_add(&t, eff_text(g->time_eff_min, g->time_eff_max));
		table_add(&t, cpu_eff_text(g));
		table_add(&t, g->mem_gap == RIGHTSIZE_OK ? mem_text(g->mem_mb) : xstrdup("-"));
		table_add(&t,
		          g->time_gap == RIGHTSIZE_OK ? time_text(g->time_min * 60) : xstrdup("-"));
		table_add(&t, g->cpus ? xstrfmt("%u", g->cpus) : xstrdup("-"));
		table_add(&t, group_notes(g));
	}
	table_print(f, &t);
	table_release(&t);
}

static const char *lower_bound_of(const struct task_outcome *o)
{
	if (rightsize_out_of_memory(o))
		return "out of memory: needed more";
	if (rightsize_out_of_time(o))
		return o->by_warning_signal
		           ? "time limit (ended by the warning signal): needed more"
		           : "time limit: needed more";
	if (!rightsize_ran(o))
		return "not measured";
	if (o->maxrss_bytes == ACCT_NO_VALUE)
		return "no MaxRSS";
	return "-";
}

static void print_tasks(FILE *f, const struct rightsize *r)
{
	static const char *const head[] = {"INDEX",    "SETTING", "SEED",    "STATE", "ATTEMPTS",
	                                   "MEM",      "MAXRSS",  "MEM EFF", "TIME",  "ELAPSED",
	                                   "TIME EFF", "CPUS",    "CPU EFF", "NOTE"};
	struct table t;

	table_init_head(&t, head, sizeof(head) / sizeof(head[0]));
	for (size_t i = 0; i < r->ntasks; i++) {
		const struct task_outcome *o = &r->outcomes[i];
		bool ran = rightsize_ran(o);

		table_add(&t, xstrfmt("%zu", i));
		table_add(&t, plan_setting_label(r->plan, plan_setting_of(r->plan, i)));
		table_add(&t, xstrfmt("%" PRId64, plan_seed_of(r->plan, i)));
		table_addstr(&t, task_state_name(o->state));
		table_add(&t, xstrfmt("%u", o->attempts));
		table_add(&t, ran ? mem_text(o->req_mem_mb) : xstrdup("-"));
		table_add(&t, rss_text(o->maxrss_bytes));
		table_add(&t, eff_text(r->tasks[i].mem_eff, r->tasks[i].mem_eff));
		table_add(&t, ran ? time_text(o->timelimit_s) : xstrdup("-"));
		table_add(&t, ran ? time_text(o->elapsed_s) : xstrdup("-"));
		table_add(&t, eff_text(r->tasks[i].time_eff, r->tasks[i].time_eff));
		table_add(&t, ran && o->ncpus ? xstrfmt("%" PRIu32, o->ncpus) : xstrdup("-"));
		table_add(&t, eff_text(r->tasks[i].cpu_eff, r->tasks[i].cpu_eff));
		table_addstr(&t, task_state_is_final(o->state) ? lower_bound_of(o) : "-");
	}
	table_print(f, &t);
	table_release(&t);
}

/* The whole sweep's CPU and GPU use, a line each. */
static void print_cpu_gpu(FILE *f, const struct rightsize *r)
{
	const struct rightsize_group *g = &r->sweep;

	if (isnan(g->cpu_eff)) {
		if (g->nran)
			fprintf(f, "CPU: no TotalCPU recorded for the tasks that ran\n");
	} else {
		fprintf(f,
		        "CPU: %.0f%% of the allocated CPUs used (TotalCPU / (elapsed x %" PRIu32
		        " CPU%s)); the busiest task kept %.2g busy",
		        round(g->cpu_eff * 100), g->ncpus, g->ncpus == 1 ? "" : "s", g->cores_busy);
		if (g->cpus)
			fprintf(f, ": most sits idle, ask --cpus-per-task=%u", g->cpus);
		fputc('\n', f);
	}
	if (!r->gpu_recorded) {
		fprintf(f, "GPU: utilisation and memory not recorded by this cluster\n");
	} else if (g->gpu_util != ACCT_NO_VALUE || g->gpu_mem_bytes != ACCT_NO_VALUE) {
		char mem[32] = "-";

		if (g->gpu_mem_bytes != ACCT_NO_VALUE)
			units_format_bytes(mem, sizeof(mem), g->gpu_mem_bytes);
		if (g->gpu_util != ACCT_NO_VALUE)
			fprintf(f, "GPU: peak utilisation %" PRIu64 "%%, peak memory %s\n",
			        g->gpu_util, mem);
		else
			fprintf(f, "GPU: peak memory %s\n", mem);
	}
}

static void print_sweep(FILE *f, const struct rightsize *r)
{
	const struct rightsize_group *g = &r->sweep;
	struct strbuf sb = STRBUF_INIT;
	char mem[64], time[64];

	fprintf(f, "whole sweep: %zu of %zu task%s ran", g->nran, g->ntasks,
	        output_plural(g->ntasks, "", "s"));
	if (g->nran) {
		char *rss = rss_text(g->peak_rss), *req = mem_text(g->req_mem_mb);
		char *longest = time_text(g->longest_s), *limit = time_text(g->timelimit_s);

		fprintf(f, "; peak MaxRSS %s (requested %s), longest %s (limit %s)", rss, req,
		        longest, limit);
		free(rss);
		free(req);
		free(longest);
		free(limit);
	}
	fputc('\n', f);
	print_cpu_gpu(f, r);
	rightsize_explain_bounds(&sb, g, &r->policy, ".\n");
	if (sb.len)
		fprintf(f, "%s.\n", sb.buf);
	strbuf_reset(&sb);

	if (g->mem_gap != RIGHTSIZE_OK && g->time_gap != RIGHTSIZE_OK &&
	    g->mem_gap == g->time_gap) {
		rightsize_explain(&sb, g, g->mem_gap);
		fprintf(f, "no recommendation: %s.\n", sb.buf);
		strbuf_release(&sb);
		return;
	}
	if (g->mem_gap != RIGHTSIZE_OK) {
		rightsize_explain(&sb, g, g->mem_gap);
		fprintf(f, "no --mem recommendation: %s.\n", sb.buf);
		strbuf_reset(&sb);
	}
	if (g->time_gap != RIGHTSIZE_OK) {
		rightsize_explain(&sb, g, g->time_gap);
		fprintf(f, "no --time recommendation: %s.\n", sb.buf);
		strbuf_reset(&sb);
	}
	strbuf_release(&sb);

	units_format_mem(mem, sizeof(mem), g->mem_mb);
	units_format_time(time, sizeof(time), g->time_min * 60);
	fprintf(f, "\nrecommended (measured peaks x %g, rounded up):\n", r->policy.headroom);
	if (g->mem_per_cpu_mb) {
		units_format_mem(mem, sizeof(mem), g->mem_per_cpu_mb);
		fprintf(f, "  #SBATCH --mem-per-cpu=%s\n", mem);
	} else if (g->mem_gap == RIGHTSIZE_OK) {
		fprintf(f, "  #SBATCH --mem=%s\n", mem);
	}
	if (g->time_gap == RIGHTSIZE_OK)
		fprintf(f, "  #SBATCH --time=%s\n", time);
	if (g->cpus)
		fprintf(f, "  #SBATCH --cpus-per-task=%u\n", g->cpus);
	fprintf(f, "in the sweep file:\n  slurm:\n");
	if (g->mem_per_cpu_mb)
		fprintf(f, "    mem_per_cpu: %s\n", mem);
	else if (g->mem_gap == RIGHTSIZE_OK)
		fprintf(f, "    mem: %s\n", mem);
	if (g->time_gap == RIGHTSIZE_OK)
		fprintf(f, "    time: \"%s\"\n", time);
	if (g->cpus)
		fprintf(f, "    cpus_per_task: %u\n", g->cpus);
}

void rightsize_print_table(FILE *f, const struct rightsize *r, bool tasks)
{
	fprintf(f, "sweep %" PRId64 " '%s': %zu task%s in %zu setting%s\n\n", r->id,
	        r->name ? r->name : "", r->ntasks, output_plural(r->ntasks, "", "s"), r->nsettings,
	        output_plural(r->nsettings, "", "s"));
	if (tasks) {
		print_tasks(f, r);
		fputc('\n', f);
	}
	print_settings(f, r);
	fputc('\n', f);
	print_sweep(f, r);
}

static json_t *json_count(uint64_t x)
{
	return json_integer((json_int_t)(x > INT64_MAX ? INT64_MAX : x));
}

static json_t *json_known(uint64_t x, bool known)
{
	return known ? json_count(x) : json_null();
}

static json_t *json_ratio(double x)
{
	return isnan(x) ? json_null() : json_real(x);
}

static json_t *json_range(double lo, double hi)
{
	json_t *o;

	if (isnan(lo))
		return json_null();
	o = json_object();
	json_object_set_new(o, "min", json_real(lo));
	json_object_set_new(o, "max", json_real(hi));
	return o;
}

static json_t *json_gap(const struct rightsize_group *g, enum rightsize_gap gap)
{
	struct strbuf sb = STRBUF_INIT;
	json_t *s;

	if (gap == RIGHTSIZE_OK)
		return json_null();
	rightsize_explain(&sb, g, gap);
	s = json_string(sb.buf);
	strbuf_release(&sb);
	return s;
}

static json_t *json_group(const struct rightsize_group *g, const struct rightsize_policy *p,
                          bool gpu_recorded)
{
	json_t *o = json_object();
	struct strbuf sb = STRBUF_INIT;
	char buf[64];
	bool mem_ok = g->mem_gap == RIGHTSIZE_OK, time_ok = g->time_gap == RIGHTSIZE_OK;

	json_object_set_new(o, "tasks", json_count(g->ntasks));
	json_object_set_new(o, "ran", json_count(g->nran));
	json_object_set_new(o, "pending_or_running", json_count(g->nactive));
	json_object_set_new(o, "missing", json_count(g->nmissing));
	json_object_set_new(o, "out_of_memory", json_count(g->noom));
	json_object_set_new(o, "timeout", json_count(g->ntimeout));
	json_object_set_new(o, "without_maxrss", json_count(g->nno_rss));
	json_object_set_new(o, "req_mem_mb", json_known(g->req_mem_mb, g->req_mem_mb != 0));
	json_object_set_new(o, "timelimit_s",
	                    json_known(g->timelimit_s, g->timelimit_s != ACCT_NO_VALUE));
	json_object_set_new(o, "peak_maxrss_bytes",
	                    json_known(g->peak_rss, g->peak_rss != ACCT_NO_VALUE));
	json_object_set_new(o, "longest_elapsed_s", json_known(g->longest_s, g->nran > 0));
	json_object_set_new(o, "mem_efficiency", json_range(g->mem_eff_min, g->mem_eff_max));
	json_object_set_new(o, "time_efficiency", json_range(g->time_eff_min, g->time_eff_max));
	units_format_mem(buf, sizeof(buf), g->mem_mb);
	json_object_set_new(o, "mem", mem_ok ? json_string(buf) : json_null());
	json_object_set_new(o, "mem_mb", json_known(g->mem_mb, mem_ok));
	units_format_mem(buf, sizeof(buf), g->mem_per_cpu_mb);
	json_object_set_new(o, "mem_per_cpu", g->mem_per_cpu_mb ? json_string(buf) : json_null());
	json_object_set_new(o, "mem_per_cpu_mb", json_known(g->mem_per_cpu_mb, g->mem_per_cpu_mb));
	json_object_set_new(o, "tasks_per_node", json_count(g->tasks_per_node));
	json_object_set_new(o, "mem_why_not", json_gap(g, g->mem_gap));
	units_format_time(buf, sizeof(buf), g->time_min * 60);
	json_object_set_new(o, "time", time_ok ? json_string(buf) : json_null());
	json_object_set_new(o, "time_min", json_known(g->time_min, time_ok));
	json_object_set_new(o, "time_why_not", json_gap(g, g->time_gap));
	json_object_set_new(o, "cpus", json_known(g->ncpus, g->ncpus != 0));
	json_object_set_new(o, "cpu_efficiency", json_ratio(g->cpu_eff));
	json_object_set_new(o, "cpus_busy_max", json_ratio(g->cores_busy));
	json_object_set_new(o, "cpus_per_task", json_known(g->cpus, g->cpus != 0));
	json_object_set_new(o, "gpu_recorded", json_boolean(gpu_recorded));
	json_object_set_new(o, "gpu_util_percent",
	                    json_known(g->gpu_util, g->gpu_util != ACCT_NO_VALUE));
	json_object_set_new(o, "gpu_mem_bytes",
	                    json_known(g->gpu_mem_bytes, g->gpu_mem_bytes != ACCT_NO_VALUE));
	rightsize_explain_bounds(&sb, g, p, "; ");
	json_object_set_new(o, "lower_bounds", sb.len ? json_string(sb.buf) : json_null());
	strbuf_release(&sb);
	return o;
}

static json_t *json_task(const struct rightsize *r, size_t i)
{
	const struct task_outcome *o = &r->outcomes[i];
	json_t *t = json_object();
	bool ran = rightsize_ran(o);
	const char *bound = NULL;

	if (rightsize_out_of_memory(o))
		bound = "memory";
	else if (rightsize_out_of_time(o))
		bound = "time";
	json_object_set_new(t, "index", json_count(i));
	json_object_set_new(t, "setting", json_count(plan_setting_of(r->plan, i)));
	json_object_set_new(t, "seed", json_integer(plan_seed_of(r->plan, i)));
	json_object_set_new(t, "state", json_string(task_state_name(o->state)));
	json_object_set_new(t, "attempts", json_integer(o->attempts));
	json_object_set_new(t, "ran", json_boolean(ran));
	json_object_set_new(t, "req_mem_mb", json_known(o->req_mem_mb, ran && o->req_mem_mb));
	json_object_set_new(t, "maxrss_bytes",
	                    json_known(o->maxrss_bytes, o->maxrss_bytes != ACCT_NO_VALUE));
	json_object_set_new(t, "mem_efficiency", json_ratio(r->tasks[i].mem_eff));
	json_object_set_new(t, "timelimit_s",
	                    json_known(o->timelimit_s, ran && o->timelimit_s != ACCT_NO_VALUE));
	json_object_set_new(t, "elapsed_s", json_known(o->elapsed_s, ran));
	json_object_set_new(t, "time_efficiency", json_ratio(r->tasks[i].time_eff));
	json_object_set_new(t, "cpus", json_known(o->ncpus, ran && o->ncpus));
	json_object_set_new(t, "total_cpu_us",
	                    json_known(o->total_cpu_us, o->total_cpu_us != ACCT_NO_VALUE));
	json_object_set_new(t, "cpu_efficiency", json_ratio(r->tasks[i].cpu_eff));
	json_object_set_new(t, "lower_bound", bound ? json_string(bound) : json_null());
	return t;
}

void rightsize_print_json(FILE *f, const struct rightsize *r)
{
	json_t *root = json_object(), *sweep = json_object(), *policy = json_object();
	json_t *settings = json_array(), *tasks = json_array();

	json_object_set_new(sweep, "id", json_integer(r->id));
	json_object_set_new(sweep, "name", json_string(r->name ? r->name : ""));
	json_object_set_new(sweep, "ntasks", json_count(r->ntasks));
	json_object_set_new(root, "sweep", sweep);
	json_object_set_new(policy, "headroom", json_real(r->policy.headroom));
	json_object_set_new(policy, "mem_factor", json_real(r->policy.mem_factor));
	json_object_set_new(policy, "time_factor", json_real(r->policy.time_factor));
	json_object_set_new(root, "policy", policy);
	json_object_set_new(root, "recommendation",
	                    json_group(&r->sweep, &r->policy, r->gpu_recorded));
	for (size_t s = 0; s < r->nsettings; s++) {
		json_t *g = json_group(&r->settings[s], &r->policy, r->gpu_recorded),
		       *params = json_object();

		for (size_t p = 0; p < r->plan->nparams; p++)
			json_object_set_new(params, r->plan->params[p],
			                    json_string(plan_value(r->plan, s, p)));
		json_object_set_new(g, "setting", json_count(s));
		json_object_set_new(g, "params", params);
		json_array_append_new(settings, g);
	}
	json_object_set_new(root, "settings", settings);
	for (size_t i = 0; i < r->ntasks; i++)
		json_array_append_new(tasks, json_task(r, i));
	json_object_set_new(root, "tasks", tasks);
	/* Efficiencies need no 17 digits. */
	output_json_print(f, root, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
}
