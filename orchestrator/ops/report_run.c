/*
 * report's operations (report_run.h). The statistics are built only to be
 * printed when every task passed the gate, or with --allow-incomplete, and
 * then with the gaps marked: the command decides with report_run_exit_code.
 */
#include "report_run.h"

#include <errno.h>
#include <inttypes.h>
#include <regex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg.h"
#include "confirms.h"
#include "curve.h"
#include "draw.h"
#include "error.h"
#include "extend.h"
#include "outcome.h"
#include "plan.h"
#include "plot.h"
#include "result.h"
#include "script_stage.h"
#include "strbuf.h"
#include "taskdir.h"

#include "banned.h"

/*
 * A metric that no result holds is most likely a typing mistake: say so,
 * with the metrics there are, rather than only listing every task as failed.
 */
static void check_metric_names(const struct gate_result *gate, const struct result *results,
                               size_t ntasks)
{
	const struct result *sample = NULL;

	for (size_t m = 0; m < gate->nmetrics; m++) {
		struct strbuf have = STRBUF_INIT;
		bool found = false;

		for (size_t i = 0; i < ntasks && !found; i++) {
			if (results[i].status != RESULT_OK)
				continue;
			if (!sample)
				sample = &results[i];
			found = result_find(&results[i], gate->metrics[m]) != NULL;
		}
		if (found || !sample)
			continue;
		for (size_t k = 0; k < sample->nentries; k++) {
			if (sample->entries[k].kind == RESULT_OTHER)
				continue;
			strbuf_addf(&have, "%s%s", have.len ? ", " : "", sample->entries[k].key);
		}
		warning("no result file has a metric '%s'; task %zu's has: %s", gate->metrics[m],
		        (size_t)(sample - results), have.len ? have.buf : "no numbers");
		strbuf_release(&have);
	}
}

/*
 * Per metric of metrics[0..n-1], its axis label from the sweep file
 * (`metrics: {loss: {label: ...}}`, borrowed from cfg) or NULL; the caller
 * frees the array.
 */
static const char **metric_labels(const struct cfg *cfg, const char *const *metrics, size_t n)
{
	const char **out = xcalloc(n + 1, sizeof(*out));

	for (size_t m = 0; m < n; m++)
		for (size_t i = 0; i < cfg->nmetrics; i++)
			if (!strcmp(cfg->metrics[i].name, metrics[m]))
				out[m] = cfg->metrics[i].label;
	return out;
}

/* --title or --no-title over the figure's own title. */
static void apply_title(struct plot_figure *fig, const struct report_request *o)
{
	if (o->title || o->no_title)
		plot_set_title(fig, o->title);
}

/* The goal of every metric of the gate; a goal for a metric not there is a warning. */
static enum compare_goal *goals_by_metric(const struct compare_goals *goals,
                                          const struct gate_result *gate)
{
	enum compare_goal *out = xcalloc(gate->nmetrics + 1, sizeof(*out));

	for (size_t m = 0; m < gate->nmetrics; m++)
		out[m] = compare_goals_get(goals, gate->metrics[m]);
	for (size_t i = 0; i < goals->n; i++) {
		size_t m = 0;

		while (m < gate->nmetrics && strcmp(gate->metrics[m], goals->items[i].name))
			m++;
		if (m == gate->nmetrics)
			warning("a goal for '%s', but no metric '%s' is reported: no best is named "
			        "for it",
			        goals->items[i].name, goals->items[i].name);
	}
	return out;
}

/*
 * A sampled sweep (cfg's `sample:`, the plan's first parameters) without
 * --x: one scatter per sampled parameter, log x for loguniform and log int.
 */
static int plot_sampled(struct plot_figure *fig, const struct report *rep, const struct cfg *cfg)
{
	bool *logx = xcalloc(cfg->nsample + 1, sizeof(*logx));
	int ret;

	for (size_t p = 0; p < cfg->nsample; p++)
		logx[p] = cfg->sample[p].kind == CFG_SAMPLE_LOGUNIFORM || cfg->sample[p].log;
	ret = plot_from_sampled(fig, rep, cfg->nsample, logx);
	free(logx);
	return ret;
}

