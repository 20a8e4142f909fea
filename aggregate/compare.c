#include "compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "strbuf.h"

#include "banned.h"

int compare_goal_parse(enum compare_goal *out, const char *text)
{
	if (!strcmp(text, "max"))
		*out = GOAL_MAX;
	else if (!strcmp(text, "min"))
		*out = GOAL_MIN;
	else
		return -1;
	return 0;
}

const char *compare_goal_name(enum compare_goal goal)
{
	switch (goal) {
	case GOAL_MAX:
		return "max";
	case GOAL_MIN:
		return "min";
	case GOAL_NONE:
		break;
	}
	return "none";
}

void compare_goals_init(struct compare_goals *g)
{
	memset(g, 0, sizeof(*g));
}

void compare_goals_release(struct compare_goals *g)
{
	for (size_t i = 0; i < g->n; i++)
		free(g->items[i].name);
	free(g->items);
	compare_goals_init(g);
}

void compare_goals_set(struct compare_goals *g, const char *name, enum compare_goal goal)
{
	for (size_t i = 0; i < g->n; i++) {
		if (!strcmp(g->items[i].name, name)) {
			g->items[i].goal = goal;
			return;
		}
	}
	ALLOC_GROW(g->items, g->n + 1, g->alloc);
	g->items[g->n].name = xstrdup(name);
	g->items[g->n++].goal = goal;
}

enum compare_goal compare_goals_get(const struct compare_goals *g, const char *name)
{
	for (size_t i = 0; i < g->n; i++)
		if (!strcmp(g->items[i].name, name))
			return g->items[i].goal;
	return GOAL_NONE;
}

int compare_goals_check(const struct compare_goals *g, char *const *metrics, size_t n)
{
	for (size_t i = 0; i < g->n; i++) {
		struct strbuf names = STRBUF_INIT;
		size_t m = 0;
		int ret;

		while (m < n && strcmp(metrics[m], g->items[i].name))
			m++;
		if (m < n)
			continue;
		for (m = 0; m < n; m++)
			strbuf_addf(&names, "%s'%s'", m ? ", " : "", metrics[m]);
		ret = error("--goal '%s': no metric '%s' is reported; %s%s", g->items[i].name,
		            g->items[i].name, n ? "the metrics are " : "there are no metrics",
		            names.buf);
		strbuf_release(&names);
		return ret;
	}
	return 0;
}

int compare_goals_parse(struct compare_goals *g, const char *text)
{
	const char *item = text;

	for (;;) {
		size_t len = strcspn(item, ",");
		char *one = xstrndup(item, len), *eq = strchr(one, '=');
		enum compare_goal goal = GOAL_NONE;
		int ret = 0;

		if (!eq || eq == one)
			ret = error("bad goal '%s' in '%s': write METRIC=max or METRIC=min", one,
			            text);
		else if (compare_goal_parse(&goal, eq + 1) < 0)
			ret = error("bad goal '%s' in '%s': the goal is max or min, not '%s'", one,
			            text, eq + 1);
		if (!ret) {
			*eq = '\0';
			compare_goals_set(g, one, goal);
		}
		free(one);
		if (ret)
			return ret;
		if (!item[len])
			return 0;
		item += len + 1;
	}
}

/*
 * Welch's t on the stds divided by 2^e, a power of two at least the larger
 * std, so that no square overflows (stds near 1e308) or underflows (near
 * 1e-300): the division is exact, and ordinary stds give the same bits as
 * the unscaled formulas. The means enter halved, so that their difference
 * stays finite (1.25e308 against -1.25e308).
 */
