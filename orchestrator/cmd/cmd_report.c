/*
 * sweep report: options -> the operations of report_run.h (the loaded
 * sweep -> the verdict -> the gate -> statistics) -> a printer
 * (report_print.h) and the plot.
 * The statistics are printed only when every task passed the gate, or
 * with --allow-incomplete, and then with the gaps marked.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "compare.h"
#include "draw.h"
#include "error.h"
#include "gate.h"
#include "report_print.h"
#include "report_run.h"
#include "stats.h"
#include "strbuf.h"

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
    "                       the folder submit ran in; may hold {task}, {sweep}, {seed},\n"
    "                       {setting}, {task_dir} and parameter names): per setting\n"
    "                       the mean over seeds with a band of ±1 std, over the steps\n"
    "                       every seed reached. A task whose run failed or whose curve file is\n"
    "                       missing is listed, and nothing drawn (exit 3)\n"
    "  --step KEY           the step key of the curve files (default: step)\n"
    "  --title TEXT         with --plot: the figure's title instead of \"sweep 'NAME'\"\n"
    "  --no-title           with --plot: no title (the figure is that much shorter)\n"
    "  --json               print JSON\n"
    "  --csv                print CSV\n"
    "  --digits N           print the std to N significant digits, the mean and CI to\n"
    "                       the same place (default: 2, or 3 when the std starts with\n"
    "                       a 1); JSON and CSV always have full precision\n"
    "  --exclude NAME=VALUE[,NAME=VALUE...] --reason TEXT\n"
    "                       leave the settings with these values out of this and every\n"
    "                       later report of the sweep, recording why; the report says\n"
    "                       so under the table (repeatable)\n"
    "  --include NAME=VALUE[,...]\n"
    "                       forget an exclusion recorded by --exclude\n"
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

/* A whole number from min to max in arg (all of it). */
static int parse_whole(long *out, const char *arg, long min, long max)
{
	char *end;
	long n = strtol(arg, &end, 10);

	if (end == arg || *end || n < min || n > max)
		return -1;
	*out = n;
	return 0;
}

