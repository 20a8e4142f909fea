/*
 * The printers of checkpoint advice (advise.h is the model): the observed
 * interruptions, the table of intervals, and JSON.
 */
#include "advise_print.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "strbuf.h"
#include "table.h"
#include "units.h"

#include "banned.h"

static void format_seconds(char *buf, size_t size, double s)
{
	if (s < 9.95 && fabs(s - round(s)) >= 0.05)
		snprintf(buf, size, "%.1fs", s);
	else
		snprintf(buf, size, "%.0fs", s);
}

static void format_duration(char *buf, size_t size, double s)
{
	if (!isfinite(s))
		snprintf(buf, size, "forever");
	else if (s >= 10000 * 86400.0)
		snprintf(buf, size, "%.3g years", s / ADVISE_YEAR_S);
	else if (s < 60)
		format_seconds(buf, size, s);
	else
		units_format_time(buf, size, (uint64_t)llround(s));
}

static void print_observed(FILE *f, const struct advise_report *r)
{
	const struct advise_mtbf *o = r->observed;
	char run[64], mtbf[64];
	bool first = true;

	format_duration(run, sizeof(run), o->run_s);
	if (!o->has_estimate) {
		fprintf(f,
		        "no interruption in %s of run time over %zu run%s of sweep %" PRId64
		        " '%s':\nthe MTBF is at least %s; that is a bound, not an estimate. "
		        "Give one with --mtbf.\n",
		        run, o->runs, output_plural(o->runs, "", "s"), r->sweep_id, r->sweep, run);
	} else {
		format_duration(mtbf, sizeof(mtbf), o->mtbf_s);
		fprintf(f,
		        "MTBF %s, estimated from sweep %" PRId64 " '%s': %s of run time over %zu "
		        "run%s, %zu interruption%s (",
		        mtbf, r->sweep_id, r->sweep, run, o->runs, output_plural(o->runs, "", "s"),
		        o->interruptions, output_plural(o->interruptions, "", "s"));
		for (int s = 0; s < TS_NSTATES; s++) {
			if (!o->by_state[s])
				continue;
			fprintf(f, "%s%zu %s", first ? "" : ", ", o->by_state[s],
			        task_state_name(s));
			first = false;
		}
		fprintf(f, ")\n");
		/* A Poisson count of k has a relative standard error of about 1/sqrt(k). */
		if (o->interruptions < 10)
			fprintf(f, "only %zu interruption%s: a rough estimate (about +-%.0f%%)\n",
			        o->interruptions, output_plural(o->interruptions, "", "s"),
			        100 / sqrt((double)o->interruptions));
	}
	if (o->timeouts)
		fprintf(f,
		        "%zu run%s hit the time limit (TIMEOUT): not counted, a time limit is "
		        "not a failure\n",
		        o->timeouts, output_plural(o->timeouts, "", "s"));
}

enum { COL_INTERVAL, COL_FACTOR, COL_CKPT, COL_EXPECTED, COL_MC, COL_OVERHEAD, COL_NOTE, NCOLS };

#define CELL 96

static void row_cells(char cells[NCOLS][CELL], const struct advise_row *row,
                      const struct advise_report *r)
{
	char mean[24], se[24], runs[24] = "";

	if (row->interval_s > 0)
		format_duration(cells[COL_INTERVAL], CELL, row->interval_s);
	else
		snprintf(cells[COL_INTERVAL], CELL, "none");
	if (row->interval_s > 0)
		snprintf(cells[COL_FACTOR], CELL, "%.3g", row->interval_s / r->young_s);
	else
		snprintf(cells[COL_FACTOR], CELL, "-");
	snprintf(cells[COL_CKPT], CELL, "%" PRIu64, row->checkpoints);
	format_duration(cells[COL_EXPECTED], CELL, row->expected_s);
	if (row->mc.done) {
		format_duration(mean, sizeof(mean), row->mc.mean_s);
		format_seconds(se, sizeof(se), row->mc.se_s);
		if (row->mc.runs < ADVISE_MC_RUNS)
			snprintf(runs, sizeof(runs), " (%zu runs)", row->mc.runs);
		snprintf(cells[COL_MC], CELL, "%s +- %s%s", mean, se, runs);
	} else {
		snprintf(cells[COL_MC], CELL, "too slow to simulate");
	}
	if (!isfinite(row->overhead))
		snprintf(cells[COL_OVERHEAD], CELL, "-");
	else if (row->overhead < 100)
		snprintf(cells[COL_OVERHEAD], CELL, "%.1f%%", 100 * row->overhead);
	else
		snprintf(cells[COL_OVERHEAD], CELL, "%.3g%%", 100 * row->overhead);
	if (!row->label)
		cells[COL_NOTE][0] = '\0';
	else if (!strcmp(row->label, "none"))
		snprintf(cells[COL_NOTE], CELL, "no checkpoint at all");
	else if (!strcmp(row->label, "best"))
		snprintf(cells[COL_NOTE], CELL, "best for this job");
	else
		snprintf(cells[COL_NOTE], CELL, "Young");
}

static void print_table(FILE *f, const struct advise_report *r)
{
	static const char *const heads[NCOLS] = {
	    "INTERVAL", "x YOUNG", "CHECKPOINTS", "EXPECTED", "MONTE CARLO", "OVERHEAD", ""};
	char cells[NCOLS][CELL];
	struct table t;

	table_init_head(&t, heads, NCOLS);
	table_align_right(&t, COL_OVERHEAD);
	for (size_t i = 0; i < r->nrows; i++) {
		row_cells(cells, &r->rows[i], r);
		for (int c = 0; c < NCOLS; c++)
			table_addstr(&t, cells[c]);
	}
	table_print(f, &t);
	table_release(&t);
}

