#ifndef SWEEP_COMPARE_H
#define SWEEP_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

#include "stats.h"

/*
 * Which setting is best for a metric, and whether the others differ from
 * it by more than seed noise. Pure: takes summaries, does no I/O.
 *
 * Each other setting is compared with the best by Welch's two-sided t-test
 * (unequal variances, Welch-Satterthwaite degrees of freedom, the t
 * distribution from GSL). The p-values of one metric form one family,
 * corrected with Holm's step-down method: a difference is significant when
 * its Holm-adjusted p-value is below COMPARE_ALPHA.
 */

#define COMPARE_ALPHA 0.05

enum compare_goal {
	GOAL_NONE = 0, /* no best is named */
	GOAL_MAX,
	GOAL_MIN,
};

/* "max" or "min" into out; returns 0, or -1 for any other text. */
int compare_goal_parse(enum compare_goal *out, const char *text);
/* "max", "min" or "none"; static. */
const char *compare_goal_name(enum compare_goal goal);

/*
 * Goals by metric name, as the sweep file's `metrics:` and report's --goal
 * give them. Names are owned copies.
 */
struct compare_goals {
	struct compare_named_goal {
		char *name;
		enum compare_goal goal;
	} * items;
	size_t n, alloc;
};

void compare_goals_init(struct compare_goals *g);
void compare_goals_release(struct compare_goals *g);
/* Sets the goal of metric name, replacing an earlier one. */
void compare_goals_set(struct compare_goals *g, const char *name, enum compare_goal goal);
/* The goal of metric name; GOAL_NONE when it has none. */
enum compare_goal compare_goals_get(const struct compare_goals *g, const char *name);
/*
 * Parses "accuracy=max,loss=min" (as --goal takes it) into g with
 * compare_goals_set. On a malformed item reports it with error() and
 * returns SWEEP_ERR; the items before it stay set.
 */
int compare_goals_parse(struct compare_goals *g, const char *text);

/*
 * Whether every goal of g names one of the n metrics: reports the first
 * that does not with error(), naming the metrics there are ("--goal
 * 'nosuch': no metric 'nosuch' is reported; the metrics are 'acc',
 * 'loss'"), and returns SWEEP_ERR.
 */
int compare_goals_check(const struct compare_goals *g, char *const *metrics, size_t n);

/*
 * Welch's test of equal means. defined is false (and t, df, p NAN) when
 * either side has n < 2, or both have zero variance: then there is no
 * estimate of the noise to compare the difference with.
 */
struct welch {
	bool defined;
	double t;  /* (mean a - mean b) / standard error */
	double df; /* Welch-Satterthwaite */
	double p;  /* two-sided: 2 P(T > |t|) */
};

void compare_welch(struct welch *out, const struct stats_summary *a, const struct stats_summary *b);

/*
 * Holm's step-down adjustment of the n p-values in p into adjusted. NAN
 * entries are not part of the family and stay NAN. adjusted may be p.
 */
void compare_holm(double *adjusted, const double *p, size_t n);

/* One setting's standing for one metric. */
struct compare_entry {
	bool best;        /* its mean is the best (ties: every one of them) */
	bool has_p;       /* p and p_holm are defined (see struct welch) */
	double p;         /* Welch's p against the reference best; NAN when !has_p */
	double p_holm;    /* Holm-adjusted over the metric's family; NAN when !has_p */
	bool significant; /* has_p and p_holm < COMPARE_ALPHA */
};

/*
 * Ranks one metric over nsettings settings whose summaries are
 * stats[s * stride], s = 0..nsettings-1, into out[0..nsettings-1].
 *
 * With GOAL_NONE, or no setting with a mean, nothing is best and nothing
 * compared. Else the best mean wins; every setting with exactly that mean
 * is best, and the first of them (in setting order) is the reference the
 * others are tested against. Best settings themselves get no p-value.
 * Returns the reference's index, or nsettings when there is none.
 */
size_t compare_metric(struct compare_entry *out, const struct stats_summary *stats,
                      size_t nsettings, size_t stride, enum compare_goal goal);

#endif
