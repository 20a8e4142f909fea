/*
 * Checkpoint advice. The closed form, for one segment of length T (its work
 * plus, except for the last segment, the checkpoint) and interruptions at
 * rate 1/M: an attempt either runs the whole T uninterrupted, with
 * probability p = exp(-T/M), or is interrupted at time X < T, pays the
 * restart R and starts the segment again. By memorylessness the retry is a
 * fresh copy of the same problem, so
 *
 *   E = E[min(X, T)] + (1 - p) (R + E),  with E[min(X, T)] = M (1 - p)
 *   E = (M + R) (1 - p) / p = (M + R) (exp(T/M) - 1).
 *
 * Each segment starts right after a completed checkpoint, so segments are
 * independent and the job's expected wall time is the sum over them. The
 * restart is assumed free of interruptions (that is what gives the factor
 * M + R; with interruptions during restarts it would be M exp(R/M)). The
 * simulation draws the same events: one exponential time per attempt.
 */
#include "advise.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "units.h"

#include "banned.h"

#define MAX_DURATION (100 * ADVISE_YEAR_S)
#define MAX_SEGMENTS 200000
#define MC_MIN_RUNS  100
/* Expected exponential draws one row may take; a typical row needs a few hundred thousand. */
#define MC_BUDGET 2000000.0
/* Work left below this fraction of the interval is rounding, not a segment. */
#define SPLIT_EPSILON 1e-9

/* Durations. */

static int fail(const char **why, const char *text)
{
	if (why)
		*why = text;
	return -1;
}

static const struct {
	char unit;
	double seconds;
} duration_units[] = {{'d', 86400}, {'h', 3600}, {'m', 60}, {'s', 1}};

/* Reads "12", "1.5" or ".5" at *p (at most 12 digits before the point, 9 after). */
static int parse_number(double *out, const char **p)
{
	const char *s = *p;
	double v = 0, scale = 1;
	int before = 0, after = 0;

	for (; *s >= '0' && *s <= '9'; s++) {
		if (++before > 12)
			return -1;
		v = v * 10 + (*s - '0');
	}
	if (*s == '.') {
		for (s++; *s >= '0' && *s <= '9'; s++) {
			if (++after > 9)
				return -1;
			scale /= 10;
			v += (*s - '0') * scale;
		}
		if (!after)
			return -1;
	}
	if (!before && !after)
		return -1;
	*out = v;
	*p = s;
	return 0;
}

int advise_parse_duration(double *seconds, const char *s, const char **why)
{
	const size_t nunits = sizeof(duration_units) / sizeof(duration_units[0]);
	const char *p = s;
	size_t next_unit = 0; /* units before this one are used up */
	double total = 0;

	if (!*s)
		return fail(why, "empty duration");
	if (!strcmp(s, "0")) {
		*seconds = 0;
		return 0;
	}
	while (*p) {
		double v;
		size_t u;

		if (*p == '-' || *p == '+')
			return fail(why, "a duration has no sign");
		if (parse_number(&v, &p) < 0)
			return fail(why,
			            "expected a number and a unit, as in 3m, 90s, 1.5h or 1h30m");
		if (!*p)
			return fail(why, next_unit == 0
			                     ? "a number needs a unit: s, m, h or d (as in "
			                       "90s, 3m or 1.5h)"
			                     : "the last number has no unit (s, m, h or d)");
		for (u = 0; u < nunits; u++)
			if (duration_units[u].unit == *p)
				break;
		if (u == nunits)
			return fail(why, "unknown unit: use d, h, m or s (lower case)");
		if (u < next_unit)
			return fail(why,
			            "units go from the largest to the smallest, each once (as in "
			            "1h30m)");
		next_unit = u + 1;
		total += v * duration_units[u].seconds;
		p++;
	}
	if (total > MAX_DURATION)
		return fail(why, "longer than 100 years");
	*seconds = total;
	return 0;
}

/* The optimum's estimates. */

double advise_young(double cost_s, double mtbf_s)
{
	return sqrt(2 * cost_s * mtbf_s);
}