void advise_print_text(FILE *f, const struct advise_report *r)
{
	const struct advise_params *p = &r->params;
	char work[64], cost[64], restart[64], mtbf[64], young[64], daly[64], best[64];

	format_duration(work, sizeof(work), p->work_s);
	format_duration(cost, sizeof(cost), p->cost_s);
	format_duration(restart, sizeof(restart), p->restart_s);
	fprintf(f, "work %s, checkpoint cost %s, restart cost %s\n", work, cost, restart);
	if (r->observed) {
		print_observed(f, r);
	} else {
		format_duration(mtbf, sizeof(mtbf), p->mtbf_s);
		fprintf(f, "MTBF %s (given)\n", mtbf);
	}
	if (!r->has_table)
		return;
	format_duration(young, sizeof(young), r->young_s);
	format_duration(daly, sizeof(daly), r->daly_s);
	fprintf(f, "\n%-48s %s\n", "optimal interval (Young, sqrt(2 x cost x MTBF))", young);
	fprintf(f, "%-48s %s\n", "Daly's higher-order refinement", daly);
	if (r->best_s > 0) {
		format_duration(best, sizeof(best), r->best_s);
		fprintf(f, "%-48s %s (%" PRIu64 " equal segments)\n",
		        "best for this job (exact, for this model)", best, r->best_segments);
	} else {
		fprintf(f, "%-48s no checkpoint at all\n",
		        "best for this job (exact, for this model)");
	}
	fprintf(f,
	        "\nexpected wall time (closed form) and Monte Carlo mean +- standard error\n"
	        "(%d simulated jobs, seed %" PRIu64 "); overhead = expected / work - 1\n\n",
	        ADVISE_MC_RUNS, r->seed);
	print_table(f, r);
	fprintf(f, "\nmodel: interruptions strike during work and checkpoints, not during "
	           "restarts; each one\nloses the work since the last checkpoint, then costs the "
	           "restart. The last segment\nwrites no checkpoint.\n");
}

static json_t *json_row(const struct advise_row *row, const struct advise_report *r)
{
	json_t *obj = json_object();
	bool has = row->interval_s > 0;

	json_object_set_new(obj, "interval_s", output_json_number_or_null(has, row->interval_s));
	json_object_set_new(obj, "factor",
	                    output_json_number_or_null(has, row->interval_s / r->young_s));
	json_object_set_new(obj, "label", row->label ? json_string(row->label) : json_null());
	json_object_set_new(obj, "checkpoints", json_integer((json_int_t)row->checkpoints));
	json_object_set_new(obj, "expected_s", output_json_number_or_null(true, row->expected_s));
	json_object_set_new(obj, "mc_mean_s",
	                    output_json_number_or_null(row->mc.done, row->mc.mean_s));
	json_object_set_new(obj, "mc_se_s", output_json_number_or_null(row->mc.done, row->mc.se_s));
	json_object_set_new(obj, "mc_runs", json_integer((json_int_t)row->mc.runs));
	json_object_set_new(obj, "overhead", output_json_number_or_null(true, row->overhead));
	return obj;
}

void advise_print_json(FILE *f, const struct advise_report *r)
{
	const struct advise_params *p = &r->params;
	const struct advise_mtbf *o = r->observed;
	json_t *root = json_object(), *rows = json_array(), *sweep = json_null();
	json_t *by_state = json_null();
	bool t = r->has_table;

	json_object_set_new(root, "work_s", json_real(p->work_s));
	json_object_set_new(root, "cost_s", json_real(p->cost_s));
	json_object_set_new(root, "restart_s", json_real(p->restart_s));
	json_object_set_new(root, "mtbf_s", output_json_number_or_null(p->mtbf_s > 0, p->mtbf_s));
	json_object_set_new(root, "mtbf_source", json_string(o ? "sweep" : "given"));
	if (o) {
		sweep = json_object();
		json_object_set_new(sweep, "id", json_integer(r->sweep_id));
		json_object_set_new(sweep, "name", json_string(r->sweep));
		by_state = json_object();
		for (int s = 0; s < TS_NSTATES; s++)
			if (o->by_state[s])
				json_object_set_new(by_state, task_state_name(s),
				                    json_integer((json_int_t)o->by_state[s]));
	}
	json_object_set_new(root, "sweep", sweep);
	json_object_set_new(root, "interruptions",
	                    o ? json_integer((json_int_t)o->interruptions) : json_null());
	json_object_set_new(root, "interruptions_by_state", by_state);
	json_object_set_new(root, "runs", o ? json_integer((json_int_t)o->runs) : json_null());
	json_object_set_new(root, "run_time_s",
	                    output_json_number_or_null(o != NULL, o ? o->run_s : 0));
	json_object_set_new(root, "timeouts",
	                    o ? json_integer((json_int_t)o->timeouts) : json_null());
	json_object_set_new(root, "mtbf_at_least_s",
	                    output_json_number_or_null(o && !o->has_estimate, o ? o->run_s : 0));
	json_object_set_new(root, "young_s", output_json_number_or_null(t, r->young_s));
	json_object_set_new(root, "daly_s", output_json_number_or_null(t, r->daly_s));
	json_object_set_new(root, "optimum_interval_s",
	                    output_json_number_or_null(t && r->best_s > 0, r->best_s));
	json_object_set_new(root, "optimum_segments",
	                    t ? json_integer((json_int_t)r->best_segments) : json_null());
	json_object_set_new(root, "seed", json_integer((json_int_t)r->seed));
	for (size_t i = 0; t && i < r->nrows; i++)
		json_array_append_new(rows, json_row(&r->rows[i], r));
	json_object_set_new(root, "rows", rows);
	output_json_print(f, root, JSON_INDENT(2));
}
