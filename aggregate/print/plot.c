#include "plot.h"

#include <assert.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "curve.h"
#include "error.h"
#include "gate.h"
#include "plan.h"
#include "report.h"
#include "strbuf.h"

#include "banned.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

void plot_figure_init(struct plot_figure *fig)
{
	memset(fig, 0, sizeof(*fig));
}

static void axis_release(struct plot_axis *a)
{
	free(a->label);
	for (size_t i = 0; i < a->nticks; i++)
		free(a->ticks[i].label);
	free(a->ticks);
	memset(a, 0, sizeof(*a));
}

static void series_release(struct plot_series *s)
{
	free(s->label);
	free(s->x);
	free(s->y);
	free(s->lo);
	free(s->hi);
	free(s->best);
	free(s->cut);
	memset(s, 0, sizeof(*s));
}

void plot_figure_release(struct plot_figure *fig)
{
	for (size_t p = 0; p < fig->npanels; p++) {
		struct plot_panel *pn = &fig->panels[p];

		free(pn->title);
		free(pn->note);
		axis_release(&pn->x);
		axis_release(&pn->y);
		for (size_t s = 0; s < pn->nseries; s++)
			series_release(&pn->series[s]);
		free(pn->series);
	}
	free(fig->panels);
	free(fig->title);
	plot_figure_init(fig);
}

void plot_set_title(struct plot_figure *fig, const char *title)
{
	free(fig->title);
	fig->title = title ? xstrdup(title) : NULL;
}

int plot_choose_x(size_t *out, const struct plan *plan, const char *want)
{
	struct strbuf have = STRBUF_INIT;

	if (!want) {
		*out = 0;
		for (size_t p = 0; p < plan->nparams; p++) {
			if (plan->varies && plan->varies[p]) {
				*out = p;
				break;
			}
		}
		if (!plan->nparams)
			return error("the sweep has no parameter to plot against");
		return 0;
	}
	for (size_t p = 0; p < plan->nparams; p++) {
		if (!strcmp(plan->params[p], want)) {
			*out = p;
			strbuf_release(&have);
			return 0;
		}
		strbuf_addf(&have, "%s%s", p ? ", " : "", plan->params[p]);
	}
	error("no parameter '%s' to plot against; the sweep has: %s", want,
	      have.len ? have.buf : "none");
	strbuf_release(&have);
	return SWEEP_ERR;
}

bool plot_numeric(double *out, const char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char *end;
		double x;

		if (!*v[i])
			return false;
		x = strtod(v[i], &end);
		if (*end || !isfinite(x))
			return false;
		out[i] = x;
	}
	return true;
}

bool plot_wants_log(const double *v, size_t n)
{
	double lo = INFINITY, hi = 0.0;

	for (size_t i = 0; i < n; i++) {
		if (!(v[i] > 0.0))
			return false;
		lo = fmin(lo, v[i]);
		hi = fmax(hi, v[i]);
	}
	return n > 0 && hi / lo > 100.0;
}

/* 1, 2 or 5 times a power of ten, near raw. */
static double nice_step(double raw)
{
	double mag = pow(10.0, floor(log10(raw))), norm = raw / mag;

	if (norm < 1.5)
		return mag;
	if (norm < 3.0)
		return 2.0 * mag;
	if (norm < 7.0)
		return 5.0 * mag;
	return 10.0 * mag;
}

/* A tick's text: as many decimals as the step needs, "%g" for the extremes. */
static char *tick_text(double v, double step, double biggest)
{
	int decimals = 0;

	if (fabs(v) < step * 1e-9)
		v = 0.0; /* no "-0" nor "1.3e-17" */
	if (biggest >= 1e6 || step < 1e-4)
		return xstrfmt("%.4g", v);
	if (step < 1.0)
		decimals = (int)ceil(-log10(step) - 1e-9);
	/* 0.25 needs two decimals though its step rounds to one. */
	while (decimals < 6 &&
	       fabs(v * pow(10.0, decimals) - round(v * pow(10.0, decimals))) > 1e-6)
		decimals++;
	return xstrfmt("%.*f", decimals, v);
}

