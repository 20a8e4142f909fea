/*
 * The printers of right-sizing (rightsize.h is the arithmetic): the
 * table, the #SBATCH lines and slurm: keys, and JSON.
 */
#include "rightsize_print.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "outcome.h"
#include "output.h"
#include "plan.h"
#include "strbuf.h"
#include "table.h"
#include "task_table.h"
#include "units.h"

#include "banned.h"

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
	static const enum task_col cols[] = {
	    TT_INDEX,   TT_SETTING, TT_SEED,    TT_STATE,    TT_ATTEMPTS, TT_MEM,     TT_MAXRSS,
	    TT_MEM_EFF, TT_TIME,    TT_ELAPSED, TT_TIME_EFF, TT_CPUS,     TT_CPU_EFF, TT_NOTE};
	struct task_table t;

	task_table_init(&t, cols, sizeof(cols) / sizeof(cols[0]));
	for (size_t i = 0; i < r->ntasks; i++) {
		const struct task_outcome *o = &r->outcomes[i];
		char *label = plan_setting_label(r->plan, plan_setting_of(r->plan, i));
		struct task_row row;

		task_row_init(&row, i, o);
		row.setting = label;
		row.seed = plan_seed_of(r->plan, i);
		row.mem_eff = r->tasks[i].mem_eff;
		row.time_eff = r->tasks[i].time_eff;
		row.cpu_eff = r->tasks[i].cpu_eff;
		row.note = task_state_is_final(o->state) ? lower_bound_of(o) : NULL;
		task_table_add(&t, &row);
		free(label);
	}
	task_table_print(f, &t);
	task_table_release(&t);
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
	if (!r->gpu_recorded && r->local) {
		fprintf(f, "GPU: utilisation and memory not measured (the local runner does not "
		           "sample them; sweep gpus shows what runs now)\n");
	} else if (!r->gpu_recorded) {
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
