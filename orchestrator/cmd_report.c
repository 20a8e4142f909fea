/*
 * sweep report: store (what was asked) + accounting (what Slurm did, one
 * query) -> one outcome per task -> result files -> the gate -> statistics
 * -> a printer. The statistics are printed only when every task passed the
 * gate, or with --allow-incomplete, and then with the gaps marked.
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
#include "cli.h"
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
#include "result.h"
#include "sbopt.h"
#include "stats.h"
#include "store.h"
#include "strbuf.h"
#include "units.h"

#include "banned.h"

static const char usage[] = "sweep report [options] [SWEEP]";
static const char options[] =
    "SWEEP is a sweep's name or id (default: the most recent sweep).\n"
    "\n"
    "options:\n"
    "  --metric NAME        report this metric (repeatable; default: every numeric key\n"
    "                       found in the result files)\n"
    "  --goal METRIC=max|min[,...]\n"
    "                       name the best setting of METRIC and test the others\n"
    "                       against it (Welch's t-test, Holm's correction); adds to\n"
    "                       and overrides the sweep file's `metrics:` goals\n"
    "  --top N              show the N best settings by the first metric with a goal,\n"
    "                       best first (a sampled sweep is always shown best first)\n"
    "  --plot FILE          also draw per metric the mean with its 95% CI against one\n"
    "                       parameter, into FILE (.png, .svg or .pdf)\n"
    "  --x PARAM            the parameter along x (default: the first that varies)\n"
    "  --logx               a logarithmic x axis (default: when the values are positive\n"
    "                       and span more than a factor 100)\n"
    "  --curves FILE        with --plot: draw learning curves instead of the statistics,\n"
    "                       from the JSON Lines file FILE of every task (relative to\n"
    "                       its task folder $SWEEP_TASK_DIR; may hold {index}, {seed},\n"
    "                       {setting} and parameter names): per setting the mean over\n"
    "                       seeds with a band of ±1 std, over the steps every seed\n"
    "                       reached. A task whose run failed or whose curve file is\n"
    "                       missing is listed, and nothing drawn (exit 3)\n"
    "  --step KEY           the step key of the curve files (default: step)\n"
    "  --json               print JSON\n"
    "  --csv                print CSV\n"
    "  --digits N           print the std to N significant digits, the mean and CI to\n"
    "                       the same place (default: 2, or 3 when the std starts with\n"
    "                       a 1); JSON and CSV always have full precision\n"
    "  --allow-incomplete   print statistics over the tasks that passed, marking the\n"
    "                       settings that miss some and listing the excluded tasks\n"
    "  --refresh            read every record from Slurm accounting again, not the\n"
    "                       finished ones the state store kept\n"
    "  --state-dir DIR      the state folder (default $SWEEP_STATE_DIR or .sweep)\n"
    "  -h, --help           show this help\n"
    "\n"
    "exit status: 0 every task passed, 3 some task is missing or failed (the list is\n"
    "printed), 1 error, 2 usage.\n";

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
	int digits;
	bool refresh;
	size_t top; /* --top N; 0: every setting */
};