/* Adds a tick at v, taking ownership of text. */
static void add_tick(struct plot_axis *a, double v, char *text)
{
	ALLOC_GROW(a->ticks, a->nticks + 1, a->alloc);
	a->ticks[a->nticks].at = v;
	a->ticks[a->nticks++].label = text;
}

/* Nice ticks over lo..hi, min_step apart at least. */
static void fit_linear(struct plot_axis *a, double lo, double hi, double min_step)
{
	double step, first, last, biggest;

	if (hi - lo <= fmax(fabs(hi), fabs(lo)) * 1e-12) {
		double pad = lo == 0.0 ? 1.0 : fabs(lo) * 0.1;

		lo -= pad;
		hi += pad;
	}
	step = fmax(nice_step((hi - lo) / 5.0), min_step);
	first = floor(lo / step + 1e-9);
	last = ceil(hi / step - 1e-9);
	a->min = first * step;
	a->max = last * step;
	biggest = fmax(fabs(a->min), fabs(a->max));
	for (double k = first; k <= last + 0.5; k++)
		add_tick(a, k * step, tick_text(k * step, step, biggest));
}

/* The ticks at m times the powers of ten in lo..hi, every stride-th decade; their count. */
static size_t log_ticks(struct plot_axis *a, double lo, double hi, const double *m, size_t nm,
                        int stride, bool add)
{
	double k0 = floor(log10(lo)), k1 = floor(log10(hi));
	size_t n = 0;

	for (double k = k0; k <= k1 + 0.5; k++) {
		if (fmod(k, stride) != 0.0)
			continue;
		for (size_t i = 0; i < nm; i++) {
			double d = m[i] * pow(10.0, k);

			/* 1e-9: 0.001 is 1 * 10^-3 though pow() may round it up. */
			if (d < lo * (1 - 1e-9) || d > hi * (1 + 1e-9))
				continue;
			if (add)
				add_tick(a, d, xstrfmt("%g", d));
			n++;
		}
	}
	return n;
}

/*
 * A log axis over the data, not to whole decades (3..700 is not drawn as
 * 1..1000): ticks at the powers of ten, or at 1, 2 and 5 times them, or at
 * every digit, whichever first gives three ticks; the ends when none does.
 */
static void fit_log(struct plot_axis *a, double lo, double hi)
{
	static const double decade[] = {1}, fine[] = {1, 2, 5},
	                    digits[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
	static const struct {
		const double *m;
		size_t n;
	} sets[] = {{decade, 1}, {fine, 3}, {digits, 9}};
	int stride;
	size_t i;

	if (hi <= lo * (1 + 1e-9)) {
		lo /= 2;
		hi *= 2;
	}
	a->min = lo;
	a->max = hi;
	/* At most about eight decades labelled. */
	stride = (int)ceil((floor(log10(hi)) - ceil(log10(lo)) + 1) / 8.0);
	if (stride < 1)
		stride = 1;
	for (i = 0; i < ARRAY_SIZE(sets); i++)
		if (log_ticks(a, lo, hi, sets[i].m, sets[i].n, stride, false) >= 3)
			break;
	if (i < ARRAY_SIZE(sets)) {
		log_ticks(a, lo, hi, sets[i].m, sets[i].n, stride, true);
		return;
	}
	add_tick(a, lo, xstrfmt("%.3g", lo));
	add_tick(a, hi, xstrfmt("%.3g", hi));
}

static void axis_fit(struct plot_axis *axis, const double *v, size_t n, bool log, double min_step)
{
	double lo = INFINITY, hi = -INFINITY;

	for (size_t i = 0; i < n; i++) {
		if (isnan(v[i]))
			continue;
		assert(!log || v[i] > 0.0);
		lo = fmin(lo, v[i]);
		hi = fmax(hi, v[i]);
	}
	axis->log = log;
	if (lo > hi) {
		lo = log ? 1.0 : 0.0;
		hi = log ? 10.0 : 1.0;
	}
	if (log)
		fit_log(axis, lo, hi);
	else
		fit_linear(axis, lo, hi, min_step);
}

void plot_axis_fit(struct plot_axis *axis, const double *v, size_t n, bool log)
{
	axis_fit(axis, v, n, log, 0.0);
}

void plot_axis_fit_integers(struct plot_axis *axis, const double *v, size_t n)
{
	axis_fit(axis, v, n, false, 1.0);
}

void plot_axis_fit_span(struct plot_axis *axis, const double *v, size_t n)
{
	double lo = INFINITY, hi = -INFINITY, step, biggest;

	for (size_t i = 0; i < n; i++) {
		if (isnan(v[i]))
			continue;
		lo = fmin(lo, v[i]);
		hi = fmax(hi, v[i]);
	}
	if (lo > hi || hi - lo <= fmax(fabs(hi), fabs(lo)) * 1e-12) {
		/* No span to show: fit_linear widens it to nice ends. */
		plot_axis_fit(axis, v, n, false);
		return;
	}
	axis->log = false;
	axis->min = lo;
	axis->max = hi;
	step = nice_step((hi - lo) / 5.0);
	biggest = fmax(fabs(lo), fabs(hi));
	for (double k = ceil(lo / step - 1e-9); k * step <= hi + (hi - lo) * 1e-9; k++)
		add_tick(axis, k * step, tick_text(k * step, step, biggest));
}

void plot_axis_categories(struct plot_axis *axis, const char *const *labels, size_t n)
{
	axis->log = false;
	axis->min = 0.5;
	axis->max = (double)n + 0.5;
	for (size_t i = 0; i < n; i++)
		add_tick(axis, (double)(i + 1), xstrdup(labels[i]));
}

/* ---- the figure of a report ---- */

/* "width=16, depth=3": the varying parameters other than x; "" when none. */
static char *series_key(const struct plan *plan, size_t s, size_t xparam)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t p = 0; p < plan->nparams; p++) {
		if (p == xparam || !plan->varies || !plan->varies[p])
			continue;
		strbuf_addf(&sb, "%s%s=%s", sb.len ? ", " : "", plan->params[p],
		            plan_value(plan, s, p));
	}
	return strbuf_detach(&sb, NULL);
}