/* Draws the figure of rep into o->plot; says where on stderr. */
static int write_plot(const struct report_request *o, const struct report *rep,
                      const struct cfg *cfg)
{
	struct plot_figure fig;
	size_t x;
	int ret;

	plot_figure_init(&fig);
	if (cfg->nsample && !o->x && !o->logx)
		ret = plot_sampled(&fig, rep, cfg);
	else if (!(ret = plot_choose_x(&x, rep->plan, o->x)))
		ret = plot_from_report(&fig, rep, x, o->logx);
	if (!ret) {
		apply_title(&fig, o);
		ret = draw_figure(&fig, o->plot);
	}
	if (!ret)
		fprintf(stderr, "sweep: plot written to %s\n", o->plot);
	plot_figure_release(&fig);
	return ret;
}

/* Every task's curve, and the metrics they hold (when --metric named none). */
struct curve_set {
	struct curve *curves; /* one per task */
	char **keys;
	size_t nkeys, keys_alloc;
	size_t nbad; /* tasks without a usable curve */
};

/* --curves log: the sweep file's results.step and results.log, compiled. */
struct curve_log_patterns {
	regex_t step;
	struct result_log_spec spec;
};

static int curve_log_patterns_init(struct curve_log_patterns *p, const struct cfg *cfg)
{
	const struct cfg_results *r = cfg ? &cfg->results : NULL;
	int ret;

	/* The sweep file reader checked the patterns: a kept file that does not read is the case.
	 */
	if (!r || !r->step || !r->nlog || regcomp(&p->step, r->step, REG_EXTENDED))
		return error(
		    "--curves log reads the task logs with the sweep file's 'results.step' "
		    "and 'results.log' patterns: the sweep file has none (or cannot be "
		    "read); add them, or give the JSON Lines file that holds the curves");
	ret = verdict_log_spec(&p->spec, r);
	if (ret < 0)
		regfree(&p->step);
	return ret;
}

static void curve_log_patterns_release(struct curve_log_patterns *p)
{
	regfree(&p->step);
	result_log_spec_release(&p->spec);
}

/*
 * Task's curve from its log (NULL: none yet) with p. As for its final
 * metrics (result_log.c's from_stderr): a metric its stdout log
 * ("...out") holds no point of is looked for in its stderr log (".err").
 */
static void read_curve_log(struct curve *c, const char *log, const struct curve_log_patterns *p)
{
	struct strbuf text = STRBUF_INIT;
	bool *only = xcalloc(p->spec.n + 1, sizeof(*only));
	size_t len = log ? strlen(log) : 0, nmissing = 0;
	char *errpath = NULL;

	if (!log) {
		c->error = xstrdup("the task has no log yet");
		goto out;
	}
	if (result_read_text(&text, log, true) < 0) {
		c->error = xstrfmt("cannot read its log %s: %s", log, result_read_error(errno));
		goto out;
	}
	curve_scan_log(c, text.buf, text.len, &p->step, &p->spec, NULL);
	for (size_t k = 0; k < p->spec.n; k++)
		nmissing += only[k] = !curve_has(c, p->spec.names[k]);
	if (nmissing && len >= 4 && !strcmp(log + len - 4, ".out")) {
		errpath = xstrfmt("%.*s.err", (int)(len - 4), log);
		strbuf_reset(&text);
		if (result_read_text(&text, errpath, true) == 0)
			curve_scan_log(c, text.buf, text.len, &p->step, &p->spec, only);
	}
	if (!c->n)
		c->error =
		    xstrfmt("no learning curve in %s%s%s: no metric's value after a line that "
		            "matches 'results.step'",
		            log, errpath ? " nor in " : "", errpath ? errpath : "");
out:
	strbuf_release(&text);
	free(errpath);
	free(only);
}