/* Returns CLI_CONTINUE to go on, or the exit code the command ends with. */
static int parse_options(struct report_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"metric", required_argument, NULL, 'm'},
	    {"goal", required_argument, NULL, 'g'},
	    {"plot", required_argument, NULL, 'p'},
	    {"x", required_argument, NULL, 'x'},
	    {"curves", required_argument, NULL, 'C'},
	    {"step", required_argument, NULL, 'S'},
	    {"logx", no_argument, NULL, 'l'},
	    {"json", no_argument, NULL, 'j'},
	    {"csv", no_argument, NULL, 'c'},
	    {"digits", required_argument, NULL, 'd'},
	    {"allow-incomplete", no_argument, NULL, 'a'},
	    {"refresh", no_argument, NULL, 'R'},
	    {"top", required_argument, NULL, 'T'},
	    {"state-dir", required_argument, NULL, 's'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	bool json = false, csv = false;
	enum draw_format format;
	int opt, code;

	cli_getopt_start();
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'm':
			if (!*optarg) {
				error("--metric needs a name");
				return cli_usage(stderr, usage, options);
			}
			ALLOC_GROW(o->metrics, o->nmetrics + 1, o->alloc);
			o->metrics[o->nmetrics++] = optarg;
			break;
		case 'g':
			if (compare_goals_parse(&o->goals, optarg) < 0)
				return cli_usage(stderr, usage, options);
			break;
		case 'p':
			if (draw_format_of(&format, optarg) < 0)
				return cli_usage(stderr, usage, options);
			o->plot = optarg;
			break;
		case 'x':
			o->x = optarg;
			break;
		case 'C':
			o->curves = optarg;
			break;
		case 'S':
			if (!*optarg) {
				error("--step needs a key");
				return cli_usage(stderr, usage, options);
			}
			o->step = optarg;
			break;
		case 'l':
			o->logx = true;
			break;
		case 'j':
			json = true;
			break;
		case 'c':
			csv = true;
			break;
		case 'd': {
			char *end;
			long n = strtol(optarg, &end, 10);

			if (end == optarg || *end || n < 1 || n > STATS_MAX_DIGITS) {
				error("--digits takes a whole number from 1 to %d, not '%s'",
				      STATS_MAX_DIGITS, optarg);
				return cli_usage(stderr, usage, options);
			}
			o->digits = (int)n;
			break;
		}
		case 'a':
			o->allow_incomplete = true;
			break;
		case 'R':
			o->refresh = true;
			break;
		case 'T': {
			char *end;
			long n = strtol(optarg, &end, 10);

			if (end == optarg || *end || n < 1 || n > INT32_MAX) {
				error("--top takes a whole number of 1 or more, not '%s'", optarg);
				return cli_usage(stderr, usage, options);
			}
			o->top = (size_t)n;
			break;
		}
		default:
			code =
			    cli_common_option(opt, &o->state_dir, argv, longopts, usage, options);
			if (code != CLI_CONTINUE)
				return code;
		}
	}
	if ((o->x || o->logx) && !o->plot) {
		error("--x and --logx go with --plot");
		return cli_usage(stderr, usage, options);
	}
	if ((o->curves || o->step) && !o->plot) {
		error("--curves and --step go with --plot");
		return cli_usage(stderr, usage, options);
	}
	if (o->curves && (o->x || o->logx)) {
		error("--x and --logx do not go with --curves: curves are drawn by step");
		return cli_usage(stderr, usage, options);
	}
	if (!o->step)
		o->step = "step";
	if (json && csv) {
		error("--json and --csv cannot be used together");
		return cli_usage(stderr, usage, options);
	}
	o->format = json ? FORMAT_JSON : csv ? FORMAT_CSV : FORMAT_TABLE;
	return cli_take_sweep(&o->which, argc, argv, usage, options);
}

/*
 * Where the tasks' metrics are: the sweep file's `results:` key, from the
 * sweep file as it was submitted (kept in the store).
 */
struct results_source {
	struct cfg cfg;
	char *workdir; /* the script's --chdir: where relative result files are */
	struct result_log_spec log;
	enum result_format format;
};

static int remember_chdir(void *data, const char *name, const char *value)
{
	char **workdir = data;

	(void)name;
	if (value) {
		free(*workdir);
		*workdir = xstrdup(value);
	}
	return 0;
}

static int source_load(struct results_source *src, struct store *st, const struct sweep_rec *rec)
{
	static const struct sbopt_name chdir_name[] = {{"chdir", 'D'}};
	const struct cfg_results *r = &src->cfg.results;
	const char **names = NULL, **patterns = NULL;
	struct strbuf script = STRBUF_INIT;
	char *spec = NULL;
	int ret;

	ret = store_load_spec(st, &spec, rec->id);
	if (ret < 0)
		return ret;
	if (!*spec) {
		/* Recorded without its sweep file: sweep's own result files. */
		free(spec);
		return result_log_spec_init(&src->log, NULL, NULL, 0);
	}
	ret = cfg_load_string(&src->cfg, rec->source ? rec->source : "the sweep file", spec,
	                      strlen(spec));
	free(spec);
	if (ret < 0)
		return error("cannot tell where sweep %" PRId64
		             "'s metrics are: its sweep file (above) "
		             "no longer reads",
		             rec->id);
	src->format = r->format == CFG_RESULTS_CSV     ? RESULT_CSV
	              : r->format == CFG_RESULTS_JSONL ? RESULT_JSONL
	                                               : RESULT_JSON;
	if (r->file && strcmp(r->file, CFG_SWEEP_RESULT) && r->file[0] != '/') {
		if (strbuf_read_file(&script, rec->script) < 0) {
			ret =
			    error("cannot read the script '%s': %s", rec->script, strerror(errno));
			goto out;
		}
		sbopt_read_script(script.buf, chdir_name, 1, remember_chdir, &src->workdir);
		if (!src->workdir) {
			ret = error("the script '%s' has no --chdir: cannot tell where '%s' is",
			            rec->script, r->file);
			goto out;
		}
	}
	names = xcalloc(r->nlog + 1, sizeof(*names));
	patterns = xcalloc(r->nlog + 1, sizeof(*patterns));
	for (size_t k = 0; k < r->nlog; k++) {
		names[k] = r->log[k].name;
		patterns[k] = r->log[k].pattern;
	}
	ret = result_log_spec_init(&src->log, names, patterns, r->nlog);
out:
	free(names);
	free(patterns);
	strbuf_release(&script);
	return ret;
}