/* Index of text in list[0..n-1], or n. */
static size_t find_text(char *const *list, size_t n, const char *text)
{
	size_t i = 0;

	while (i < n && strcmp(list[i], text))
		i++;
	return i;
}

struct point {
	double x, y, lo, hi;
	bool best;
	unsigned char cut;
};

static int compare_points(const void *a, const void *b)
{
	double x = ((const struct point *)a)->x, y = ((const struct point *)b)->x;

	return (x > y) - (x < y);
}

/*
 * The error bar mean -+ ci95, or NAN at both ends (no bar) without a std
 * or where an end is past the largest double (a CI of two values near
 * 1e308): the axis is fitted to finite values only.
 */
static void error_bar(double *lo, double *hi, const struct stats_summary *st)
{
	*lo = st->mean - st->ci95;
	*hi = st->mean + st->ci95;
	if (!st->has_std || !isfinite(*lo) || !isfinite(*hi))
		*lo = *hi = NAN;
}

/* The x values of the settings: their numbers, or category positions. */
struct xmap {
	double *pos;       /* per setting */
	char **categories; /* distinct values in order of first appearance */
	size_t ncategories;
	bool numeric, log;
	bool integers; /* numeric, every value a whole number */
};

static int map_x(struct xmap *out, const struct plan *plan, size_t xparam, bool logx)
{
	const char **v = xcalloc(plan->nsettings + 1, sizeof(*v));
	int ret = 0;

	out->pos = xcalloc(plan->nsettings + 1, sizeof(*out->pos));
	out->categories = xcalloc(plan->nsettings + 1, sizeof(*out->categories));
	for (size_t s = 0; s < plan->nsettings; s++) {
		v[s] = plan_value(plan, s, xparam);
		if (find_text(out->categories, out->ncategories, v[s]) == out->ncategories)
			out->categories[out->ncategories++] = (char *)v[s];
	}
	out->numeric = plot_numeric(out->pos, v, plan->nsettings);
	if (logx) {
		for (size_t s = 0; s < plan->nsettings && !ret; s++)
			if (!out->numeric || !(out->pos[s] > 0.0))
				ret = error("--logx: parameter '%s' has the value '%s', not a "
				            "positive number",
				            plan->params[xparam], v[s]);
		out->log = true;
	} else {
		out->log = out->numeric && plot_wants_log(out->pos, plan->nsettings);
	}
	out->integers = out->numeric;
	for (size_t s = 0; out->numeric && s < plan->nsettings; s++)
		if (out->pos[s] != floor(out->pos[s]) || fabs(out->pos[s]) > 1e15)
			out->integers = false;
	if (!out->numeric) {
		for (size_t s = 0; s < plan->nsettings; s++)
			out->pos[s] =
			    (double)(find_text(out->categories, out->ncategories, v[s]) + 1);
	}
	free(v);
	return ret;
}

