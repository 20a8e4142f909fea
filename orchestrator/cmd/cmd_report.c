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
     "missing is listed, and nothing drawn (exit 3). FILE 'log': read\n"
     "the curves from each task's log with the sweep file's\n"
     "results.step and results.log patterns (a file named log: ./log)"},
    {0, "step", 'S', "KEY",
     "the step key of JSON Lines and CSV results and of curve files:\n"
     "their x axis, never a metric (default: step)"},
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
	/* What the operations are asked (report_run.h), filled as the options are read. */
	struct report_request q;
	const char *state_dir;       /* as given: q.state_dir is it resolved */
	size_t alloc, exclude_alloc; /* of q.metrics, q.exclude (owned here) */
	enum format format;
	struct compare_goals goals; /* from --goal; q.goals points here */
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
		ALLOC_GROW(o->q.metrics, o->q.nmetrics + 1, o->alloc);
		o->q.metrics[o->q.nmetrics++] = optarg;
		return CLI_CONTINUE;
	case 'g':
		if (compare_goals_parse(&o->goals, optarg) < 0)
			return cli_usage(stderr, command.usage, command.help);
		return CLI_CONTINUE;
	case 'p':
		if (draw_format_of(&format, optarg) < 0)
			return cli_usage(stderr, command.usage, command.help);
		o->q.plot = optarg;
		return CLI_CONTINUE;
	case 'S':
		if (!*optarg) {
			error("--step needs a key");
			return cli_usage(stderr, command.usage, command.help);
		}
		o->q.step = optarg;
		return CLI_CONTINUE;
	case 't':
		if (!*optarg) {
			error("--title needs text (--no-title draws none)");
			return cli_usage(stderr, command.usage, command.help);
		}
		o->q.title = optarg;
		return CLI_CONTINUE;
	case 'd':
		if (cli_parse_whole(&n, "--digits", optarg, 1, STATS_MAX_DIGITS) < 0)
			return cli_usage(stderr, command.usage, command.help);
		o->q.digits = (int)n;
		return CLI_CONTINUE;
	case 'T':
		if (cli_parse_whole(&n, "--top", optarg, 1, INT32_MAX) < 0)
			return cli_usage(stderr, command.usage, command.help);
		o->q.top = (size_t)n;
		return CLI_CONTINUE;
	}
	return NOT_CHECKED;
}

/* The options taken as they are; false when opt is none of them. */
static bool take_plain(struct report_opts *o, int opt, bool *json, bool *csv)
{
	switch (opt) {
	case 'x':
		o->q.x = optarg;
		return true;
	case 'C':
		o->q.curves = optarg;
		return true;
	case 'l':
		o->q.logx = true;
		return true;
	case 'N':
		o->q.no_title = true;
		return true;
	case 'j':
		*json = true;
		return true;
	case 'c':
		*csv = true;
		return true;
	case 'a':
		o->q.allow_incomplete = true;
		return true;
	case 'R':
		o->q.refresh = true;
		return true;
	case 'E':
		ALLOC_GROW(o->q.exclude, o->q.nexclude + 1, o->exclude_alloc);
		o->q.exclude[o->q.nexclude++] = optarg;
		return true;
	case 'W':
		o->q.reason = optarg;
		return true;
	case 'I':
		o->q.include = optarg;
		return true;
	}
	return false;
}

/* What goes only with another option, or not with it, in words (free it); NULL: none. */
static char *misfit(const struct report_opts *o, bool json, bool csv)
{
	if ((o->q.x || o->q.logx) && !o->q.plot)
		return xstrdup("--x and --logx go with --plot");
	if ((o->q.title || o->q.no_title) && !o->q.plot)
		return xstrdup("--title and --no-title go with --plot");
	if (o->q.title && o->q.no_title)
		return xstrdup("--title and --no-title cannot be used together");
	if (o->q.curves && !o->q.plot)
		return xstrdup("--curves goes with --plot");
	if (o->q.curves && (o->q.x || o->q.logx))
		return xstrdup("--x and --logx do not go with --curves: curves are drawn by step");
	if (o->q.nexclude && (!o->q.reason || !*o->q.reason))
		return xstrfmt("--exclude needs --reason TEXT: say why '%s' is left out",
		               o->q.exclude[0]);
	if (o->q.reason && !o->q.nexclude)
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
	if (!o->q.step)
		o->q.step = "step";
	o->format = json ? FORMAT_JSON : csv ? FORMAT_CSV : FORMAT_TABLE;
	return cli_take_sweep(&o->q.which, argc, argv, command.usage, command.help);
}

/* Completes o->q: the state folder resolved, the goals (report_run.h); borrows from o. */
static void make_request(struct report_opts *o)
{
	o->q.state_dir = cli_state_dir(o->state_dir);
	o->q.goals = &o->goals;
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
	struct report_run r;
	int ret = EXIT_ERROR, code;

	report_run_init(&r);
	compare_goals_init(&o.goals);

	code = parse_options(&o, argc, argv);
	if (code != CLI_CONTINUE) {
		ret = code;
		goto out;
	}
	make_request(&o);
	if (report_run_load(&r, &o.q) < 0)
		goto out;
	if (o.q.curves) {
		ret = report_run_curves(&r, &o.q);
		goto out;
	}
	if (report_run_build(&r, &o.q) < 0)
		goto out;
	/* The verdict read the sweep file already: `stage:` is in it. */
	print_report(&o, &r, r.v.cfg->nstage > 0);

	if (o.q.plot && (gate_complete(&r.v.gate) || o.q.allow_incomplete) &&
	    report_run_plot(&r, &o.q) < 0)
		goto out;

	ret = report_run_exit_code(&o.q, &r.v.gate);
out:
	report_run_release(&r);
	compare_goals_release(&o.goals);
	free(o.q.exclude);
	free(o.q.metrics);
	return ret;
}