static void source_release(struct results_source *src)
{
	cfg_release(&src->cfg);
	free(src->workdir);
	result_log_spec_release(&src->log);
}

/* Task i's results.file: its placeholders filled in, under the workdir when relative. */
static char *task_file(const struct results_source *src, const struct plan *plan, size_t i)
{
	struct strbuf sb = STRBUF_INIT;
	const char *file = src->cfg.results.file;
	struct placeholder_piece piece;
	size_t n;

	if (file[0] != '/')
		strbuf_addf(&sb, "%s/", src->workdir);
	for (const char *p = file; (n = placeholder_next(&piece, p)); p += n) {
		if (piece.kind == PLACEHOLDER_TEXT) {
			strbuf_add(&sb, piece.start, piece.len);
		} else if (piece.len == 4 && !strncmp(piece.start, "seed", 4)) {
			strbuf_addf(&sb, "%" PRId64, plan_seed_of(plan, i));
		} else if (piece.len == 5 && !strncmp(piece.start, "index", 5)) {
			strbuf_addf(&sb, "%zu", i);
		} else {
			for (size_t k = 0; k < plan->nparams; k++)
				if (strlen(plan->params[k]) == piece.len &&
				    !strncmp(plan->params[k], piece.start, piece.len))
					strbuf_addstr(
					    &sb, plan_value(plan, plan_setting_of(plan, i), k));
		}
	}
	return strbuf_detach(&sb, NULL);
}

/* Reads task i's result: its file (or none), then the metrics of its log. */
static void read_task_result(struct result *res, const struct results_source *src,
                             const struct sweep_rec *rec, const struct plan *plan, size_t i,
                             const struct task_outcome *o)
{
	const struct cfg_results *r = &src->cfg.results;
	char *path = NULL, *log;

	if (!r->given || (r->file && !strcmp(r->file, CFG_SWEEP_RESULT))) {
		path = result_path(rec->dir, i);
		result_read(res, path);
	} else if (r->file) {
		path = task_file(src, plan, i);
		result_read_format(res, path, src->format);
		res->file = xstrdup(path);
	} else {
		result_init_empty(res);
	}
	free(path);
	if (!r->nlog || res->status != RESULT_OK)
		return;
	log = outcome_log_path(rec->logs, rec->name, o->state, o->array_job_id, o->array_task_id);
	result_read_log(res, log, &src->log);
	free(log);
}

