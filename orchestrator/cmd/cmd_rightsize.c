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

static const struct cli_option option_table[] = {
    {0, "headroom", 'H', "H",
     "multiply the peak MaxRSS and the longest elapsed time by H\n"
     "(default 1.2, at least 1)"},
    {0, "mem-factor", 'm', "F",
     "a task that ran out of memory needed more than it had: ask\n"
     "at least F times that (default 2, more than 1)"},
    {0, "time-factor", 't', "F", "the same for a task that hit its time limit (default 2)"},
    {0, "tasks", 'T', NULL, "also one row per task: its request, use and efficiency"},
    CLI_OPT_JSON,
    CLI_OPT_REFRESH,
    CLI_OPT_STATE_DIR,
    CLI_OPT_HELP,
    CLI_OPT_END,
};

static struct cli_command command = {
    .usage = "sweep rightsize [options] [SWEEP]",
    .intro = "SWEEP is a sweep's name or id (default: the most recent sweep).\n"
             "\n",
    .options = option_table,
    .outro = "\n"
             "--mem is rounded up to a multiple of 64M up to 1G, of 512M up to 16G, of 1G\n"
             "beyond; --time to whole minutes.\n"
             "\n"
             "exit status: 0 both --mem and --time recommended, 3 the data cannot support a\n"
             "recommendation (why is printed), 1 error, 2 usage.\n",
    .column = 21,
};

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
	int opt, code;

	rightsize_policy_init(&o->policy);
	cli_command_prepare(&command);
	while ((opt = getopt_long(argc, argv, command.shortopts, command.longopts, NULL)) != -1) {
		switch (opt) {
		case 'H':
			if (cmd_rightsize_parse_factor(&o->policy.headroom, "headroom", optarg) < 0)
				return cli_usage(stderr, command.usage, command.help);
			break;
		case 'm':
			if (cmd_rightsize_parse_factor(&o->policy.mem_factor, "mem-factor",
			                               optarg) < 0)
				return cli_usage(stderr, command.usage, command.help);
			break;
		case 't':
			if (cmd_rightsize_parse_factor(&o->policy.time_factor, "time-factor",
			                               optarg) < 0)
				return cli_usage(stderr, command.usage, command.help);
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
			code = cli_common_option(opt, &o->state_dir, argv, command.longopts,
			                         command.usage, command.help);
			if (code != CLI_CONTINUE)
				return code;
		}
	}
	return cli_take_sweep(&o->which, argc, argv, command.usage, command.help);
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