double advise_daly(double cost_s, double mtbf_s)
{
	double x = cost_s / (2 * mtbf_s);

	if (cost_s >= 2 * mtbf_s)
		return mtbf_s;
	return sqrt(2 * cost_s * mtbf_s) * (1 + sqrt(x) / 3 + x / 9) - cost_s;
}

void advise_split(struct advise_segments *out, double work_s, double interval_s)
{
	double k, rest;

	out->checkpoints = 0;
	out->last_s = work_s;
	if (!(interval_s > 0) || interval_s >= work_s * (1 - SPLIT_EPSILON))
		return;
	k = floor(fmin(work_s / interval_s, 1e15)); /* 1e15: far beyond any interval asked about */
	rest = work_s - k * interval_s;
	/* work/interval may round either side of a whole number. */
	if (rest >= interval_s * (1 - SPLIT_EPSILON)) {
		k++;
		rest -= interval_s;
	}
	if (rest <= SPLIT_EPSILON * interval_s) {
		/* Equal segments: the last full one ends the job, without a checkpoint. */
		out->checkpoints = (uint64_t)k - 1;
		out->last_s = interval_s;
	} else {
		out->checkpoints = (uint64_t)k;
		out->last_s = rest;
	}
}

/* (M + R) (exp(T/M) - 1) for each of n segments of length T; expm1 keeps small T exact. */
static double segments_expected(const struct advise_params *p, double n, double len_s)
{
	if (n == 0)
		return 0;
	return n * (p->mtbf_s + p->restart_s) * expm1(len_s / p->mtbf_s);
}

double advise_expected(const struct advise_params *p, double interval_s)
{
	struct advise_segments seg;

	advise_split(&seg, p->work_s, interval_s);
	return segments_expected(p, (double)seg.checkpoints, interval_s + p->cost_s) +
	       segments_expected(p, 1, seg.last_s);
}

/*
 * The interval that minimises the expected time per unit of work of an
 * endless job, (exp((tau + C)/M) - 1) / tau: setting the derivative to zero
 * gives log(1 - x) + x + C/M = 0 with x = tau/M, which falls from C/M at
 * x = 0 to -inf at x = 1 and so has one root, found by bisection.
 */