static void fill_series(struct plot_series *out, struct point *pts, size_t n)
{
	qsort(pts, n, sizeof(*pts), compare_points);
	out->n = n;
	out->x = xcalloc(n, sizeof(double));
	out->y = xcalloc(n, sizeof(double));
	out->lo = xcalloc(n, sizeof(double));
	out->hi = xcalloc(n, sizeof(double));
	out->best = xcalloc(n, 1);
	for (size_t i = 0; i < n; i++)
		if (pts[i].cut && !out->cut)
			out->cut = xcalloc(n, 1);
	for (size_t i = 0; i < n; i++) {
		out->x[i] = pts[i].x;
		out->y[i] = pts[i].y;
		out->lo[i] = pts[i].lo;
		out->hi[i] = pts[i].hi;
		out->best[i] = pts[i].best;
		if (out->cut)
			out->cut[i] = pts[i].cut;
	}
}

/*
 * Whether metric is a fraction, bounded to [0, 1]: its name says so
 * (accuracy, error, precision...) and every mean is in [0, 1] (an
 * accuracy in percent is not).
 */
static bool metric_bounded(const struct report *r, size_t m)
{
	static const char *const words[] = {"acc", "err",  "precision", "recall", "f1",    "auc",
	                                    "iou", "dice", "frac",      "rate",   "ratio", "prob"};
	const char *metric = r->gate->metrics[m];
	bool named = false;

	for (size_t i = 0; i < ARRAY_SIZE(words) && !named; i++)
		named = strstr(metric, words[i]) != NULL;
	if (!named)
		return false;
	for (size_t s = 0; s < r->plan->nsettings; s++) {
		const struct stats_summary *st = report_stats(r, s, m);

		if (st->has_mean && !(st->mean >= 0.0 && st->mean <= 1.0))
			return false;
	}
	return true;
}

/* A bar of a bounded metric cut at 0 and 1; what was cut. */
static unsigned char cut_bar(double *lo, double *hi)
{
	unsigned char cut = 0;

	if (*lo < 0.0) {
		*lo = 0.0;
		cut |= PLOT_CUT_LO;
	}
	if (*hi > 1.0) {
		*hi = 1.0;
		cut |= PLOT_CUT_HI;
	}
	return cut;
}

/* "width=16 (n = 5)", "all settings (n = 3-5)": the seeds per point. */
static char *series_label_n(const char *key, size_t nmin, size_t nmax)
{
	const char *name = *key ? key : "all settings";

	if (nmin == nmax)
		return xstrfmt("%s (n = %zu)", name, nmin);
	return xstrfmt("%s (n = %zu-%zu)", name, nmin, nmax);
}