/*
 * Reads each task's curve (from its log when p); one missing or unusable
 * is said on stderr and counted.
 */
static int read_curves(struct curve_set *cs, const struct report_request *o,
                       const struct sweep_rec *rec, const struct plan *plan,
                       const struct task_outcome *outcomes, const char *workdir,
                       const struct curve_log_patterns *p)
{
	struct strbuf why = STRBUF_INIT;
	struct curve *curves = cs->curves;
	int ret = 0;

	for (size_t i = 0; i < plan->ntasks; i++) {
		const struct task_outcome *oc = &outcomes[i];
		char *task_dir = taskdir_path(rec->dir, rec->task_layout, i), *path = NULL;
		struct curve_where w = {workdir ? workdir : ".", task_dir, rec->id};

		curve_init(&curves[i]);
		if (!p)
			ret = curve_path(&path, o->curves, &w, plan, i);
		free(task_dir);
		if (ret < 0)
			break;
		strbuf_reset(&why);
		/* The one pass test, with the curve standing for the result. */
		if (!gate_passed(oc, NULL)) {
			gate_run_failed(&why, oc);
		} else if (p) {
			path = outcome_log_path(rec->logs, rec->name, oc->state, oc->array_job_id,
			                        oc->array_task_id);
			read_curve_log(&curves[i], path, p);
			if (curves[i].error)
				strbuf_addstr(&why, curves[i].error);
		} else if (curve_read(&curves[i], path, o->step) < 0) {
			strbuf_addstr(&why, curves[i].error);
		}
		free(path);
		if (why.len) {
			char *label = plan_setting_label(plan, plan_setting_of(plan, i));

			if (!cs->nbad++)
				fprintf(stderr, "tasks without a usable curve:\n");
			fprintf(stderr, "  task %zu (%s, seed %lld): %s\n", i, label,
			        (long long)plan_seed_of(plan, i), why.buf);
			free(label);
			continue;
		}
		if (!o->nmetrics)
			curve_keys(&cs->keys, &cs->nkeys, &cs->keys_alloc, &curves[i], o->step);
	}
	strbuf_release(&why);
	return ret;
}

/* Per setting and metric, the band of its seeds' curves (bands[s * nmetrics + m]). */
static void band_curves(struct curve_band *bands, size_t *nseeds, const struct curve *curves,
                        const struct plan *plan, const char *const *metrics, size_t nmetrics)
{
	const struct curve **group = xcalloc(plan->nseeds + 1, sizeof(*group));

	for (size_t s = 0; s < plan->nsettings; s++) {
		size_t n = 0;

		for (size_t k = 0; k < plan->nseeds; k++) {
			size_t i = s * plan->nseeds + k;

			if (curves[i].n && !curves[i].error)
				group[n++] = &curves[i];
		}
		nseeds[s] = n;
		for (size_t m = 0; m < nmetrics; m++)
			curve_band(&bands[s * nmetrics + m], group, n, metrics[m]);
	}
	free(group);
}

/*
 * The learning curves of every task that passed the gate, averaged per
 * setting, into o->plot. A curve file that is missing or unusable fails
 * its task as the gate does: its reason is printed and *missing set;
 * without --allow-incomplete nothing is drawn.
 */
