/*
 * sweep submit: the options, the submission (ops/submit.h: sweep file ->
 * plan -> script -> the submission protocol -> store), and what it printed.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "error.h"
#include "submit.h"

#include "banned.h"

static const struct cli_option option_table[] = {
    {0, "dry-run", 'n', NULL, "print the script and the task table; submit and record nothing"},
    {0, "local", 'l', NULL, "run the tasks on this machine, in the background, not on Slurm"},
    {0, "gpus-per-task", 'g', "N",
     "GPUs for each task (slurm.gpus_per_task); with --local, free\n"
     "GPUs of this machine, never shared (see sweep gpus)"},
    {0, "extend", 'e', "SWEEP",
     "reuse the tasks SWEEP (and the sweeps it extended) ran with\n"
     "the same command, setup, env and template, setting and seed,\n"
     "that passed; submit only the others; the report pools both"},
    {0, "resources-from", 'r', "SWEEP",
     "set slurm.mem and slurm.time from what that sweep's tasks\n"
     "used (see sweep rightsize)"},
    CLI_OPT_STATE_DIR,
    CLI_OPT_HELP,
    CLI_OPT_END,
};

static struct cli_command command = {
    .usage = "sweep submit [options] SWEEP.yaml",
    .options = option_table,
    .column = 21,
};

/* CLI_CONTINUE, or the exit code to end with. */
static int parse_options(struct submit_opts *o, int argc, char **argv)
{
	int opt, code;

	cli_command_prepare(&command);
	while ((opt = getopt_long(argc, argv, command.shortopts, command.longopts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			o->dry_run = 1;
			break;
		case 'l':
			o->local = 1;
			break;
		case 'g':
			if (optarg[strspn(optarg, "0123456789")] || !*optarg ||
			    strlen(optarg) > 4) {
				error("--gpus-per-task takes a number of GPUs, not '%s'", optarg);
				return cli_usage(stderr, command.usage, command.help);
			}
			o->gpus = optarg;
			break;
		case 'r':
			o->resources_from = optarg;
			break;
		case 'e':
			o->extend_from = optarg;
			break;
		default:
			code = cli_common_option(opt, &o->state_dir, argv, command.longopts,
			                         command.usage, command.help);
			if (code != CLI_CONTINUE)
				return code;
		}
	}
	if (argc - optind != 1)
		return cli_usage(stderr, command.usage, command.help);
	o->file = argv[optind];
	return CLI_CONTINUE;
}

int cmd_submit(int argc, char **argv)
{
	struct submit_opts o = {0};
	struct submit s;
	char cwd[PATH_MAX];
	int code, ret = EXIT_ERROR;

	code = parse_options(&o, argc, argv);
	if (code != CLI_CONTINUE)
		return code;
	if (!getcwd(cwd, sizeof(cwd)))
		die("cannot read the current folder: %s", strerror(errno));
	o.workdir = cwd;
	o.state_dir = cli_state_dir(o.state_dir);
	submit_init(&s);
	if (submit_run(&s, &o) < 0)
		goto out;
	if (o.dry_run) {
		if (submit_print_dry_run(&s) == 0)
			ret = EXIT_OK;
		goto out;
	}
	submit_print_submitted(&s);
	ret = EXIT_OK;
out:
	submit_release(&s);
	return ret;
}