static void report_panel(struct plot_panel *pn, const struct report *r, size_t m, size_t xparam,
                         const struct xmap *xm, char **keys, size_t nkeys, const size_t *key_of)
{
	const struct plan *plan = r->plan;
	const char *metric = r->gate->metrics[m];
	struct point *pts = xcalloc(plan->nsettings + 1, sizeof(*pts));
	double *yv = xcalloc(3 * plan->nsettings + 1, sizeof(*yv));
	size_t ny = 0, ncut = 0;
	bool ranked = r->goals && r->goals[m] != GOAL_NONE, bounded = metric_bounded(r, m);

	pn->style = PLOT_ERROR_BARS;
	pn->series = xcalloc(nkeys + 1, sizeof(*pn->series));
	for (size_t k = 0; k < nkeys; k++) {
		size_t np = 0, nmin = SIZE_MAX, nmax = 0;

		for (size_t s = 0; s < plan->nsettings; s++) {
			const struct stats_summary *st = report_stats(r, s, m);

			if (key_of[s] != k || !st->has_mean)
				continue;
			pts[np].x = xm->pos[s];
			pts[np].y = st->mean;
			error_bar(&pts[np].lo, &pts[np].hi, st);
			pts[np].cut =
			    bounded && !isnan(pts[np].lo) ? cut_bar(&pts[np].lo, &pts[np].hi) : 0;
			ncut += pts[np].cut != 0;
			nmin = st->n < nmin ? st->n : nmin;
			nmax = st->n > nmax ? st->n : nmax;
			pts[np].best = ranked && r->cmp[s * r->gate->nmetrics + m].best;
			yv[ny++] = pts[np].y;
			yv[ny++] = pts[np].lo;
			yv[ny++] = pts[np].hi;
			np++;
		}
		if (!np)
			continue;
		pn->series[pn->nseries].label = series_label_n(keys[k], nmin, nmax);
		fill_series(&pn->series[pn->nseries++], pts, np);
	}
	if (ranked)
		pn->title = xstrfmt("%s (goal: %s; the best setting is ringed)", metric,
		                    compare_goal_name(r->goals[m]));
	else
		pn->title = xstrdup(metric);
	pn->note = xstrfmt("mean over seeds; bars: 95%% CI of the mean%s",
	                   ncut ? "; an arrow: a CI cut at 0 or 1, the bounds of the metric" : "");
	pn->x.label = xstrfmt("%s%s", plan->params[xparam], xm->log ? " (log scale)" : "");
	pn->y.label = xstrdup(r->labels && r->labels[m] ? r->labels[m] : metric);
	if (xm->numeric && xm->integers && !xm->log)
		plot_axis_fit_integers(&pn->x, xm->pos, plan->nsettings);
	else if (xm->numeric)
		plot_axis_fit(&pn->x, xm->pos, plan->nsettings, xm->log);
	else
		plot_axis_categories(&pn->x, (const char *const *)xm->categories, xm->ncategories);
	plot_axis_fit(&pn->y, yv, ny, false);
	free(yv);
	free(pts);
}

int plot_from_report(struct plot_figure *out, const struct report *r, size_t xparam, bool logx)
{
	const struct plan *plan = r->plan;
	size_t nm = r->gate->nmetrics, nkeys = 0;
	struct xmap xm = {0};
	char **keys = NULL;
	size_t *key_of = NULL;
	int ret;

	if (!nm)
		return error("no metric to plot: no result file holds a number");
	ret = map_x(&xm, plan, xparam, logx);
	if (ret < 0)
		goto out;
	keys = xcalloc(plan->nsettings + 1, sizeof(*keys));
	key_of = xcalloc(plan->nsettings + 1, sizeof(*key_of));
	for (size_t s = 0; s < plan->nsettings; s++) {
		char *key = series_key(plan, s, xparam);
		size_t k = find_text(keys, nkeys, key);

		if (k == nkeys)
			keys[nkeys++] = key;
		else
			free(key);
		key_of[s] = k;
	}
	out->title = xstrfmt("sweep '%s'", r->name ? r->name : "?");
	out->panels = xcalloc(nm, sizeof(*out->panels));
	for (size_t m = 0; m < nm; m++)
		report_panel(&out->panels[out->npanels++], r, m, xparam, &xm, keys, nkeys, key_of);
out:
	for (size_t k = 0; k < nkeys; k++)
		free(keys[k]);
	free(keys);
	free(key_of);
	free(xm.pos);
	free(xm.categories);
	return ret;
}