static int write_curves(const struct report_request *o, const struct sweep_rec *rec,
                        const struct plan *plan, const struct task_outcome *outcomes,
                        const struct cfg *cfg, bool *missing)
{
	struct curve_log_patterns patterns, *p = NULL;
	struct curve_set cs = {0};
	size_t *nseeds = xcalloc(plan->nsettings + 1, sizeof(*nseeds));
	struct curve_band *bands = NULL;
	size_t nmetrics = 0;
	const char *const *metrics;
	struct plot_figure fig;
	char *workdir = NULL, *title;
	const char **labels;
	int ret = 0;

	cs.curves = xcalloc(plan->ntasks + 1, sizeof(*cs.curves));
	plot_figure_init(&fig);
	if (!strcmp(o->curves, REPORT_CURVES_LOG)) {
		if (curve_log_patterns_init(&patterns, cfg) < 0) {
			ret = SWEEP_ERR;
			goto out;
		}
		p = &patterns;
	} else if (o->curves[0] != '/' && verdict_workdir(&workdir, rec, o->curves) < 0) {
		ret = SWEEP_ERR;
		goto out;
	}
	ret = read_curves(&cs, o, rec, plan, outcomes, workdir, p);
	if (ret < 0)
		goto out;
	*missing = cs.nbad > 0;
	if (cs.nbad && !o->allow_incomplete) {
		ret = error("%zu of %zu tasks without a usable curve: no plot (--allow-incomplete "
		            "draws the seeds that have one)",
		            cs.nbad, plan->ntasks);
		goto out;
	}
	metrics = o->nmetrics ? o->metrics : (const char *const *)cs.keys;
	nmetrics = o->nmetrics ? o->nmetrics : cs.nkeys;
	if (!nmetrics) {
		ret = p ? error("no task log holds a point of a metric")
		        : error("no curve file holds a metric besides '%s'", o->step);
		goto out;
	}
	bands = xcalloc(plan->nsettings * nmetrics + 1, sizeof(*bands));
	band_curves(bands, nseeds, cs.curves, plan, metrics, nmetrics);
	title = xstrfmt("sweep '%s': learning curves", rec->name);
	labels = metric_labels(cfg, metrics, nmetrics);
	plot_from_curves(&fig, title, plan, metrics, labels, nmetrics, bands, nseeds, o->step);
	free(labels);
	free(title);
	apply_title(&fig, o);
	ret = draw_figure(&fig, o->plot);
	if (!ret)
		fprintf(stderr, "sweep: learning curves written to %s\n", o->plot);
	for (size_t b = 0; b < plan->nsettings * nmetrics; b++)
		curve_band_release(&bands[b]);
out:
	if (p)
		curve_log_patterns_release(p);
	plot_figure_release(&fig);
	free(bands);
	for (size_t k = 0; k < cs.nkeys; k++)
		free(cs.keys[k]);
	free(cs.keys);
	for (size_t i = 0; i < plan->ntasks; i++)
		curve_release(&cs.curves[i]);
	free(cs.curves);
	free(nseeds);
	free(workdir);
	return ret;
}

/* An extending sweep pools what it reused: say from which sweeps. */
void report_run_print_reused(struct report_run *r)
{
	struct loaded_sweep *l = &r->l;
	const struct sweep_rec *rec = &l->rec;
	const struct reused_rec *reused;
	struct strbuf sb = STRBUF_INIT;
	int64_t *from;
	size_t n;

	if (loaded_reused(&reused, &n, l) < 0 || !n)
		return;
	from = xcalloc(rec->ntasks ? rec->ntasks : 1, sizeof(*from));
	for (size_t k = 0; k < n; k++)
		if (reused[k].index < rec->ntasks)
			from[reused[k].index] = reused[k].from_sweep;
	extend_describe(&sb, from, rec->ntasks);
	printf("\n%s", sb.buf);
	strbuf_release(&sb);
	free(from);
}

static void report_exclusions_release(struct report_exclusions *x)
{
	exclusion_recs_free(x->recs, x->n);
	free(x->lines);
	free(x->excluded);
	memset(x, 0, sizeof(*x));
}

/*
 * Records --exclude's selectors (each checked against the plan) and
 * forgets --include's, then loads every recorded exclusion of the sweep.
 */
static int load_exclusions(struct report_exclusions *x, const struct report_request *o,
                           struct loaded_sweep *l)
{
	unsigned char *named = xcalloc(l->plan.nsettings + 1, 1);
	bool found;
	int ret = 0;