/* The options whose value is checked: CLI_CONTINUE, an exit code, or NOT_CHECKED. */
static int take_checked(struct report_opts *o, int opt)
{
	enum draw_format format;
	long n;

	switch (opt) {
	case 'm':
		if (!*optarg) {
			error("--metric needs a name");
			return cli_usage(stderr, usage, options);
		}
		ALLOC_GROW(o->metrics, o->nmetrics + 1, o->alloc);
		o->metrics[o->nmetrics++] = optarg;
		return CLI_CONTINUE;
	case 'g':
		if (compare_goals_parse(&o->goals, optarg) < 0)
			return cli_usage(stderr, usage, options);
		return CLI_CONTINUE;
	case 'p':
		if (draw_format_of(&format, optarg) < 0)
			return cli_usage(stderr, usage, options);
		o->plot = optarg;
		return CLI_CONTINUE;
	case 'S':
		if (!*optarg) {
			error("--step needs a key");
			return cli_usage(stderr, usage, options);
		}
		o->step = optarg;
		return CLI_CONTINUE;
	case 't':
		if (!*optarg) {
			error("--title needs text (--no-title draws none)");
			return cli_usage(stderr, usage, options);
		}
		o->title = optarg;
		return CLI_CONTINUE;
	case 'd':
		if (parse_whole(&n, optarg, 1, STATS_MAX_DIGITS) < 0) {
			error("--digits takes a whole number from 1 to %d, not '%s'",
			      STATS_MAX_DIGITS, optarg);
			return cli_usage(stderr, usage, options);
		}
		o->digits = (int)n;
		return CLI_CONTINUE;
	case 'T':
		if (parse_whole(&n, optarg, 1, INT32_MAX) < 0) {
			error("--top takes a whole number of 1 or more, not '%s'", optarg);
			return cli_usage(stderr, usage, options);
		}
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
	static const struct option longopts[] = {
	    {"metric", required_argument, NULL, 'm'},
	    {"goal", required_argument, NULL, 'g'},
	    {"plot", required_argument, NULL, 'p'},
	    {"x", required_argument, NULL, 'x'},
	    {"curves", required_argument, NULL, 'C'},
	    {"step", required_argument, NULL, 'S'},
	    {"logx", no_argument, NULL, 'l'},
	    {"title", required_argument, NULL, 't'},
	    {"no-title", no_argument, NULL, 'N'},
	    {"json", no_argument, NULL, 'j'},
	    {"csv", no_argument, NULL, 'c'},
	    {"digits", required_argument, NULL, 'd'},
	    {"allow-incomplete", no_argument, NULL, 'a'},
	    {"refresh", no_argument, NULL, 'R'},
	    {"top", required_argument, NULL, 'T'},
	    {"exclude", required_argument, NULL, 'E'},
	    {"reason", required_argument, NULL, 'W'},
	    {"include", required_argument, NULL, 'I'},
	    {"state-dir", required_argument, NULL, 's'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	bool json = false, csv = false;
	char *why;
	int opt, code;

	cli_getopt_start();
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		code = take_checked(o, opt);
		if (code == NOT_CHECKED)
			code = take_plain(o, opt, &json, &csv)
			           ? CLI_CONTINUE
			           : cli_common_option(opt, &o->state_dir, argv, longopts, usage,
			                               options);
		if (code != CLI_CONTINUE)
			return code;
	}
	why = misfit(o, json, csv);
	if (why) {
		error("%s", why);
		free(why);
		return cli_usage(stderr, usage, options);
	}
	if (!o->step)
		o->step = "step";
	o->format = json ? FORMAT_JSON : csv ? FORMAT_CSV : FORMAT_TABLE;
	return cli_take_sweep(&o->which, argc, argv, usage, options);
}

/* What the options ask of the operations (report_run.h); borrows from o. */
static void make_request(struct report_request *q, const struct report_opts *o)
{
	*q = (struct report_request){
	    .state_dir = cli_state_dir(o->state_dir),
	    .which = o->which,
	    .metrics = o->metrics,
	    .nmetrics = o->nmetrics,
	    .allow_incomplete = o->allow_incomplete,
	    .goals = &o->goals,
	    .plot = o->plot,
	    .curves = o->curves,
	    .step = o->step,
	    .x = o->x,
	    .logx = o->logx,
	    .title = o->title,
	    .no_title = o->no_title,
	    .digits = o->digits,
	    .refresh = o->refresh,
	    .top = o->top,
	    .exclude = o->exclude,
	    .nexclude = o->nexclude,
	    .reason = o->reason,
	    .include = o->include,
	};
}

static void print_report(const struct report_opts *o, struct report_run *r, bool stages)
{
	const struct report_exclusions *excl = &r->excl;

	switch (o->format) {
	case FORMAT_TABLE:
		report_print_table(stdout, &r->rep);
		report_run_print_reused(r);
		if (stages)
			report_run_print_staging(&r->l.rec, r->l.plan.ntasks);
		break;
	case FORMAT_JSON:
		report_print_json(stdout, &r->rep);
		break;
	case FORMAT_CSV:
		report_print_csv(stdout, &r->rep);
		for (size_t i = 0; i < excl->n; i++)
			warning("left out (report --exclude): %s: %s", excl->lines[i].selector,
			        excl->lines[i].reason);
		break;
	}
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o = {0};
	struct report_request q;
	struct report_run r;
	int ret = EXIT_ERROR, code;

	report_run_init(&r);
	compare_goals_init(&o.goals);

	code = parse_options(&o, argc, argv);
	if (code != CLI_CONTINUE) {
		ret = code;
		goto out;
	}
	make_request(&q, &o);
	if (report_run_load(&r, &q) < 0)
		goto out;
	if (o.curves) {
		ret = report_run_curves(&r, &q);
		goto out;
	}
	if (report_run_build(&r, &q) < 0)
		goto out;
	/* The verdict read the sweep file already: `stage:` is in it. */
	print_report(&o, &r, r.v.cfg->nstage > 0);

	if (o.plot && (gate_complete(&r.v.gate) || o.allow_incomplete) &&
	    report_run_plot(&r, &q) < 0)
		goto out;

	ret = report_run_exit_code(&q, &r.v.gate);
out:
	report_run_release(&r);
	compare_goals_release(&o.goals);
	free(o.exclude);
	free(o.metrics);
	return ret;
}