/* Reads the result of every task whose run passed; the others' are not looked at. */
static struct result *read_results(const struct results_source *src, const struct sweep_rec *rec,
                                   const struct plan *plan, const struct task_outcome *oc)
{
	struct result *results = xcalloc(plan->ntasks ? plan->ntasks : 1, sizeof(*results));

	for (size_t i = 0; i < plan->ntasks; i++) {
		result_init(&results[i]);
		if (oc[i].state != TS_COMPLETED || oc[i].exit_code || oc[i].signal)
			continue;
		read_task_result(&results[i], src, rec, plan, i, &oc[i]);
	}
	return results;
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

/*
 * The goals of the sweep file's `metrics:`, read from the text stored at
 * submission, then --goal's over them. A sweep file that no longer reads
 * (an older sweep) only costs its goals, with a warning.
 */
static void load_goals(struct compare_goals *out, struct store *st, const struct sweep_rec *rec,
                       const struct compare_goals *cli)
{
	char *text = NULL;
	struct cfg cfg;

	cfg_init(&cfg);
	if (store_load_spec(st, &text, rec->id) == 0 && *text) {
		if (cfg_load_string(&cfg, rec->source, text, strlen(text)) < 0)
			warning("the goals of the sweep file are left out: it no longer reads");
		for (size_t i = 0; i < cfg.nmetrics; i++)
			compare_goals_set(out, cfg.metrics[i].name,
			                  cfg.metrics[i].maximize ? GOAL_MAX : GOAL_MIN);
	}
	for (size_t i = 0; i < cli->n; i++)
		compare_goals_set(out, cli->items[i].name, cli->items[i].goal);
	cfg_release(&cfg);
	free(text);
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
	if (!ret)
		ret = draw_figure(&fig, o->plot);
	if (!ret)
		fprintf(stderr, "sweep: plot written to %s\n", o->plot);
	plot_figure_release(&fig);
	return ret;
}

/*
 * The learning curves of every task that passed the gate, averaged per
 * setting, into o->plot. A curve file that is missing or unusable fails
 * its task as the gate does: its reason is printed and *missing set;
 * without --allow-incomplete nothing is drawn.
 */
static int write_curves(const struct report_opts *o, const struct sweep_rec *rec,
                        const struct plan *plan, const struct task_outcome *outcomes, bool *missing)
{
	struct strbuf why = STRBUF_INIT;
	struct curve *curves = xcalloc(plan->ntasks + 1, sizeof(*curves));
	const struct curve **group = xcalloc(plan->nseeds + 1, sizeof(*group));
	size_t *nseeds = xcalloc(plan->nsettings + 1, sizeof(*nseeds));
	struct curve_band *bands = NULL;
	char **keys = NULL;
	size_t nkeys = 0, keys_alloc = 0, nbad = 0, nmetrics;
	const char *const *metrics;
	struct plot_figure fig;
	int ret = 0;

	plot_figure_init(&fig);
	for (size_t i = 0; i < plan->ntasks; i++) {
		char *task_dir = xstrfmt("%s/tasks/%zu", rec->dir, i), *path;

		curve_init(&curves[i]);
		ret = curve_path(&path, o->curves, task_dir, plan, i);
		free(task_dir);
		if (ret < 0)
			goto out;
		strbuf_reset(&why);
		if (!gate_run_failed(&why, &outcomes[i]) &&
		    curve_read(&curves[i], path, o->step) < 0)
			strbuf_addstr(&why, curves[i].error);
		free(path);
		if (why.len) {
			char *label = plan_setting_label(plan, plan_setting_of(plan, i));

			if (!nbad++)
				fprintf(stderr, "tasks without a usable curve:\n");
			fprintf(stderr, "  task %zu (%s, seed %lld): %s\n", i, label,
			        (long long)plan_seed_of(plan, i), why.buf);
			free(label);
			continue;
		}
		if (!o->nmetrics)
			curve_keys(&keys, &nkeys, &keys_alloc, &curves[i], o->step);
	}
	*missing = nbad > 0;
	if (nbad && !o->allow_incomplete) {
		ret = error("%zu of %zu tasks without a usable curve: no plot (--allow-incomplete "
		            "draws the seeds that have one)",
		            nbad, plan->ntasks);
		goto out;
	}
	metrics = o->nmetrics ? o->metrics : (const char *const *)keys;
	nmetrics = o->nmetrics ? o->nmetrics : nkeys;
	if (!nmetrics) {
		ret = error("no curve file holds a metric besides '%s'", o->step);
		goto out;
	}
	bands = xcalloc(plan->nsettings * nmetrics + 1, sizeof(*bands));
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
	{
		char *title = xstrfmt("sweep '%s': learning curves", rec->name);

		plot_from_curves(&fig, title, plan, metrics, nmetrics, bands, nseeds, o->step);
		free(title);
	}
	ret = draw_figure(&fig, o->plot);
	if (!ret)
		fprintf(stderr, "sweep: learning curves written to %s\n", o->plot);
	for (size_t b = 0; b < plan->nsettings * nmetrics; b++)
		curve_band_release(&bands[b]);
out:
	plot_figure_release(&fig);
	free(bands);
	for (size_t k = 0; k < nkeys; k++)
		free(keys[k]);
	free(keys);
	for (size_t i = 0; i < plan->ntasks; i++)
		curve_release(&curves[i]);
	free(curves);
	free(group);
	free(nseeds);
	strbuf_release(&why);
	return ret;
}

/* An extending sweep pools what it reused: say from which sweeps. */
static void print_reused(struct store *st, const struct sweep_rec *rec)
{
	struct reused_rec *reused = NULL;
	struct strbuf sb = STRBUF_INIT;
	int64_t *from;
	size_t n = 0;

	if (store_load_reused(st, &reused, &n, rec->id) < 0 || !n) {
		free(reused);
		return;
	}
	from = xcalloc(rec->ntasks ? rec->ntasks : 1, sizeof(*from));
	for (size_t k = 0; k < n; k++)
		if (reused[k].index < rec->ntasks)
			from[reused[k].index] = reused[k].from_sweep;
	extend_describe(&sb, from, rec->ntasks);
	printf("\n%s", sb.buf);
	strbuf_release(&sb);
	free(from);
	free(reused);
}

/* SWEEP_RESULT_MAX: the largest result file read, in sbatch's memory form ("64M"). */
static int set_result_limit(void)
{
	const char *env = getenv("SWEEP_RESULT_MAX"), *why;
	uint64_t mb;

	if (!env || !*env)
		return 0;
	if (units_parse_mem(&mb, env, &why) < 0 || mb > SIZE_MAX >> 20)
		return error("SWEEP_RESULT_MAX='%s' is not a size such as '64M': %s", env,
		             why ? why : "too large");
	result_set_max_bytes((size_t)mb << 20);
	return 0;
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o = {0};
	struct loaded_sweep l;
	struct result *results = NULL;
	struct gate_result gate;
	struct report rep;
	struct compare_goals goals;
	enum compare_goal *by_metric = NULL;
	bool curves_missing = false;
	struct results_source src;
	int ret = EXIT_ERROR, code;

	loaded_init(&l);
	gate_result_init(&gate);
	report_init(&rep);
	compare_goals_init(&o.goals);
	compare_goals_init(&goals);
	memset(&src, 0, sizeof(src));
	cfg_init(&src.cfg);

	code = parse_options(&o, argc, argv);
	if (code != CLI_CONTINUE) {
		ret = code;
		goto out;
	}
	if (set_result_limit() < 0)
		goto out;
	if (loaded_open(&l, cli_state_dir(o.state_dir), o.which) < 0 || loaded_plan(&l) < 0)
		goto out;
	if (l.rec.status != SWEEP_SUBMITTED)
		warning("sweep '%s' was not fully submitted (%s%s%s); tasks never submitted "
		        "show as missing",
		        l.rec.name, sweep_status_name(l.rec.status), l.rec.error ? ": " : "",
		        l.rec.error ? l.rec.error : "");
	/* States, exit codes and times are on the job records: no steps. */
	l.read.refresh = o.refresh;
	if (loaded_outcomes(&l) < 0)
		goto out;
	if (o.curves) {
		/* Curves stand for the result files: the gate is the run's and the curve's. */
		if (write_curves(&o, &l.rec, &l.plan, l.outcomes, &curves_missing) < 0)
			ret = curves_missing ? EXIT_INCOMPLETE : EXIT_ERROR;
		else
			ret = curves_missing ? EXIT_INCOMPLETE : EXIT_OK;
		goto out;
	}
	if (source_load(&src, l.st, &l.rec) < 0)
		goto out;
	results = read_results(&src, &l.rec, &l.plan, l.outcomes);

	gate_check(&gate, &l.plan, l.outcomes, results, o.metrics, o.nmetrics);
	if (o.nmetrics)
		check_metric_names(&gate, results, l.plan.ntasks);
	report_build(&rep, &l.plan, &gate, results);
	load_goals(&goals, l.st, &l.rec, &o.goals);
	by_metric = goals_by_metric(&goals, &gate);
	report_rank(&rep, by_metric);
	if (o.top && !report_ranked(&rep)) {
		error("--top needs a goal: --goal METRIC=max|min, or 'metrics:' in the sweep file");
		goto out;
	}
	/* Random search: the settings have no order of their own, best first is the one. */
	if (o.top || src.cfg.nsample)
		report_order(&rep, o.top);
	rep.name = l.rec.name;
	rep.id = l.rec.id;
	rep.logs = l.rec.logs;
	/* The hint names sweep's own result files only. */
	rep.dir = src.cfg.results.given ? NULL : l.rec.dir;
	rep.allow_incomplete = o.allow_incomplete;
	rep.digits = o.digits;
	switch (o.format) {
	case FORMAT_TABLE:
		report_print_table(stdout, &rep);
		print_reused(l.st, &l.rec);
		break;
	case FORMAT_JSON:
		report_print_json(stdout, &rep);
		break;
	case FORMAT_CSV:
		report_print_csv(stdout, &rep);
		break;
	}

	if (o.plot && (gate_complete(&gate) || o.allow_incomplete) &&
	    write_plot(&o, &rep, &src.cfg) < 0)
		goto out;

	ret = EXIT_OK;
	if (!gate_complete(&gate)) {
		ret = EXIT_INCOMPLETE;
		if (o.allow_incomplete)
			warning("%zu of %zu tasks missing or failed; the statistics exclude them",
			        gate.nfailures, gate.ntasks);
		else
			warning("%zu of %zu tasks missing or failed; no statistics until every "
			        "task passed (--allow-incomplete reports what exists)",
			        gate.nfailures, gate.ntasks);
	}
out:
	free(by_metric);
	compare_goals_release(&goals);
	compare_goals_release(&o.goals);
	source_release(&src);
	report_release(&rep);
	gate_result_release(&gate);
	results_free(results, l.plan.ntasks);
	loaded_release(&l);
	free(o.metrics);
	return ret;
}
