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

static const char usage[] = "sweep submit [options] SWEEP.yaml";
static const char options[] =
    "options:\n"
    "  --dry-run          print the script and the task table; submit and record nothing\n"
    "  --local            run the tasks on this machine, in the background, not on Slurm\n"
    "  --gpus-per-task N  GPUs for each task (slurm.gpus_per_task); with --local, free\n"
    "                     GPUs of this machine, never shared (see sweep gpus)\n"
    "  --extend SWEEP     reuse the tasks SWEEP (and the sweeps it extended) ran with\n"
    "                     the same command, setup, env and template, setting and seed,\n"
    "                     that passed; submit only the others; the report pools both\n"
    "  --resources-from SWEEP\n"
    "                     set slurm.mem and slurm.time from what that sweep's tasks\n"
    "                     used (see sweep rightsize)\n"
    "  --state-dir DIR    the state folder (default $SWEEP_STATE_DIR or .sweep)\n"
    "  -h, --help         show this help\n";

/* CLI_CONTINUE, or the exit code to end with. */
static int parse_options(struct submit_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"dry-run", no_argument, NULL, 'n'},
	    {"local", no_argument, NULL, 'l'},
	    {"gpus-per-task", required_argument, NULL, 'g'},
	    {"resources-from", required_argument, NULL, 'r'},
	    {"extend", required_argument, NULL, 'e'},
	    {"state-dir", required_argument, NULL, 's'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int opt, code;

	cli_getopt_start();
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
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
				return cli_usage(stderr, usage, options);
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
			code =
			    cli_common_option(opt, &o->state_dir, argv, longopts, usage, options);
			if (code != CLI_CONTINUE)
				return code;
		}
	}
	if (argc - optind != 1)
		return cli_usage(stderr, usage, options);
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
