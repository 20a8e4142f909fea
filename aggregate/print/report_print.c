/*
 * The report's printers (report.h is the model): the table, JSON and CSV.
 */
#include "report_print.h"

#include <assert.h>
#include <float.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cause.h"
#include "gate.h"
#include "report.h"
#include "plan.h"
#include "outcome.h"
#include "output.h"
#include "result.h"
#include "strbuf.h"
#include "table.h"
#include "task_table.h"
#include "taskdir.h"

#include "banned.h"

/* NULL when metric m has no goal. */
static const struct compare_entry *rank_of(const struct report *r, size_t s, size_t m)
{
	if (!r->goals || r->goals[m] == GOAL_NONE)
		return NULL;
	return &r->cmp[s * r->gate->nmetrics + m];
}

/* Whether the state carries an exit code and signal worth showing. */
static bool has_exit(enum task_state state)
{
	switch (state) {
	case TS_MISSING:
	case TS_PENDING:
	case TS_HELD:
	case TS_RUNNING:
	case TS_SUSPENDED:
	case TS_REQUEUED:
		return false;
	default:
		return true;
	}
}

static bool showing_stats(const struct report *r)
{
	return gate_complete(r->gate) || r->allow_incomplete;
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * Significant digits for the means of metric m: at least 6, and enough
 * that both the smallest std and the smallest gap between two settings'
 * means show two digits, so that 1e9 + 3 is not printed as 1e+09.
 */
static int mean_digits(const struct report *r, size_t m)
{
	size_t ns = r->plan->nsettings, nmeans = 0;
	double scale = 0.0, resolution = INFINITY, *means;
	int digits = 6;

	means = xcalloc(ns, sizeof(*means));
	for (size_t s = 0; s < ns; s++) {
		const struct stats_summary *st = report_stats(r, s, m);

		if (!st->has_mean)
			continue;
		means[nmeans++] = st->mean;
		if (fabs(st->mean) > scale)
			scale = fabs(st->mean);
		if (st->has_std && st->std > 0.0 && st->std < resolution)
			resolution = st->std;
	}
	/* The smallest gap between two means is between neighbours once sorted. */
	qsort(means, nmeans, sizeof(*means), compare_doubles);
	for (size_t a = 1; a < nmeans; a++) {
		double gap = means[a] - means[a - 1];

		if (gap > 0.0 && gap < resolution)
			resolution = gap;
	}
	free(means);
	/* Only finite logs go to an int: (int) of an infinite one is undefined. */
	if (scale > 0.0 && isfinite(scale) && isfinite(resolution)) {
		int need = (int)floor(log10(scale)) - (int)floor(log10(resolution)) + 2;

		if (need > digits)
			digits = need;
	}
	return digits > DBL_DECIMAL_DIG ? DBL_DECIMAL_DIG : digits;
}

/* ---- the table ---- */

/*
 * The parameters that name a setting in the table: those that vary, or
 * all of them when none does. Returns how many were written to cols.
 */
static size_t label_params(const struct plan *plan, size_t *cols)
{
	size_t n = 0;

	for (size_t p = 0; p < plan->nparams; p++)
		if (plan->varies && plan->varies[p])
			cols[n++] = p;
	if (n)
		return n;
	for (size_t p = 0; p < plan->nparams; p++)
		cols[n++] = p;
	return n;
}

static void add_setting_cells(struct table *t, const struct plan *plan, const size_t *cols,
                              size_t ncols, size_t s)
{
	if (!ncols)
		table_add(t, xstrfmt("%zu", s));
	for (size_t c = 0; c < ncols; c++)
		table_addstr(t, plan_value(plan, s, cols[c]));
}

static void add_setting_headers(struct table *t, const struct plan *plan, const size_t *cols,
                                size_t ncols)
{
	if (!ncols)
		table_addstr(t, "setting");
	for (size_t c = 0; c < ncols; c++)
		table_addstr(t, plan->params[cols[c]]);
}

/* Task index's cause line, or NULL. */
static const char *cause_of(const struct report *r, size_t index)
{
	return r->cause_text ? r->cause_text[index] : NULL;
}

/* The failures grouped by cause (their reason where there is none), largest first. */
static void failure_groups(struct cause_groups *out, const struct report *r)
{
	const struct gate_result *g = r->gate;
	size_t n = g->nfailures ? g->nfailures : 1;
	size_t *indices = xcalloc(n, sizeof(*indices));
	const char **texts = xcalloc(n, sizeof(*texts));
	bool *resource = xcalloc(n, sizeof(*resource));

	for (size_t i = 0; i < g->nfailures; i++) {
		size_t t = g->failures[i].index;
		bool caused = r->cause_group && r->cause_group[t];

		indices[i] = t;
		texts[i] = caused ? r->cause_group[t] : g->failures[i].reason;
		resource[i] = caused && r->cause_resource && r->cause_resource[t];
	}
	cause_groups_build(out, indices, texts, resource, g->nfailures);
	free(indices);
	free(texts);
	free(resource);
}

/* The failure of task index (it is one of the gate's). */
static const struct gate_failure *failure_of(const struct report *r, size_t index)
{
	for (size_t i = 0; i < r->gate->nfailures; i++)
		if (r->gate->failures[i].index == index)
			return &r->gate->failures[i];
	return NULL;
}

/*
 * Each group of failures in one line (count, index ranges, cause) and the
 * log of its first task, one to open: a failure of 120 tasks for one reason
 * reads in two lines.
 */
static void print_failure_groups(FILE *f, const struct report *r)
{
	struct cause_groups groups;
	struct strbuf sb = STRBUF_INIT;

	failure_groups(&groups, r);
	fprintf(f, "by cause:\n");
	for (size_t i = 0; i < groups.n; i++) {
		const struct cause_group *c = &groups.groups[i];
		const struct gate_failure *first = failure_of(r, c->indices[0]);
		char *log = first ? report_log_path(r, first) : NULL;

		strbuf_reset(&sb);
		cause_add_indices(&sb, c->indices, c->n, 6);
		fprintf(f, "  %zu task%s (%s): %s\n", c->n, c->n == 1 ? "" : "s", sb.buf, c->text);
		if (log && c->n > 1)
			fprintf(f, "    e.g. task %zu: %s\n", c->indices[0], log);
		free(log);
	}
	fputc('\n', f);
	strbuf_release(&sb);
	cause_groups_release(&groups);
}

/* Rows of the failed-task table under the groups, at most. */
#define REPORT_FAILED_ROWS 20

static void print_failures_table(FILE *f, const struct report *r)
{
	static const enum task_col cols[] = {TT_INDEX, TT_SETTING, TT_SEED, TT_STATE, TT_EXIT,
	                                     TT_JOB,   TT_REASON,  TT_LOG,  TT_CAUSE};
	const struct gate_result *g = r->gate;
	bool result_hint = false;
	struct task_table t;

	if (r->cause_text)
		print_failure_groups(f, r);
	/* The cause column only when the causes were read. */
	task_table_init(&t, cols, sizeof(cols) / sizeof(cols[0]) - (r->cause_text == NULL));
	/* Grouped above, a long failure shows its first rows; status --tasks has every one. */
	size_t shown = r->cause_text && g->nfailures > REPORT_FAILED_ROWS ? REPORT_FAILED_ROWS
	                                                                  : g->nfailures;

	for (size_t i = 0; i < shown; i++) {
		const struct gate_failure *fl = &g->failures[i];
		char *log = report_log_path(r, fl);
		char *label = plan_setting_label(r->plan, fl->setting);
		struct task_row row;

		task_row_init(&row, fl->index, NULL);
		row.setting = label;
		row.seed = fl->seed;
		row.state = fl->state;
		row.exit_code = fl->exit_code;
		row.signal = fl->signal;
		row.array_job_id = fl->array_job_id;
		row.array_task_id = fl->array_task_id;
		row.reason = fl->reason;
		row.log = log;
		row.cause = cause_of(r, fl->index);
		task_table_add(&t, &row);
		free(label);
		free(log);
		if (gate_failure_of_result(fl))
			result_hint = true;
	}
	task_table_print(f, &t);
	if (shown < g->nfailures)
		fprintf(f, "... and %zu more failed tasks, grouped above: 'sweep status %" PRId64
		           " --tasks' lists every task ('sweep report --csv' every failure)\n",
		        g->nfailures - shown, r->id);
	if (result_hint && r->dir) {
		char *where = taskdir_pattern(r->dir, r->task_layout);

		fprintf(f, "(result files: %s/result.json)\n", where);
		free(where);
	}
	task_table_release(&t);
}

/*
 * mean ± std at the std's place (stats_print_place); without a std, or a
 * std of 0, the mean with the metric's significant digits.
 */
static char *metric_cell(const struct stats_summary *st, int digits, int sig, size_t nseeds)
{
	struct strbuf sb = STRBUF_INIT;
	int place;

	if (!st->has_mean) {
		strbuf_addstr(&sb, "n/a");
	} else if (st->has_std && stats_print_place(&place, st->std, sig)) {
		stats_format_at(&sb, st->mean, place);
		strbuf_addstr(&sb, " ± ");
		stats_format_at(&sb, st->std, place);
	} else {
		strbuf_addf(&sb, "%.*g ± ", digits, st->mean);
		strbuf_addstr(&sb, st->has_std ? "0" : "n/a");
	}
	if (st->n < nseeds)
		strbuf_addf(&sb, " (n = %zu of %zu)", st->n, nseeds);
	else
		strbuf_addf(&sb, " (n = %zu)", st->n);
	return strbuf_detach(&sb, NULL);
}

static char *ci_cell(const struct stats_summary *st, int digits, int sig)
{
	struct strbuf sb = STRBUF_INIT;
	int place;

	if (!st->has_std)
		return xstrdup("n/a");
	if (!stats_print_place(&place, st->std, sig))
		return xstrfmt("[%.*g, %.*g]", digits, st->mean - st->ci95, digits,
		               st->mean + st->ci95);
	strbuf_addch(&sb, '[');
	stats_format_at(&sb, st->mean - st->ci95, place);
	strbuf_addstr(&sb, ", ");
	stats_format_at(&sb, st->mean + st->ci95, place);
	strbuf_addch(&sb, ']');
	return strbuf_detach(&sb, NULL);
}

/*
 * "best", "p_holm = 0.012", "p_holm = 0.62 (n.s.)" or "n/a": the p the
 * verdict rests on, Holm-adjusted (JSON and CSV also give Welch's own).
 */
static char *rank_cell(const struct compare_entry *e)
{
	if (e->best)
		return xstrdup("best");
	if (!e->has_p)
		return xstrdup("n/a");
	return xstrfmt("p_holm = %.2g%s", e->p_holm, e->significant ? "" : " (n.s.)");
}

/* How to read the "vs best" columns, one line per ranked metric. */
/*
 * Under a ranked table: which settings are shown, and that the best of
 * several is an optimistic estimate of itself (selected and measured on the
 * same seeds: the winner's curse).
 */
static void print_order_notes(FILE *f, const struct report *r)
{
	size_t ns = r->plan->nsettings;

	if (r->order && r->norder < ns)
		fprintf(f, "showing the best %zu of %zu settings, best first\n", r->norder, ns);
	else if (r->order)
		fprintf(f, "settings best first\n");
	if (r->provenance)
		fprintf(f, "%s: each mean is an honest estimate of its setting%s\n", r->provenance,
		        ns > 1 ? " (which of them is best is chosen on these seeds again)" : "");
	else if (ns > 1)
		fprintf(f,
		        "the best mean, chosen among %zu settings on the same seeds, is "
		        "optimistic (the winner's curse); for an estimate to publish, run the "
		        "best settings again on seeds this sweep did not use: sweep confirm "
		        "%" PRId64 " --top K\n",
		        ns, r->id);
}

static void print_rank_notes(FILE *f, const struct report *r)
{
	const struct gate_result *g = r->gate;
	bool any = false;

	for (size_t m = 0; m < g->nmetrics; m++) {
		size_t ns = r->plan->nsettings, ntested = 0, nbest = 0;
		char *label;

		if (!rank_of(r, 0, m))
			continue;
		if (!any)
			fputc('\n', f);
		any = true;
		if (r->ref[m] == ns) {
			fprintf(f, "%s (%s): no setting has a mean\n", g->metrics[m],
			        compare_goal_name(r->goals[m]));
			continue;
		}
		for (size_t s = 0; s < ns; s++) {
			nbest += rank_of(r, s, m)->best;
			ntested += rank_of(r, s, m)->has_p;
		}
		label = plan_setting_label(r->plan, r->ref[m]);
		fprintf(f, "%s: best = %s mean (%s)", g->metrics[m],
		        r->goals[m] == GOAL_MAX ? "highest" : "lowest", label);
		if (nbest > 1)
			fprintf(f, ", %zu settings tie", nbest);
		if (!ntested) {
			/* No test to adjust (one setting, only ties, n < 2): none to explain. */
			fprintf(f, ns - nbest ? "; no other setting could be tested against it (Welch's "
			                        "t needs 2 seeds or more in each)\n"
			                      : "; no other setting to compare it with\n");
			free(label);
			continue;
		}
		fprintf(f,
		        "; p_holm: Welch's two-sided t-test against it, adjusted by Holm's "
		        "method over %zu setting%s (--json, --csv: also the unadjusted p); "
		        "n.s.: not significant at %g\n",
		        ntested, output_plural(ntested, "", "s"), COMPARE_ALPHA);
		free(label);
	}
	if (any)
		print_order_notes(f, r);
}

static void print_stats_table(FILE *f, const struct report *r)
{
	const struct plan *plan = r->plan;
	const struct gate_result *g = r->gate;
	size_t *cols = xcalloc(plan->nparams + 1, sizeof(*cols));
	size_t ncols = label_params(plan, cols);
	int *digits = xcalloc(g->nmetrics + 1, sizeof(*digits));
	size_t nranked = 0;
	struct table t;

	for (size_t m = 0; m < g->nmetrics; m++)
		digits[m] = mean_digits(r, m);
	for (size_t m = 0; m < g->nmetrics; m++)
		nranked += rank_of(r, 0, m) != NULL;
	table_init(&t, (ncols ? ncols : 1) + (g->nmetrics ? 2 * g->nmetrics + nranked : 1));
	add_setting_headers(&t, plan, cols, ncols);
	for (size_t m = 0; m < g->nmetrics; m++) {
		table_addstr(&t, g->metrics[m]);
		table_add(&t, xstrfmt("%s 95%% CI", g->metrics[m]));
		if (rank_of(r, 0, m))
			table_add(&t, xstrfmt("%s vs best", g->metrics[m]));
	}
	if (!g->nmetrics)
		table_addstr(&t, "n");
	for (size_t i = 0; i < report_nshown(r); i++) {
		size_t s = report_shown(r, i);

		add_setting_cells(&t, plan, cols, ncols, s);
		for (size_t m = 0; m < g->nmetrics; m++) {
			const struct stats_summary *st = report_stats(r, s, m);

			const struct compare_entry *e = rank_of(r, s, m);

			table_add(&t, metric_cell(st, digits[m], r->digits, plan->nseeds));
			table_add(&t, ci_cell(st, digits[m], r->digits));
			if (e)
				table_add(&t, rank_cell(e));
		}
		if (!g->nmetrics && g->npassed[s] < plan->nseeds)
			table_add(&t, xstrfmt("%zu of %zu", g->npassed[s], plan->nseeds));
		else if (!g->nmetrics)
			table_add(&t, xstrfmt("%zu", g->npassed[s]));
	}
	table_print(f, &t);
	table_release(&t);
	free(digits);
	free(cols);
	print_rank_notes(f, r);
}

static void print_title(FILE *f, const struct report *r)
{
	const struct plan *plan = r->plan;
	const struct gate_result *g = r->gate;

	fprintf(f, "sweep '%s' (id %" PRId64 "): ", r->name ? r->name : "?", r->id);
	if (!showing_stats(r)) {
		fprintf(f, "%zu of %zu tasks missing or failed\n", g->nfailures, g->ntasks);
		return;
	}
	fprintf(f, "%zu setting%s x %zu seed%s = %zu task%s, ", plan->nsettings,
	        output_plural(plan->nsettings, "", "s"), plan->nseeds,
	        output_plural(plan->nseeds, "", "s"), plan->ntasks,
	        output_plural(plan->ntasks, "", "s"));
	if (gate_complete(g))
		fprintf(f, "all completed\n");
	else
		fprintf(f, "%zu missing or failed and excluded\n", g->nfailures);
	if (g->nmetrics)
		fprintf(f, "mean ± sample std over the seeds that passed (n), 95%% CI of the mean "
		           "(Student's t)\n");
	else
		fprintf(f, "no result file holds a numeric metric\n");
}

/* The settings report --exclude left out, with their reasons. */
static void print_exclusions(FILE *f, const struct report *r)
{
	if (!r->nexclusions)
		return;
	fprintf(f, "\nleft out (report --exclude):\n");
	for (size_t i = 0; i < r->nexclusions; i++) {
		const struct report_exclusion *e = &r->exclusions[i];
		time_t when = (time_t)e->recorded_at;
		char stamp[32];
		struct tm tm;

		strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M", localtime_r(&when, &tm));
		fprintf(f, "  %s (%zu setting%s): %s (recorded %s)\n", e->selector, e->nsettings,
		        e->nsettings == 1 ? "" : "s", e->reason, stamp);
	}
}

void report_print_table(FILE *f, const struct report *r)
{
	print_title(f, r);
	fputc('\n', f);
	if (!showing_stats(r)) {
		print_failures_table(f, r);
		print_exclusions(f, r);
		return;
	}
	print_stats_table(f, r);
	print_exclusions(f, r);
	if (gate_complete(r->gate))
		return;
	fprintf(f, "\nexcluded tasks (%zu):\n", r->gate->nfailures);
	print_failures_table(f, r);
}

/* ---- JSON ---- */

static json_t *json_params(const struct plan *plan, size_t s)
{
	json_t *obj = json_object();

	for (size_t p = 0; p < plan->nparams; p++)
		json_object_set_new(obj, plan->params[p], json_string(plan_value(plan, s, p)));
	return obj;
}

static json_t *json_failure(const struct report *r, const struct gate_failure *fl)
{
	json_t *obj = json_object();
	char *log = report_log_path(r, fl);
	bool ran = has_exit(fl->state);

	json_object_set_new(obj, "index", json_integer((json_int_t)fl->index));
	json_object_set_new(obj, "setting", json_integer((json_int_t)fl->setting));
	json_object_set_new(obj, "params", json_params(r->plan, fl->setting));
	json_object_set_new(obj, "seed", json_integer(fl->seed));
	json_object_set_new(obj, "state", json_string(task_state_name(fl->state)));
	json_object_set_new(obj, "exit_code", ran ? json_integer(fl->exit_code) : json_null());
	json_object_set_new(obj, "signal", ran ? json_integer(fl->signal) : json_null());
	json_object_set_new(obj, "reason", json_string(fl->reason));
	json_object_set_new(obj, "array_job_id",
	                    fl->array_job_id ? json_integer(fl->array_job_id) : json_null());
	json_object_set_new(obj, "array_task_id",
	                    fl->array_job_id ? json_integer(fl->array_task_id) : json_null());
	json_object_set_new(obj, "log", log ? json_string(log) : json_null());
	if (r->cause_text)
		json_object_set_new(obj, "cause",
		                    cause_of(r, fl->index) ? json_string(cause_of(r, fl->index))
		                                           : json_null());
	free(log);
	return obj;
}

static json_t *json_groups(const struct report *r)
{
	struct cause_groups groups;
	json_t *arr = json_array();

	failure_groups(&groups, r);
	for (size_t i = 0; i < groups.n; i++) {
		json_t *obj = json_object(), *idx = json_array();

		for (size_t k = 0; k < groups.groups[i].n; k++)
			json_array_append_new(
			    idx, json_integer((json_int_t)groups.groups[i].indices[k]));
		json_object_set_new(obj, "count", json_integer((json_int_t)groups.groups[i].n));
		json_object_set_new(obj, "indices", idx);
		json_object_set_new(obj, "cause", json_string(groups.groups[i].text));
		json_object_set_new(obj, "resource", json_boolean(groups.groups[i].resource));
		json_array_append_new(arr, obj);
	}
	cause_groups_release(&groups);
	return arr;
}

/*
 * best, p_vs_best (Welch), p_vs_best_holm and significant; without a goal
 * for the metric, false and nulls, so that every setting has the same keys.
 */
static void json_rank(json_t *obj, const struct compare_entry *e)
{
	bool has_p = e && e->has_p;

	json_object_set_new(obj, "best", json_boolean(e && e->best));
	json_object_set_new(obj, "p_vs_best",
	                    output_json_number_or_null(has_p, has_p ? e->p : NAN));
	json_object_set_new(obj, "p_vs_best_holm",
	                    output_json_number_or_null(has_p, has_p ? e->p_holm : NAN));
	json_object_set_new(obj, "significant", has_p ? json_boolean(e->significant) : json_null());
}

static json_t *json_setting(const struct report *r, size_t s)
{
	const struct gate_result *g = r->gate;
	json_t *obj = json_object(), *metrics = json_object();

	json_object_set_new(obj, "setting", json_integer((json_int_t)s));
	json_object_set_new(obj, "params", json_params(r->plan, s));
	json_object_set_new(obj, "n", json_integer((json_int_t)g->npassed[s]));
	json_object_set_new(obj, "n_planned", json_integer((json_int_t)r->plan->nseeds));
	for (size_t m = 0; m < g->nmetrics; m++) {
		const struct stats_summary *st = report_stats(r, s, m);
		json_t *one = json_object();

		json_object_set_new(one, "mean",
		                    output_json_number_or_null(st->has_mean, st->mean));
		json_object_set_new(one, "std", output_json_number_or_null(st->has_std, st->std));
		json_object_set_new(one, "n", json_integer((json_int_t)st->n));
		json_object_set_new(one, "ci95", output_json_number_or_null(st->has_std, st->ci95));
		if (report_ranked(r))
			json_rank(one, rank_of(r, s, m));
		json_object_set_new(metrics, g->metrics[m], one);
	}
	json_object_set_new(obj, "metrics", metrics);
	return obj;
}

void report_print_json(FILE *f, const struct report *r)
{
	const struct plan *plan = r->plan;
	const struct gate_result *g = r->gate;
	json_t *root = json_object(), *arr;

	json_object_set_new(root, "sweep", r->name ? json_string(r->name) : json_null());
	json_object_set_new(root, "id", json_integer(r->id));
	json_object_set_new(root, "complete", json_boolean(gate_complete(g)));
	json_object_set_new(root, "ntasks", json_integer((json_int_t)plan->ntasks));
	json_object_set_new(root, "nsettings", json_integer((json_int_t)plan->nsettings));
	arr = json_array();
	for (size_t k = 0; k < plan->nseeds; k++)
		json_array_append_new(arr, json_integer(plan->seeds[k]));
	json_object_set_new(root, "seeds", arr);
	arr = json_array();
	for (size_t m = 0; m < g->nmetrics; m++)
		json_array_append_new(arr, json_string(g->metrics[m]));
	json_object_set_new(root, "metrics", arr);
	if (report_ranked(r)) {
		json_t *goals = json_object();

		for (size_t m = 0; m < g->nmetrics; m++)
			if (r->goals[m] != GOAL_NONE)
				json_object_set_new(goals, g->metrics[m],
				                    json_string(compare_goal_name(r->goals[m])));
		json_object_set_new(root, "goals", goals);
		json_object_set_new(root, "alpha", json_real(COMPARE_ALPHA));
	}
	if (showing_stats(r)) {
		arr = json_array();
		for (size_t i = 0; i < report_nshown(r); i++)
			json_array_append_new(arr, json_setting(r, report_shown(r, i)));
		json_object_set_new(root, "settings", arr);
	}
	arr = json_array();
	for (size_t i = 0; i < g->nfailures; i++)
		json_array_append_new(arr, json_failure(r, &g->failures[i]));
	json_object_set_new(root, "failures", arr);
	arr = json_array();
	for (size_t i = 0; i < r->nexclusions; i++)
		json_array_append_new(
		    arr, json_pack("{s:s, s:s, s:I, s:I}", "selector", r->exclusions[i].selector,
		                   "reason", r->exclusions[i].reason, "settings",
		                   (json_int_t)r->exclusions[i].nsettings, "recorded_at",
		                   (json_int_t)r->exclusions[i].recorded_at));
	json_object_set_new(root, "excluded", arr);
	if (r->provenance)
		json_object_set_new(root, "provenance", json_string(r->provenance));
	if (r->cause_text)
		json_object_set_new(root, "cause_groups", json_groups(r));
	output_json_print(f, root, JSON_INDENT(2));
}

/* ---- CSV ---- */

/* RFC 4180: a field holding a comma, quote or line break is quoted, quotes doubled. */
static void csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* The shortest text that reads back as the same double; nothing when undefined. */
static void csv_number(FILE *f, bool defined, double x)
{
	char buf[64];

	if (!defined || !isfinite(x))
		return;
	for (int digits = 15; digits <= DBL_DECIMAL_DIG; digits++) {
		snprintf(buf, sizeof(buf), "%.*g", digits, x);
		if (strtod(buf, NULL) == x)
			break;
	}
	fputs(buf, f);
}

static void csv_params_header(FILE *f, const struct plan *plan)
{
	for (size_t p = 0; p < plan->nparams; p++) {
		csv_field(f, plan->params[p]);
		fputc(',', f);
	}
}

static void csv_params(FILE *f, const struct plan *plan, size_t s)
{
	for (size_t p = 0; p < plan->nparams; p++) {
		csv_field(f, plan_value(plan, s, p));
		fputc(',', f);
	}
}

static void print_failures_csv(FILE *f, const struct report *r)
{
	const struct gate_result *g = r->gate;

	csv_params_header(f, r->plan);
	fputs(r->cause_text ? "seed,index,state,exit_code,signal,reason,log,cause\n"
	                    : "seed,index,state,exit_code,signal,reason,log\n",
	      f);
	for (size_t i = 0; i < g->nfailures; i++) {
		const struct gate_failure *fl = &g->failures[i];
		char *log = report_log_path(r, fl);

		csv_params(f, r->plan, fl->setting);
		fprintf(f, "%" PRId64 ",%zu,%s,", fl->seed, fl->index, task_state_name(fl->state));
		if (has_exit(fl->state))
			fprintf(f, "%d,%d,", fl->exit_code, fl->signal);
		else
			fputs(",,", f);
		csv_field(f, fl->reason);
		fputc(',', f);
		csv_field(f, log ? log : "");
		if (r->cause_text) {
			fputc(',', f);
			csv_field(f, cause_of(r, fl->index) ? cause_of(r, fl->index) : "");
		}
		fputc('\n', f);
		free(log);
	}
}

/* "seed 1: out of memory; seed 2: still running" for the setting's excluded tasks. */
static char *excluded_text(const struct report *r, size_t s)
{
	const struct gate_result *g = r->gate;
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < g->nfailures; i++) {
		if (g->failures[i].setting != s)
			continue;
		if (sb.len)
			strbuf_addstr(&sb, "; ");
		strbuf_addf(&sb, "seed %" PRId64 ": %s", g->failures[i].seed,
		            g->failures[i].reason);
	}
	return strbuf_detach(&sb, NULL);
}