	x->excluded = xcalloc(l->plan.nsettings + 1, 1);
	for (size_t i = 0; ret == 0 && i < o->nexclude; i++)
		if ((ret = plan_select(named, &l->plan, o->exclude[i])) >= 0 &&
		    (ret = store_add_exclusion(l->st, l->rec.id, o->exclude[i], o->reason)) == 0)
			/* Kept, not for this report only: say so the first time. */
			fprintf(stderr,
			        "sweep: recorded: '%s' is left out of this and every later report of "
			        "sweep %" PRId64 " ('sweep report %" PRId64 " --include %s' brings it "
			        "back)\n",
			        o->exclude[i], l->rec.id, l->rec.id, o->exclude[i]);
	if (ret == 0 && o->include &&
	    (ret = store_remove_exclusion(l->st, &found, l->rec.id, o->include)) == 0 && !found)
		ret = error("sweep %" PRId64 " has no exclusion '%s' (report --json lists them)",
		            l->rec.id, o->include);
	if (ret == 0)
		ret = store_load_exclusions(l->st, &x->recs, &x->n, l->rec.id);
	x->lines = xcalloc(x->n + 1, sizeof(*x->lines));
	for (size_t i = 0; ret == 0 && i < x->n; i++) {
		int n = plan_select(named, &l->plan, x->recs[i].selector);

		if (n < 0) {
			ret = n;
			break;
		}
		for (size_t s = 0; s < l->plan.nsettings; s++)
			x->excluded[s] |= named[s];
		x->lines[i] = (struct report_exclusion){x->recs[i].selector, x->recs[i].reason,
		                                        (size_t)n, x->recs[i].created_at};
	}
	if (ret == 0 && x->n && !memchr(x->excluded, 0, l->plan.nsettings))
		ret = error("the exclusions leave no setting of sweep %" PRId64
		            " (--include SELECTOR forgets one)",
		            l->rec.id);
	free(named);
	return ret < 0 ? ret : 0;
}

static int attach_causes(struct report_causes *rc, struct report *rep, const struct loaded_sweep *l)
{
	if (causes_load(&rc->causes, l->st, &l->rec, l->outcomes, l->plan.ntasks) < 0)
		return SWEEP_ERR;
	causes_views(&rc->text, &rc->group, &rc->resource, &rc->causes);
	rep->cause_text = rc->text;
	rep->cause_group = rc->group;
	rep->cause_resource = rc->resource;
	return 0;
}

static void report_causes_release(struct report_causes *rc)
{
	causes_release(&rc->causes);
	free(rc->text);
	free(rc->group);
	free(rc->resource);
}

/* The staging line of a sweep with `stage:`, as status prints it. */
void report_run_print_staging(const struct sweep_rec *rec, size_t ntasks)
{
	struct stage_note *notes = xcalloc(ntasks ? ntasks : 1, sizeof(*notes));

	if (script_stage_notes(notes, rec->dir, rec->task_layout, ntasks))
		script_stage_summary(stdout, notes, ntasks);
	free(notes);
}

/* The sweep, its plan and one outcome per task; warns of one not fully submitted. */
static int load_outcomes(struct loaded_sweep *l, const struct report_request *o)
{
	if (loaded_open(l, o->state_dir, o->which) < 0 || loaded_plan(l) < 0)
		return SWEEP_ERR;
	if (l->rec.status != SWEEP_SUBMITTED)
		warning("sweep '%s' was not fully submitted (%s%s%s); tasks never submitted "
		        "show as missing",
		        l->rec.name, sweep_status_name(l->rec.status), l->rec.error ? ": " : "",
		        l->rec.error ? l->rec.error : "");
	/* States, exit codes and times are on the job records: no steps. */
	l->read.refresh = o->refresh;
	return loaded_outcomes(l);
}

/* --curves: the learning curves instead of the report; the exit code. */
static int report_curves(const struct report_request *o, struct loaded_sweep *l)
{
	const struct cfg *cfg;
	bool missing = false;
	int ret;

	/*
	 * Curves stand for the result files: the gate is the run's and the
	 * curve's. A kept sweep file that does not read costs the axis labels.
	 */
	loaded_sweepfile(&cfg, l, LOADED_WARN);
	ret = write_curves(o, &l->rec, &l->plan, l->outcomes, cfg, &missing);
	if (missing)
		return EXIT_INCOMPLETE;
	return ret < 0 ? EXIT_ERROR : EXIT_OK;
}