static double endless_optimum(const struct advise_params *p)
{
	double c = p->cost_s / p->mtbf_s, lo = 0, hi = 1;

	for (int i = 0; i < 200 && lo < hi; i++) {
		double mid = (lo + hi) / 2;

		if (mid == lo || mid == hi)
			break;
		if (log1p(-mid) + mid + c > 0)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2 * p->mtbf_s;
}

static double expected_equal(const struct advise_params *p, uint64_t n)
{
	double tau = p->work_s / (double)n;

	return segments_expected(p, (double)(n - 1), tau + p->cost_s) +
	       segments_expected(p, 1, tau);
}

/*
 * Within the intervals that give n segments, the expected time grows with
 * the interval (the last segment, which is shorter, only gets shorter), so
 * the best interval is work/n for some n. The best n lies near work over
 * the endless job's optimum: try every n from half to twice that (at most
 * MAX_SEGMENTS of them, around it), and n = 1.
 */
double advise_best_interval(const struct advise_params *p, uint64_t *segments)
{
	double nc = p->work_s / endless_optimum(p), lo, hi, best = expected_equal(p, 1);
	uint64_t best_n = 1;

	if (!(nc < 1e15))
		nc = 1e15;
	lo = fmax(1, floor(nc / 2) - 2);
	hi = ceil(2 * nc) + 2;
	if (hi - lo > MAX_SEGMENTS) {
		lo = fmax(1, round(nc) - MAX_SEGMENTS / 2);
		hi = lo + MAX_SEGMENTS;
	}
	for (uint64_t n = (uint64_t)lo; n <= (uint64_t)hi; n++) {
		double e = expected_equal(p, n);

		if (e < best) {
			best = e;
			best_n = n;
		}
	}
	if (segments)
		*segments = best_n;
	return best_n == 1 ? 0 : p->work_s / (double)best_n;
}

/* Monte Carlo: xoshiro256** (Blackman and Vigna), seeded through splitmix64. */

struct rng {
	uint64_t s[4];
};

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static void rng_seed(struct rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

/* An exponential time with this mean; u in (0, 1] so log(u) is finite. */
static double rng_exponential(struct rng *r, double mean)
{
	double u = (double)((rng_next(r) >> 11) + 1) * 0x1.0p-53;

	return -mean * log(u);
}

struct sim {
	struct rng rng;
	const struct advise_params *p;
	double draws, max_draws;
};

/* Wall time of one segment of length len_s, interruption by interruption; < 0 when over budget. */
static double simulate_segment(struct sim *sim, double len_s)
{
	double t = 0;

	for (;;) {
		double x = rng_exponential(&sim->rng, sim->p->mtbf_s);

		if (++sim->draws > sim->max_draws)
			return -1;
		if (x >= len_s)
			return t + len_s;
		t += x + sim->p->restart_s;
	}
}

void advise_simulate(struct advise_mc *out, const struct advise_params *p, double interval_s,
                     size_t runs, uint64_t seed)
{
	struct advise_segments seg;
	struct sim sim = {.p = p};
	double full, per_run, mean = 0, m2 = 0;

	memset(out, 0, sizeof(*out));
	advise_split(&seg, p->work_s, interval_s);
	full = interval_s + p->cost_s;
	/* An attempt at a segment of length T is made exp(T/M) times on average. */
	per_run = (seg.checkpoints ? (double)seg.checkpoints * exp(full / p->mtbf_s) : 0) +
	          exp(seg.last_s / p->mtbf_s);
	if (!isfinite(per_run) || MC_BUDGET / per_run < MC_MIN_RUNS)
		return;
	if ((double)runs > MC_BUDGET / per_run)
		runs = (size_t)(MC_BUDGET / per_run);
	if (runs < MC_MIN_RUNS)
		return;
	/* A safety net far above the expectation: the loop always ends. */
	sim.max_draws = 20 * MC_BUDGET;
	rng_seed(&sim.rng, seed);
	for (size_t i = 0; i < runs; i++) {
		double total = 0, t, delta;

		for (uint64_t k = 0; k < seg.checkpoints; k++) {
			t = simulate_segment(&sim, full);
			if (t < 0)
				return;
			total += t;
		}
		t = simulate_segment(&sim, seg.last_s);
		if (t < 0)
			return;
		total += t;
		/* Welford's running mean and sum of squared deviations. */
		delta = total - mean;
		mean += delta / (double)(i + 1);
		m2 += delta * (total - mean);
	}
	out->done = true;
	out->runs = runs;
	out->mean_s = mean;
	out->se_s = sqrt(m2 / (double)(runs - 1) / (double)runs);
}

/* The MTBF from a sweep's accounting. */

static bool is_interruption_state(enum task_state s)
{
	return s == TS_PREEMPTED || s == TS_NODE_FAIL || s == TS_REQUEUED;
}

/* Orders runs of one task: not started yet last, then by start, submit, REQUEUED first. */
static int cmp_run(const void *a, const void *b)
{
	const struct acct_rec *x = *(const struct acct_rec *const *)a;
	const struct acct_rec *y = *(const struct acct_rec *const *)b;

	if (x->array_job_id != y->array_job_id)
		return x->array_job_id < y->array_job_id ? -1 : 1;
	if (x->array_task_id != y->array_task_id)
		return x->array_task_id < y->array_task_id ? -1 : 1;
	if ((x->start_time == 0) != (y->start_time == 0))
		return x->start_time == 0 ? 1 : -1;
	if (x->start_time != y->start_time)
		return x->start_time < y->start_time ? -1 : 1;
	if (x->submit_time != y->submit_time)
		return x->submit_time < y->submit_time ? -1 : 1;
	if ((x->state == TS_REQUEUED) != (y->state == TS_REQUEUED))
		return x->state == TS_REQUEUED ? -1 : 1;
	return 0;
}

static bool counts_when_earlier(enum task_state s)
{
	/* A run that finished, hit its limit or never ran was not cut short by a failure. */
	return s != TS_COMPLETED && s != TS_TIMEOUT && !task_state_is_queued(s) && s != TS_MISSING;
}

void advise_estimate_mtbf(struct advise_mtbf *out, const struct acct_set *set)
{
	const struct acct_rec **runs = xcalloc(set->n ? set->n : 1, sizeof(*runs));
	size_t n = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < set->n; i++)
		if (set->recs[i].array_task_id != ACCT_NO_TASK &&
		    set->recs[i].step_index == ACCT_NO_STEP)
			runs[n++] = &set->recs[i];
	qsort(runs, n, sizeof(*runs), cmp_run);
	for (size_t i = 0; i < n; i++) {
		const struct acct_rec *rec = runs[i];
		bool earlier = i + 1 < n && runs[i + 1]->array_job_id == rec->array_job_id &&
		               runs[i + 1]->array_task_id == rec->array_task_id;

		if (rec->start_time || rec->elapsed_s)
			out->runs++;
		out->run_s += (double)rec->elapsed_s;
		if (rec->state == TS_TIMEOUT)
			out->timeouts++;
		if (is_interruption_state(rec->state) ||
		    (earlier && counts_when_earlier(rec->state))) {
			out->interruptions++;
			out->by_state[rec->state]++;
		}
	}
	free(runs);
	out->has_estimate = out->interruptions > 0 && out->run_s > 0;
	if (out->has_estimate)
		out->mtbf_s = out->run_s / (double)out->interruptions;
}

/* The table. */

void advise_report_init(struct advise_report *r)
{
	memset(r, 0, sizeof(*r));
	r->seed = ADVISE_DEFAULT_SEED;
}

void advise_report_release(struct advise_report *r)
{
	free(r->rows);
	r->rows = NULL;
	r->nrows = 0;
	r->has_table = false;
}

static const double factors[] = {0.25, 0.5, 0.75, 1, 1.5, 2, 4};

/* By interval, "no checkpoint" last. */
static int cmp_row(const void *a, const void *b)
{
	const struct advise_row *x = a, *y = b;

	if ((x->interval_s == 0) != (y->interval_s == 0))
		return x->interval_s == 0 ? 1 : -1;
	return x->interval_s < y->interval_s ? -1 : x->interval_s > y->interval_s;
}

static void fill_row(struct advise_row *row, const struct advise_report *r)
{
	const struct advise_params *p = &r->params;
	struct advise_segments seg;

	advise_split(&seg, p->work_s, row->interval_s);
	row->checkpoints = seg.checkpoints;
	row->expected_s = advise_expected(p, row->interval_s);
	row->overhead = (row->expected_s - p->work_s) / p->work_s;
	/* The same seed for every row: common random numbers make rows easier to compare. */
	advise_simulate(&row->mc, p, row->interval_s, ADVISE_MC_RUNS, r->seed);
}

void advise_build(struct advise_report *r)
{
	const struct advise_params *p = &r->params;
	size_t nf = sizeof(factors) / sizeof(factors[0]), n = 0;

	advise_report_release(r);
	if (!(p->mtbf_s > 0))
		return;
	r->young_s = advise_young(p->cost_s, p->mtbf_s);
	r->daly_s = advise_daly(p->cost_s, p->mtbf_s);
	r->best_s = advise_best_interval(p, &r->best_segments);
	r->rows = xcalloc(nf + 2, sizeof(*r->rows));
	for (size_t i = 0; i < nf; i++) {
		r->rows[n].label = factors[i] == 1 ? "Young" : NULL;
		r->rows[n].factor = factors[i];
		r->rows[n++].interval_s = factors[i] * r->young_s;
	}
	if (r->best_s > 0) {
		r->rows[n].label = "best";
		r->rows[n++].interval_s = r->best_s;
	}
	r->rows[n++].label = "none";
	for (size_t i = 0; i < n; i++)
		fill_row(&r->rows[i], r);
	qsort(r->rows, n, sizeof(*r->rows), cmp_row);
	r->nrows = n;
	r->has_table = true;
}

/* Printers. */

/* Seconds: "0.3s", "7.5s", "3s", "42s". */