void compare_welch(struct welch *out, const struct stats_summary *a, const struct stats_summary *b)
{
	double sa, sb, va, vb, se2;
	int e;

	out->defined = false;
	out->t = out->df = out->p = NAN;
	if (!a->has_std || !b->has_std || !isfinite(a->std) || !isfinite(b->std))
		return;
	frexp(fmax(a->std, b->std), &e);
	sa = ldexp(a->std, -e);
	sb = ldexp(b->std, -e);
	/* The variances of the two means, over 2^(2e). */
	va = sa * sa / (double)a->n;
	vb = sb * sb / (double)b->n;
	se2 = va + vb;
	if (!(se2 > 0.0))
		return;
	out->defined = true;
	/* (ma - mb) / se, both halved: sqrt(se2) * 2^(e - 1) is se / 2. */
	out->t = (0.5 * a->mean - 0.5 * b->mean) / ldexp(sqrt(se2), e - 1);
	out->df = se2 * se2 / (va * va / (double)(a->n - 1) + vb * vb / (double)(b->n - 1));
	/* Q of |t| rather than 1 - P keeps the digits of small p-values. */
	out->p = 2.0 * stats_t_upper(fabs(out->t), out->df);
	if (out->p > 1.0)
		out->p = 1.0;
}

/* Whether index i sorts after j: by p, then by index, so the order is total. */
static bool after(size_t i, size_t j, const double *p)
{
	return p[i] > p[j] || (p[i] == p[j] && i > j);
}

/* An insertion sort of indices by p: a family is one metric's settings. */
static void sort_indices(size_t *idx, size_t n, const double *p)
{
	for (size_t i = 1; i < n; i++) {
		size_t v = idx[i], j = i;

		while (j > 0 && after(idx[j - 1], v, p)) {
			idx[j] = idx[j - 1];
			j--;
		}
		idx[j] = v;
	}
}

void compare_holm(double *adjusted, const double *p, size_t n)
{
	size_t *idx = xcalloc(n ? n : 1, sizeof(*idx));
	double *copy = xcalloc(n ? n : 1, sizeof(*copy));
	double running = 0.0;
	size_t m = 0;

	/* A copy, since adjusted may be p. */
	if (n)
		memcpy(copy, p, n * sizeof(*copy));
	for (size_t i = 0; i < n; i++) {
		adjusted[i] = NAN;
		if (!isnan(copy[i]))
			idx[m++] = i;
	}
	sort_indices(idx, m, copy);
	/*
	 * The k-th smallest (from 0) is multiplied by the number of hypotheses
	 * still standing, m - k; the running maximum keeps the adjusted values
	 * in the order of the raw ones, which is the step-down rule: once one
	 * is not rejected, none after it is.
	 */
	for (size_t k = 0; k < m; k++) {
		double q = (double)(m - k) * copy[idx[k]];

		if (q > 1.0)
			q = 1.0;
		if (q > running)
			running = q;
		adjusted[idx[k]] = running;
	}
	free(copy);
	free(idx);
}

static bool better(double x, double y, enum compare_goal goal)
{
	return goal == GOAL_MAX ? x > y : x < y;
}

size_t compare_metric(struct compare_entry *out, const struct stats_summary *stats,
                      size_t nsettings, size_t stride, enum compare_goal goal)
{
	size_t ref = nsettings;
	double *p, *adj;

	for (size_t s = 0; s < nsettings; s++) {
		out[s].best = false;
		out[s].has_p = false;
		out[s].p = NAN;
		out[s].p_holm = NAN;
		out[s].significant = false;
	}
	if (goal == GOAL_NONE)
		return nsettings;
	for (size_t s = 0; s < nsettings; s++) {
		const struct stats_summary *st = &stats[s * stride];

		if (st->has_mean &&
		    (ref == nsettings || better(st->mean, stats[ref * stride].mean, goal)))
			ref = s;
	}
	if (ref == nsettings)
		return ref;
	p = xcalloc(2 * nsettings, sizeof(*p));
	adj = p + nsettings;
	for (size_t s = 0; s < nsettings; s++) {
		const struct stats_summary *st = &stats[s * stride];
		struct welch w;

		p[s] = NAN;
		if (st->has_mean && st->mean == stats[ref * stride].mean) {
			out[s].best = true;
			continue;
		}
		compare_welch(&w, st, &stats[ref * stride]);
		if (w.defined)
			p[s] = w.p;
	}
	compare_holm(adj, p, nsettings);
	for (size_t s = 0; s < nsettings; s++) {
		if (isnan(p[s]))
			continue;
		out[s].has_p = true;
		out[s].p = p[s];
		out[s].p_holm = adj[s];
		out[s].significant = adj[s] < COMPARE_ALPHA;
	}
	free(p);
	return ref;
}