/* What the printers say of the sweep besides its statistics. */
static void describe_report(struct report *rep, const struct report_request *o,
                            const struct sweep_rec *rec, const struct verdict *v)
{
	rep->name = rec->name;
	rep->id = rec->id;
	rep->logs = rec->logs;
	/* The hint names sweep's own result files only. */
	rep->dir = verdict_own_files(v) ? rec->dir : NULL;
	rep->task_layout = rec->task_layout;
	rep->allow_incomplete = o->allow_incomplete;
	rep->digits = o->digits;
}

/* EXIT_OK, or EXIT_INCOMPLETE with a warning that says what it means. */
int report_run_exit_code(const struct report_request *o, const struct gate_result *gate)
{
	if (gate_complete(gate))
		return EXIT_OK;
	if (o->allow_incomplete)
		warning("%zu of %zu tasks missing or failed; the statistics exclude them",
		        gate->nfailures, gate->ntasks);
	else
		warning("%zu of %zu tasks missing or failed; no statistics until every "
		        "task passed (--allow-incomplete reports what exists)",
		        gate->nfailures, gate->ntasks);
	return EXIT_INCOMPLETE;
}

void report_run_init(struct report_run *r)
{
	memset(r, 0, sizeof(*r));
	loaded_init(&r->l);
	verdict_init(&r->v);
	report_init(&r->rep);
	compare_goals_init(&r->goals);
}

void report_run_release(struct report_run *r)
{
	report_causes_release(&r->rc);
	free(r->by_metric);
	free(r->labels);
	compare_goals_release(&r->goals);
	free(r->provenance);
	report_release(&r->rep);
	verdict_release(&r->v);
	report_exclusions_release(&r->excl);
	loaded_release(&r->l);
}

int report_run_load(struct report_run *r, const struct report_request *q)
{
	return load_outcomes(&r->l, q);
}

int report_run_curves(struct report_run *r, const struct report_request *q)
{
	return report_curves(q, &r->l);
}

int report_run_build(struct report_run *r, const struct report_request *q)
{
	struct verdict *v = &r->v;
	struct report *rep = &r->rep;

	if (load_exclusions(&r->excl, q, &r->l) < 0)
		return SWEEP_ERR;
	v->excluded = r->excl.excluded;
	v->step_key = q->step;
	if (verdict_check_loaded(v, &r->l, q->metrics, q->nmetrics) < 0)
		return SWEEP_ERR;
	if (q->nmetrics)
		check_metric_names(&v->gate, v->results, v->ntasks);
	report_build(rep, v->plan, &v->gate, v->results);
	rep->exclusions = r->excl.lines;
	rep->nexclusions = r->excl.n;
	verdict_goals(&r->goals, v, q->goals);
	r->by_metric = goals_by_metric(&r->goals, &v->gate);
	r->labels = metric_labels(v->cfg, (const char *const *)v->gate.metrics, v->gate.nmetrics);
	rep->labels = r->labels;
	report_rank(rep, r->by_metric);
	if (q->top && !report_ranked(rep))
		return error(
		    "--top needs a goal: --goal METRIC=max|min, or 'metrics:' in the sweep "
		    "file");
	/* Random search and confirm: the settings have no order of their own, best first is the
	 * one. */
	if (q->top || v->cfg->nsample || v->cfg->confirm_of)
		report_order(rep, q->top);
	r->provenance = confirms_provenance(r->l.st, v->cfg, &r->l.plan);
	rep->provenance = r->provenance;
	describe_report(rep, q, &r->l.rec, v);
	if (!gate_complete(&v->gate) && attach_causes(&r->rc, rep, &r->l) < 0)
		return SWEEP_ERR;
	return 0;
}

int report_run_plot(const struct report_run *r, const struct report_request *q)
{
	return write_plot(q, &r->rep, r->v.cfg);
}
