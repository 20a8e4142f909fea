/*
 * sweep: the command table and dispatch. Each command lives in its own
 * cmd_<name>.c; adding one is that file plus one row here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cli.h"
#include "error.h"
#include "followup_run.h"
#include "script_followup.h"

#include "banned.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static int cmd_help(int argc, char **argv);

static const struct command commands[] = {
    {"submit", cmd_submit,
     "expand a sweep file into one array job and submit it (Slurm or --local)"},
    {"list", cmd_list, "list the sweeps in the state store"},
    {"status", cmd_status, "show every task's state, from Slurm accounting or the local runner"},
    {"report", cmd_report, "mean ± std per setting, only when no task is missing or failed"},
    {"confirm", cmd_confirm,
     "run a sweep's best settings again on seeds it did not use: the estimate to print"},
    {"logs", cmd_logs, "print a task's log files (its latest or Nth attempt); -f follows them"},
    {"cancel", cmd_cancel, "cancel every array job of a sweep"},
    {"resubmit", cmd_resubmit,
     "re-run the failed and missing tasks of a sweep, with more of what they lacked"},
    {"rightsize", cmd_rightsize, "the --mem and --time a sweep's finished tasks say to ask for"},
    {"advise", cmd_advise,
     "how often to checkpoint, from the cost of a checkpoint and the time between failures"},
    {"gpus", cmd_gpus, "which GPUs of this machine are free now, and why the others are not"},
    {"version", cmd_version, "sweep's version and the libslurm it was built for and runs with"},
    {"help", cmd_help, "show this list"},
    /* Hidden (no help): the local runner, started by submit --local. */
    {BACKEND_HELPER_COMMAND, backend_helper_main, NULL},
    /* Hidden: a follow-up job (retries, notify), submitted by submit. */
    {FOLLOWUP_COMMAND, followup_run_main, NULL},
    /* Hidden: one task of a packed array task, recorded by sweep (slurm_pack.h). */
    {BACKEND_PACKRUN_COMMAND, backend_packrun_main, NULL},
    /* Hidden: the sweep file's keys, for the test of sweep-file(5). */
    {"__keys", cmd_keys, NULL},
};

static void print_commands(FILE *f)
{
	fprintf(f, "usage: sweep <command> [options]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (commands[i].help)
			fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n'sweep <command> --help' shows a command's options; "
	           "'sweep --version' the version.\n");
}

static int cmd_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	print_commands(stdout);
	return EXIT_OK;
}

static int finish(int code)
{
	/* A full disk or closed pipe must not pass as success. */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "sweep: error: cannot write to standard output\n");
		return code ? code : EXIT_ERROR;
	}
	return code;
}

static int dispatch(int argc, char **argv)
{
	const char *name;

	if (argc < 2) {
		print_commands(stderr);
		return EXIT_USAGE;
	}
	name = argv[1];
	if (!strcmp(name, "--version"))
		name = "version";
	if (!strcmp(name, "--help") || !strcmp(name, "-h"))
		name = "help";
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return finish(commands[i].fn(argc - 1, argv + 1));
	fprintf(stderr, "sweep: error: unknown command '%s'\n\n", name);
	print_commands(stderr);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	char **args;
	int code;

	/* The local runner runs a sweep's follow-ups itself when its array job ends. */
	backend_set_end_hook(followup_run_local_ended);
	args = cli_hoist_options(&argc, argv);
	if (!args)
		return EXIT_USAGE;
	code = dispatch(argc, args);
	free(args);
	return code;
}
