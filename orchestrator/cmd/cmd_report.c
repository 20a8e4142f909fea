/*
 * sweep report: the loaded sweep (loaded.h: the store's record and plan,
 * accounting's records in one query -> one outcome per task; the kept
 * sweep file parsed once and the reused tasks read once, for the whole
 * report) -> the verdict (result files, read within SWEEP_RESULT_MAX;
 * gate_passed, the one pass test) -> the gate -> statistics -> a printer.
 * The statistics are printed only when every task passed the gate, or
 * with --allow-incomplete, and then with the gaps marked.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct.h"
#include "backend.h"
#include "cfg.h"
#include "causes.h"
#include "cli.h"
#include "confirms.h"
#include "compare.h"
#include "curve.h"
#include "draw.h"
#include "error.h"
#include "extend.h"
#include "loaded.h"
#include "gate.h"
#include "plan.h"
#include "outcome.h"
#include "plot.h"
#include "placeholder.h"
#include "report.h"
#include "report_print.h"
#include "result.h"
#include "sbopt.h"
#include "stats.h"
#include "script_stage.h"
#include "store.h"
#include "strbuf.h"
#include "verdict.h"

#include "banned.h"

static const struct cli_option option_table[] = {
    {0, "metric", 'm', "NAME",
     "report this metric (repeatable; default: every numeric key\n"
     "found in the result files)"},
    {0, "goal", 'g', "METRIC=max|min[,...]",
     "name the best setting of METRIC and test the others\n"
     "against it (Welch's t-test, Holm's correction); adds to\n"
     "and overrides the sweep file's `metrics:` goals"},
    {0, "top", 'T', "N",
     "show the N best settings by the first metric with a goal,\n"
     "best first (a sampled sweep is always shown best first)"},
    {0, "plot", 'p', "FILE",
     "also draw per metric the mean with its 95% CI against one\n"
     "parameter, into FILE (.png, .svg or .pdf)"},
    {0, "x", 'x', "PARAM", "the parameter along x (default: the first that varies)"},
    {0, "logx", 'l', NULL,
     "a logarithmic x axis (default: when the values are positive\n"
     "and span more than a factor 100)"},
    {0, "curves", 'C', "FILE",
     "with --plot: draw learning curves instead of the statistics,\n"
     "from the JSON Lines file FILE of every task (relative to\n"
     "the folder submit ran in; may hold {task}, {sweep}, {seed},\n"
     "{setting}, {task_dir} and parameter names): per setting\n"
     "the mean over seeds with a band of ±1 std, over the steps\n"
     "every seed reached. A task whose run failed or whose curve file is\n"
     "missing is listed, and nothing drawn (exit 3)"},
    {0, "step", 'S', "KEY", "the step key of the curve files (default: step)"},
    {0, "title", 't', "TEXT", "with --plot: the figure's title instead of \"sweep 'NAME'\""},
    {0, "no-title", 'N', NULL, "with --plot: no title (the figure is that much shorter)"},
    CLI_OPT_JSON,
    {0, "csv", 'c', NULL, "print CSV"},
    {0, "digits", 'd', "N",
     "print the std to N significant digits, the mean and CI to\n"
     "the same place (default: 2, or 3 when the std starts with\n"
     "a 1); JSON and CSV always have full precision"},
    {0, "exclude", 'E', "NAME=VALUE[,NAME=VALUE...] --reason TEXT",
     "leave the settings with these values out of this and every\n"
     "later report of the sweep, recording why; the report says\n"
     "so under the table (repeatable)"},
    {0, "include", 'I', "NAME=VALUE[,...]", "forget an exclusion recorded by --exclude"},
    {0, "allow-incomplete", 'a', NULL,
     "print statistics over the tasks that passed, marking the\n"
     "settings that miss some and listing the excluded tasks"},
    CLI_OPT_REFRESH,
    CLI_OPT_STATE_DIR,
    CLI_OPT_HELP,
    {0, "reason", 'W', "VALUE", NULL},
    CLI_OPT_END,
};

static struct cli_command command = {
    .usage = "sweep report [options] [SWEEP]",
    .intro = "SWEEP is a sweep's name or id (default: the most recent sweep).\n"
             "\n",
    .options = option_table,
    .outro = "\n"
             "exit status: 0 every task passed, 3 some task is missing or failed (the list is\n"
             "printed), 1 error, 2 usage.\n",
};

enum format {
	FORMAT_TABLE,
	FORMAT_JSON,
	FORMAT_CSV,
};

struct report_opts {
	const char *state_dir;
	const char *which;
	const char **metrics;
	size_t nmetrics;
	size_t alloc;
	enum format format;
	bool allow_incomplete;
	struct compare_goals goals; /* from --goal */
	const char *plot;
	const char *curves;
	const char *step;
	const char *x;
	bool logx;
	const char *title; /* --title */
	bool no_title;     /* --no-title */
	int digits;
	bool refresh;
	size_t top;           /* --top N; 0: every setting */
	const char **exclude; /* --exclude selectors */
	size_t nexclude, exclude_alloc;
	const char *reason;  /* --reason */
	const char *include; /* --include */
};

