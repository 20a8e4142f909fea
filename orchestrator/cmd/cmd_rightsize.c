/*
 * sweep rightsize: store (what was asked) + accounting (what Slurm
 * measured, one query) -> one outcome per task -> efficiencies and the
 * --mem and --time to ask for next time -> a printer. Also the source of
 * submit --resources-from.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct.h"
#include "backend.h"
#include "cfg.h"
#include "cli.h"
#include "error.h"
#include "loaded.h"
#include "sizing.h"
#include "plan.h"
#include "outcome.h"
#include "rightsize.h"
#include "rightsize_print.h"
#include "store.h"
#include "strbuf.h"
#include "units.h"

#include "banned.h"

static const char usage[] = "sweep rightsize [options] [SWEEP]";
static const char options[] =
    "SWEEP is a sweep's name or id (default: the most recent sweep).\n"
    "\n"
    "options:\n"
    "  --headroom H       multiply the peak MaxRSS and the longest elapsed time by H\n"
    "                     (default 1.2, at least 1)\n"
    "  --mem-factor F     a task that ran out of memory needed more than it had: ask\n"
    "                     at least F times that (default 2, more than 1)\n"
    "  --time-factor F    the same for a task that hit its time limit (default 2)\n"
    "  --tasks            also one row per task: its request, use and efficiency\n"
    "  --json             print JSON\n"
    "  --refresh          read every record from Slurm accounting again, not the\n"
    "                     finished ones the state store kept\n"
    "  --state-dir DIR    the state folder (default $SWEEP_STATE_DIR or .sweep)\n"
    "  -h, --help         show this help\n"
    "\n"
    "--mem is rounded up to a multiple of 64M up to 1G, of 512M up to 16G, of 1G\n"
    "beyond; --time to whole minutes.\n"
    "\n"
    "exit status: 0 both --mem and --time recommended, 3 the data cannot support a\n"
    "recommendation (why is printed), 1 error, 2 usage.\n";

struct rightsize_opts {
	const char *state_dir;
	const char *which;
	struct rightsize_policy policy;
	bool tasks;
	bool json;
	bool refresh;
};

int cmd_rightsize_parse_factor(double *out, const char *opt, const char *arg)
{
	const char *why;
	bool headroom = !strcmp(opt, "headroom");

	if (rightsize_parse_factor(out, arg, 1.0, !headroom, &why) < 0)
		return error("--%s '%s': %s", opt, arg, why);
	return 0;
}

/* Returns CLI_CONTINUE to go on, or the exit code the command ends with. */
static int parse_options(struct rightsize_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"headroom", required_argument, NULL, 'H'},
	    {"mem-factor", required_argument, NULL, 'm'},
	    {"time-factor", required_argument, NULL, 't'},
	    {"tasks", no_argument, NULL, 'T'},
	    {"json", no_argument, NULL, 'j'},
	    {"refresh", no_argument, NULL, 'R'},
	    {"state-dir", required_argument, NULL, 's'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int opt, code;

	rightsize_policy_init(&o->policy);
	cli_getopt_start();
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'H':
			if (cmd_rightsize_parse_factor(&o->policy.headroom, "headroom", optarg) < 0)
				return cli_usage(stderr, usage, options);
			break;
		case 'm':
			if (cmd_rightsize_parse_factor(&o->policy.mem_factor, "mem-factor",
			                               optarg) < 0)
				return cli_usage(stderr, usage, options);
			break;
		case 't':
			if (cmd_rightsize_parse_factor(&o->policy.time_factor, "time-factor",
			                               optarg) < 0)
				return cli_usage(stderr, usage, options);
			break;
		case 'T':
			o->tasks = true;
			break;
		case 'j':
			o->json = true;
			break;
		case 'R':
			o->refresh = true;
			break;
		default:
			code =
			    cli_common_option(opt, &o->state_dir, argv, longopts, usage, options);
			if (code != CLI_CONTINUE)
				return code;
		}
	}
	return cli_take_sweep(&o->which, argc, argv, usage, options);
}

int cmd_rightsize(int argc, char **argv)
{
	struct rightsize_opts o = {0};
	struct sizing z;
	int ret, code;

	sizing_init(&z);
	code = parse_options(&o, argc, argv);
	if (code != CLI_CONTINUE)
		return code;
	ret = EXIT_ERROR;
	if (sizing_load(&z, cli_state_dir(o.state_dir), o.which, &o.policy, o.refresh) < 0)
		goto out;
	if (o.json)
		rightsize_print_json(stdout, &z.rs);
	else
		rightsize_print_table(stdout, &z.rs, o.tasks);
	ret = rightsize_complete(&z.rs) ? EXIT_OK : EXIT_INCOMPLETE;
out:
	sizing_release(&z);
	return ret;
}