void report_print_csv(FILE *f, const struct report *r)
{
	const struct plan *plan = r->plan;
	const struct gate_result *g = r->gate;

	if (!showing_stats(r)) {
		print_failures_csv(f, r);
		return;
	}
	csv_params_header(f, plan);
	fputs("n,n_planned", f);
	for (size_t m = 0; m < g->nmetrics; m++) {
		static const char *const suffix[] = {"_mean", "_std", "_ci95"};

		static const char *const rank_suffix[] = {"_best", "_p_vs_best", "_p_vs_best_holm"};

		for (size_t k = 0; k < 3; k++) {
			char *name = xstrfmt("%s%s", g->metrics[m], suffix[k]);

			fputc(',', f);
			csv_field(f, name);
			free(name);
		}
		for (size_t k = 0; rank_of(r, 0, m) && k < 3; k++) {
			char *name = xstrfmt("%s%s", g->metrics[m], rank_suffix[k]);

			fputc(',', f);
			csv_field(f, name);
			free(name);
		}
	}
	fputs(",excluded\n", f);
	for (size_t i = 0; i < report_nshown(r); i++) {
		size_t s = report_shown(r, i);
		char *excluded = excluded_text(r, s);

		csv_params(f, plan, s);
		fprintf(f, "%zu,%zu", g->npassed[s], plan->nseeds);
		for (size_t m = 0; m < g->nmetrics; m++) {
			const struct stats_summary *st = report_stats(r, s, m);
			const struct compare_entry *e = rank_of(r, s, m);

			fputc(',', f);
			csv_number(f, st->has_mean, st->mean);
			fputc(',', f);
			csv_number(f, st->has_std, st->std);
			fputc(',', f);
			csv_number(f, st->has_std, st->ci95);
			if (e) {
				fputs(e->best ? ",true," : ",false,", f);
				csv_number(f, e->has_p, e->p);
				fputc(',', f);
				csv_number(f, e->has_p, e->p_holm);
			}
		}
		fputc(',', f);
		csv_field(f, excluded);
		fputc('\n', f);
		free(excluded);
	}
}