/* Not an option take_checked knows. */
#define NOT_CHECKED (-101)

/* The options whose value is checked: CLI_CONTINUE, an exit code, or NOT_CHECKED. */
static int take_checked(struct report_opts *o, int opt)
{
	enum draw_format format;
	unsigned long long n;

	switch (opt) {
	case 'm':
		if (!*optarg) {
			error("--metric needs a name");
			return cli_usage(stderr, command.usage, command.help);
		}
		ALLOC_GROW(o->metrics, o->nmetrics + 1, o->alloc);
		o->metrics[o->nmetrics++] = optarg;
		return CLI_CONTINUE;
	case 'g':
		if (compare_goals_parse(&o->goals, optarg) < 0)
			return cli_usage(stderr, command.usage, command.help);
		return CLI_CONTINUE;
	case 'p':
		if (draw_format_of(&format, optarg) < 0)
			return cli_usage(stderr, command.usage, command.help);
		o->plot = optarg;
		return CLI_CONTINUE;
	case 'S':
		if (!*optarg) {
			error("--step needs a key");
			return cli_usage(stderr, command.usage, command.help);
		}
		o->step = optarg;
		return CLI_CONTINUE;
	case 't':
		if (!*optarg) {
			error("--title needs text (--no-title draws none)");
			return cli_usage(stderr, command.usage, command.help);
		}
		o->title = optarg;
		return CLI_CONTINUE;
	case 'd':
		if (cli_parse_whole(&n, "--digits", optarg, 1, STATS_MAX_DIGITS) < 0)
			return cli_usage(stderr, command.usage, command.help);
		o->digits = (int)n;
		return CLI_CONTINUE;
	case 'T':
		if (cli_parse_whole(&n, "--top", optarg, 1, INT32_MAX) < 0)
			return cli_usage(stderr, command.usage, command.help);
		o->top = (size_t)n;
		return CLI_CONTINUE;
	}
	return NOT_CHECKED;
}

/* The options taken as they are; false when opt is none of them. */
static bool take_plain(struct report_opts *o, int opt, bool *json, bool *csv)
{
	switch (opt) {
	case 'x':
		o->x = optarg;
		return true;
	case 'C':
		o->curves = optarg;
		return true;
	case 'l':
		o->logx = true;
		return true;
	case 'N':
		o->no_title = true;
		return true;
	case 'j':
		*json = true;
		return true;
	case 'c':
		*csv = true;
		return true;
	case 'a':
		o->allow_incomplete = true;
		return true;
	case 'R':
		o->refresh = true;
		return true;
	case 'E':
		ALLOC_GROW(o->exclude, o->nexclude + 1, o->exclude_alloc);
		o->exclude[o->nexclude++] = optarg;
		return true;
	case 'W':
		o->reason = optarg;
		return true;
	case 'I':
		o->include = optarg;
		return true;
	}
	return false;
}

/* What goes only with another option, or not with it, in words (free it); NULL: none. */
static char *misfit(const struct report_opts *o, bool json, bool csv)
{
	if ((o->x || o->logx) && !o->plot)
		return xstrdup("--x and --logx go with --plot");
	if ((o->title || o->no_title) && !o->plot)
		return xstrdup("--title and --no-title go with --plot");
	if (o->title && o->no_title)
		return xstrdup("--title and --no-title cannot be used together");
	if ((o->curves || o->step) && !o->plot)
		return xstrdup("--curves and --step go with --plot");
	if (o->curves && (o->x || o->logx))
		return xstrdup("--x and --logx do not go with --curves: curves are drawn by step");
	if (o->nexclude && (!o->reason || !*o->reason))
		return xstrfmt("--exclude needs --reason TEXT: say why '%s' is left out",
		               o->exclude[0]);
	if (o->reason && !o->nexclude)
		return xstrdup("--reason goes with --exclude");
	if (json && csv)
		return xstrdup("--json and --csv cannot be used together");
	return NULL;
}

