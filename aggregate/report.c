/*
 * The report's model: per setting, the statistics of each metric, its rank
 * against the best, and the order settings are shown in. The printers are
 * aggregate/print/report_print.c.
 */
#include "report.h"

#include <assert.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gate.h"
#include "plan.h"
#include "outcome.h"
#include "result.h"
#include "strbuf.h"

#include "banned.h"

void report_init(struct report *r)
{
	memset(r, 0, sizeof(*r));
}

void report_release(struct report *r)
{
	free(r->stats);
	r->stats = NULL;
	free(r->goals);
	r->goals = NULL;
	free(r->cmp);
	r->cmp = NULL;
	free(r->ref);
	r->ref = NULL;
	free(r->order);
	r->order = NULL;
	r->norder = 0;
	r->plan = NULL;
	r->gate = NULL;
}

void report_build(struct report *out, const struct plan *plan, const struct gate_result *gate,
                  const struct result *results)
{
	size_t nm = gate->nmetrics;

	assert(gate->ntasks == plan->ntasks && gate->nsettings == plan->nsettings);
	free(out->stats);
	out->plan = plan;
	out->gate = gate;
	out->stats = xcalloc(plan->nsettings * nm, sizeof(*out->stats));
	for (size_t s = 0; s < plan->nsettings; s++) {
		for (size_t m = 0; m < nm; m++) {
			struct stats_acc acc;

			stats_init(&acc);
			for (size_t k = 0; k < plan->nseeds; k++) {
				size_t i = s * plan->nseeds + k;
				const struct result_entry *e;

				if (!gate->passed[i])
					continue;
				e = result_find(&results[i], gate->metrics[m]);
				/* The gate passes only tasks with every metric finite. */
				assert(e && e->kind == RESULT_NUMBER);
				stats_add(&acc, e->value);
			}
			stats_summarize(&out->stats[s * nm + m], &acc);
		}
	}
}

const struct stats_summary *report_stats(const struct report *r, size_t s, size_t m)
{
	return &r->stats[s * r->gate->nmetrics + m];
}

void report_rank(struct report *r, const enum compare_goal *goals)
{
	size_t nm = r->gate->nmetrics, ns = r->plan->nsettings;
	struct compare_entry *one = xcalloc(ns + 1, sizeof(*one));

	free(r->goals);
	free(r->cmp);
	free(r->ref);
	r->goals = xcalloc(nm + 1, sizeof(*r->goals));
	r->cmp = xcalloc(ns * nm + 1, sizeof(*r->cmp));
	r->ref = xcalloc(nm + 1, sizeof(*r->ref));
	for (size_t m = 0; m < nm; m++) {
		r->goals[m] = goals[m];
		r->ref[m] = compare_metric(one, r->stats + m, ns, nm, goals[m]);
		for (size_t s = 0; s < ns; s++)
			r->cmp[s * nm + m] = one[s];
	}
	free(one);
}

/* A setting with its sort key: the mean, negated when higher is better. */
struct keyed {
	size_t s;
	bool has;
	double key;
};

static int cmp_keyed(const void *va, const void *vb)
{
	const struct keyed *x = va, *y = vb;

	if (x->has != y->has)
		return x->has ? -1 : 1;
	if (x->has && x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->s > y->s) - (x->s < y->s);
}

void report_order(struct report *r, size_t top)
{
	size_t ns = r->plan->nsettings, m = 0;
	struct keyed *k;

	while (r->goals && m < r->gate->nmetrics && r->goals[m] == GOAL_NONE)
		m++;
	if (!r->goals || m == r->gate->nmetrics)
		return;
	k = xcalloc(ns + 1, sizeof(*k));
	for (size_t s = 0; s < ns; s++) {
		const struct stats_summary *st = report_stats(r, s, m);

		k[s].s = s;
		k[s].has = st->has_mean;
		k[s].key = r->goals[m] == GOAL_MAX ? -st->mean : st->mean;
	}
	qsort(k, ns, sizeof(*k), cmp_keyed);
	free(r->order);
	r->order = xcalloc(ns + 1, sizeof(*r->order));
	for (size_t s = 0; s < ns; s++)
		r->order[s] = k[s].s;
	r->norder = top && top < ns ? top : ns;
	free(k);
}

size_t report_nshown(const struct report *r)
{
	return r->order ? r->norder : r->plan->nsettings;
}

size_t report_shown(const struct report *r, size_t i)
{
	return r->order ? r->order[i] : i;
}

bool report_ranked(const struct report *r)
{
	for (size_t m = 0; r->goals && m < r->gate->nmetrics; m++)
		if (r->goals[m] != GOAL_NONE)
			return true;
	return false;
}

char *report_log_path(const struct report *r, const struct gate_failure *f)
{
	return outcome_log_path(r->logs, r->name, f->state, f->array_job_id, f->array_task_id);
}