int plot_from_sampled(struct plot_figure *out, const struct report *r, size_t nsampled,
                      const bool *logx)
{
	size_t nm = r->gate->nmetrics, m = 0;
	size_t *key_of;
	char *keys[] = {""};
	int ret = 0;

	if (!nm)
		return error("no metric to plot: no result file holds a number");
	while (r->goals && m + 1 < nm && r->goals[m] == GOAL_NONE)
		m++;
	if (!r->goals || r->goals[m] == GOAL_NONE)
		m = 0;
	key_of = xcalloc(r->plan->nsettings + 1, sizeof(*key_of));
	out->title = xstrfmt("sweep '%s': %s against each sampled parameter",
	                     r->name ? r->name : "?", r->gate->metrics[m]);
	out->panels = xcalloc(nsampled + 1, sizeof(*out->panels));
	for (size_t p = 0; p < nsampled && !ret; p++) {
		struct xmap xm = {0};
		struct plot_panel *pn;
		char *note;

		ret = map_x(&xm, r->plan, p, logx[p]);
		if (!ret) {
			pn = &out->panels[out->npanels++];
			report_panel(pn, r, m, p, &xm, keys, 1, key_of);
			pn->style = PLOT_SCATTER;
			free(pn->title);
			pn->title =
			    xstrfmt("%s against %s", r->gate->metrics[m], r->plan->params[p]);
			note = pn->note;
			pn->no_legend = p > 0;
			pn->note = xstrfmt(
			    "one point per setting: mean over seeds, bars: 95%% CI of the mean%s%s",
			    r->goals && r->goals[m] != GOAL_NONE ? "; ring: the best" : "",
			    strstr(note, "an arrow") ? "; an arrow: a CI cut at 0 or 1, the "
			                               "bounds of the metric"
			                             : "");
			free(note);
		}
		free(xm.pos);
		free(xm.categories);
	}
	free(key_of);
	return ret;
}

void plot_from_curves(struct plot_figure *out, const char *title, const struct plan *plan,
                      const char *const *metrics, const char *const *labels, size_t nmetrics,
                      const struct curve_band *bands, const size_t *nseeds, const char *step_key)
{
	out->title = xstrdup(title);
	out->panels = xcalloc(nmetrics + 1, sizeof(*out->panels));
	for (size_t m = 0; m < nmetrics; m++) {
		struct plot_panel *pn = &out->panels[out->npanels++];
		size_t nx = 0, ny = 0, total = 0;
		double *xv, *yv;

		for (size_t s = 0; s < plan->nsettings; s++)
			total += bands[s * nmetrics + m].n;
		xv = xcalloc(total + 1, sizeof(*xv));
		yv = xcalloc(3 * total + 1, sizeof(*yv));
		pn->style = PLOT_BANDS;
		pn->title = xstrfmt("%s by %s", metrics[m], step_key);
		pn->note =
		    xstrdup("mean over seeds, band ±1 std; a line ends at the last step every "
		            "seed of its setting reached");
		pn->x.label = xstrdup(step_key);
		pn->y.label = xstrdup(labels && labels[m] ? labels[m] : metrics[m]);
		pn->series = xcalloc(plan->nsettings + 1, sizeof(*pn->series));
		for (size_t s = 0; s < plan->nsettings; s++) {
			const struct curve_band *b = &bands[s * nmetrics + m];
			struct plot_series *ser = &pn->series[pn->nseries++];
			char *label = plan_setting_label(plan, s);

			if (!nseeds[s])
				ser->label = xstrfmt("%s (no curve)", label);
			else if (b->n)
				ser->label = xstrfmt("%s (%zu seed%s, to %s %g)", label, nseeds[s],
				                     nseeds[s] == 1 ? "" : "s", step_key,
				                     b->steps[b->n - 1]);
			else
				ser->label = xstrfmt("%s (no %s all %zu seeds reached)", label,
				                     step_key, nseeds[s]);
			free(label);
			ser->n = b->n;
			ser->x = xcalloc(b->n + 1, sizeof(double));
			ser->y = xcalloc(b->n + 1, sizeof(double));
			ser->lo = xcalloc(b->n + 1, sizeof(double));
			ser->hi = xcalloc(b->n + 1, sizeof(double));
			ser->best = NULL;
			for (size_t i = 0; i < b->n; i++) {
				ser->x[i] = b->steps[i];
				ser->y[i] = b->mean[i];
				ser->lo[i] = b->mean[i] - b->std[i];
				ser->hi[i] = b->mean[i] + b->std[i];
				xv[nx++] = b->steps[i];
				yv[ny++] = ser->y[i];
				yv[ny++] = ser->lo[i];
				yv[ny++] = ser->hi[i];
			}
		}
		/* From the first step recorded: a curve that starts at 1000 is not drawn from 0. */
		plot_axis_fit_span(&pn->x, xv, nx);
		plot_axis_fit(&pn->y, yv, ny, false);
		free(xv);
		free(yv);
	}
}