/* Returns CLI_CONTINUE to go on, or the exit code the command ends with. */
static int parse_options(struct report_opts *o, int argc, char **argv)
{
	bool json = false, csv = false;
	char *why;
	int opt, code;

	cli_command_prepare(&command);
	while ((opt = getopt_long(argc, argv, command.shortopts, command.longopts, NULL)) != -1) {
		code = take_checked(o, opt);
		if (code == NOT_CHECKED)
			code = take_plain(o, opt, &json, &csv)
			           ? CLI_CONTINUE
			           : cli_common_option(opt, &o->state_dir, argv, command.longopts,
			                               command.usage, command.help);
		if (code != CLI_CONTINUE)
			return code;
	}
	why = misfit(o, json, csv);
	if (why) {
		error("%s", why);
		free(why);
		return cli_usage(stderr, command.usage, command.help);
	}
	if (!o->step)
		o->step = "step";
	o->format = json ? FORMAT_JSON : csv ? FORMAT_CSV : FORMAT_TABLE;
	return cli_take_sweep(&o->which, argc, argv, command.usage, command.help);
}

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

/* The goals of the sweep file's `metrics:` (cfg), then --goal's over them. */
static void load_goals(struct compare_goals *out, const struct cfg *cfg,
                       const struct compare_goals *cli)
{
	for (size_t i = 0; i < cfg->nmetrics; i++)
		if (cfg->metrics[i].has_goal)
			compare_goals_set(out, cfg->metrics[i].name,
			                  cfg->metrics[i].maximize ? GOAL_MAX : GOAL_MIN);
	for (size_t i = 0; i < cli->n; i++)
		compare_goals_set(out, cli->items[i].name, cli->items[i].goal);
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
static void apply_title(struct plot_figure *fig, const struct report_opts *o)
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
static int write_plot(const struct report_opts *o, const struct report *rep, const struct cfg *cfg)
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

/* Reads each task's curve; one missing or unusable is said on stderr and counted. */
static int read_curves(struct curve_set *cs, const struct report_opts *o,
                       const struct sweep_rec *rec, const struct plan *plan,
                       const struct task_outcome *outcomes, const char *workdir)
{
	struct strbuf why = STRBUF_INIT;
	struct curve *curves = cs->curves;
	int ret = 0;

	for (size_t i = 0; i < plan->ntasks; i++) {
		char *task_dir = xstrfmt("%s/tasks/%zu", rec->dir, i), *path;
		struct curve_where w = {workdir ? workdir : ".", task_dir, rec->id};

		curve_init(&curves[i]);
		ret = curve_path(&path, o->curves, &w, plan, i);
		free(task_dir);
		if (ret < 0)
			break;
		strbuf_reset(&why);
		/* The one pass test, with the curve standing for the result. */
		if (!gate_passed(&outcomes[i], NULL))
			gate_run_failed(&why, &outcomes[i]);
		else if (curve_read(&curves[i], path, o->step) < 0)
			strbuf_addstr(&why, curves[i].error);
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
static int write_curves(const struct report_opts *o, const struct sweep_rec *rec,
                        const struct plan *plan, const struct task_outcome *outcomes,
                        const struct cfg *cfg, bool *missing)
{
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
	if (o->curves[0] != '/' && verdict_workdir(&workdir, rec, o->curves) < 0) {
		ret = SWEEP_ERR;
		goto out;
	}
	ret = read_curves(&cs, o, rec, plan, outcomes, workdir);
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
		ret = error("no curve file holds a metric besides '%s'", o->step);
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
static void print_reused(struct loaded_sweep *l)
{
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

/* What report --exclude left out of a sweep: recorded, loaded and said. */
struct exclusions {
	struct exclusion_rec *recs;
	size_t n;
	struct report_exclusion *lines; /* for the printers; borrow from recs */
	unsigned char *excluded;        /* per setting */
};

static void exclusions_release(struct exclusions *x)
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
static int load_exclusions(struct exclusions *x, const struct report_opts *o,
                           struct loaded_sweep *l)
{
	unsigned char *named = xcalloc(l->plan.nsettings + 1, 1);
	bool found;
	int ret = 0;

	x->excluded = xcalloc(l->plan.nsettings + 1, 1);
	for (size_t i = 0; ret == 0 && i < o->nexclude; i++)
		if ((ret = plan_select(named, &l->plan, o->exclude[i])) >= 0)
			ret = store_add_exclusion(l->st, l->rec.id, o->exclude[i], o->reason);
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

/* Why the failed tasks failed, for the report to show and group (kept after the first read). */
struct report_causes {
	struct causes causes;
	const char **text, **group;
	bool *resource;
};

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
static void print_staging(const struct sweep_rec *rec, size_t ntasks)
{
	struct stage_note *notes = xcalloc(ntasks ? ntasks : 1, sizeof(*notes));

	if (script_stage_notes(notes, rec->dir, ntasks))
		script_stage_summary(stdout, notes, ntasks);
	free(notes);
}

/* The sweep, its plan and one outcome per task; warns of one not fully submitted. */
static int load_outcomes(struct loaded_sweep *l, const struct report_opts *o)
{
	if (loaded_open(l, cli_state_dir(o->state_dir), o->which) < 0 || loaded_plan(l) < 0)
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
static int report_curves(const struct report_opts *o, struct loaded_sweep *l)
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
static void describe_report(struct report *rep, const struct report_opts *o,
                            const struct sweep_rec *rec, const struct verdict *v)
{
	rep->name = rec->name;
	rep->id = rec->id;
	rep->logs = rec->logs;
	/* The hint names sweep's own result files only. */
	rep->dir = verdict_own_files(v) ? rec->dir : NULL;
	rep->allow_incomplete = o->allow_incomplete;
	rep->digits = o->digits;
}

static void print_report(const struct report_opts *o, const struct report *rep,
                         struct loaded_sweep *l, const struct exclusions *excl, bool stages)
{
	switch (o->format) {
	case FORMAT_TABLE:
		report_print_table(stdout, rep);
		print_reused(l);
		if (stages)
			print_staging(&l->rec, l->plan.ntasks);
		break;
	case FORMAT_JSON:
		report_print_json(stdout, rep);
		break;
	case FORMAT_CSV:
		report_print_csv(stdout, rep);
		for (size_t i = 0; i < excl->n; i++)
			warning("left out (report --exclude): %s: %s", excl->lines[i].selector,
			        excl->lines[i].reason);
		break;
	}
}

/* EXIT_OK, or EXIT_INCOMPLETE with a warning that says what it means. */
static int exit_code(const struct report_opts *o, const struct gate_result *gate)
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

int cmd_report(int argc, char **argv)
{
	char *provenance = NULL;
	struct report_opts o = {0};
	struct loaded_sweep l;
	struct verdict v;
	struct exclusions excl = {0};
	struct report rep;
	struct compare_goals goals;
	enum compare_goal *by_metric = NULL;
	const char **labels = NULL;
	struct report_causes rc;
	int ret = EXIT_ERROR, code;

	loaded_init(&l);
	verdict_init(&v);
	report_init(&rep);
	memset(&rc, 0, sizeof(rc));
	compare_goals_init(&o.goals);
	compare_goals_init(&goals);

	code = parse_options(&o, argc, argv);
	if (code != CLI_CONTINUE) {
		ret = code;
		goto out;
	}
	if (load_outcomes(&l, &o) < 0)
		goto out;
	if (o.curves) {
		ret = report_curves(&o, &l);
		goto out;
	}
	if (load_exclusions(&excl, &o, &l) < 0)
		goto out;
	v.excluded = excl.excluded;
	if (verdict_check_loaded(&v, &l, o.metrics, o.nmetrics) < 0)
		goto out;
	if (o.nmetrics)
		check_metric_names(&v.gate, v.results, v.ntasks);
	report_build(&rep, v.plan, &v.gate, v.results);
	rep.exclusions = excl.lines;
	rep.nexclusions = excl.n;
	load_goals(&goals, v.cfg, &o.goals);
	by_metric = goals_by_metric(&goals, &v.gate);
	labels = metric_labels(v.cfg, (const char *const *)v.gate.metrics, v.gate.nmetrics);
	rep.labels = labels;
	report_rank(&rep, by_metric);
	if (o.top && !report_ranked(&rep)) {
		error("--top needs a goal: --goal METRIC=max|min, or 'metrics:' in the sweep file");
		goto out;
	}
	/* Random search and confirm: the settings have no order of their own, best first is the one. */
	if (o.top || v.cfg->nsample || v.cfg->confirm_of)
		report_order(&rep, o.top);
	provenance = confirms_provenance(l.st, v.cfg, &l.plan);
	rep.provenance = provenance;
	describe_report(&rep, &o, &l.rec, &v);
	if (!gate_complete(&v.gate) && attach_causes(&rc, &rep, &l) < 0)
		goto out;
	/* The verdict read the sweep file already: `stage:` is in it. */
	print_report(&o, &rep, &l, &excl, v.cfg->nstage > 0);

	if (o.plot && (gate_complete(&v.gate) || o.allow_incomplete) &&
	    write_plot(&o, &rep, v.cfg) < 0)
		goto out;

	ret = exit_code(&o, &v.gate);
out:
	report_causes_release(&rc);
	free(by_metric);
	free(labels);
	compare_goals_release(&goals);
	compare_goals_release(&o.goals);
	free(provenance);
	report_release(&rep);
	verdict_release(&v);
	exclusions_release(&excl);
	loaded_release(&l);
	free(o.exclude);
	free(o.metrics);
	return ret;
}
