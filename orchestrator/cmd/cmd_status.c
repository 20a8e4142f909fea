/*
 * sweep status: options -> one view of the sweep (status_view.h: store +
 * accounting -> one outcome per task -> counts, progress and, with
 * --tasks, one row per task) -> its printer. --watch repeats that at a
 * pace slurmdbd can bear.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "error.h"
#include "loaded.h"
#include "status_view.h"
#include "verdict.h"

#include "banned.h"

/* One accounting query per refresh is cheap for one sweep; many users watching is not. */
#define WATCH_DEFAULT_S    10
#define WATCH_MIN_S        5
#define WATCH_MAX_S        (24 * 3600)
#define WATCH_MAX_FAILURES 3 /* refreshes in a row that may fail before --watch gives up */

static const struct cli_option option_table[] = {
    {0, "tasks", 't', NULL,
     "one row per task: setting, seed, state, attempts, exit code,\n"
     "elapsed time, MaxRSS, restarts, log file, reason and cause"},
    CLI_OPT_JSON_HELP("print JSON (with --watch, one line per refresh)"),
    {0, "watch", 'w', "[=SECONDS]",
     "refresh every SECONDS (default 10, at least 5) until no task\n"
     "is pending or running any more, nor a follow-up job"},
    CLI_OPT_REFRESH,
    CLI_OPT_STATE_DIR,
    CLI_OPT_HELP,
    CLI_OPT_END,
};

static struct cli_command command = {
    .usage = "sweep status [options] [SWEEP]",
    .intro = "SWEEP is a sweep's name or id (default: the most recent sweep).\n"
             "\n",
    .options = option_table,
    .outro = "\n"
             "exit status: 0 success, 1 error, 2 usage.\n",
};

struct status_opts {
	const char *state_dir;
	const char *which;
	bool tasks;
	bool json;
	bool watch;
	bool refresh;
	unsigned interval_s;
	bool stages; /* not an option: the sweep has `stage:` (its kept sweep file) */
};

/* Returns CLI_CONTINUE to go on, or the exit code the command ends with. */
static int parse_options(struct status_opts *o, int argc, char **argv)
{
	unsigned long long v;
	int opt, code;

	o->interval_s = WATCH_DEFAULT_S;
	cli_command_prepare(&command);
	while ((opt = getopt_long(argc, argv, command.shortopts, command.longopts, NULL)) != -1) {
		switch (opt) {
		case 't':
			o->tasks = true;
			break;
		case 'j':
			o->json = true;
			break;
		case 'R':
			o->refresh = true;
			break;
		case 'w':
			o->watch = true;
			if (optarg) {
				if (cli_parse_whole(&v, "--watch", optarg, WATCH_MIN_S,
				                    WATCH_MAX_S) < 0)
					return cli_usage(stderr, command.usage, command.help);
				o->interval_s = (unsigned)v;
			}
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

static void print_view(const struct status_view *v, const struct plan *plan,
                       const struct status_opts *o, const struct status_ask *ask, bool tty)
{
	if (o->json) {
		status_view_print_json(stdout, v, plan, o->watch);
		return;
	}
	if (o->watch && tty)
		fputs("\033[H\033[2J", stdout); /* home, clear screen */
	status_view_print_text(stdout, v, plan, ask, tty);
	if (o->watch) {
		char when[16];
		time_t now = time(NULL);
		struct tm tm;

		strftime(when, sizeof(when), "%H:%M:%S", localtime_r(&now, &tm));
		printf("(%s, refreshed every %u s)\n\n", when, o->interval_s);
	}
}

int cmd_status(int argc, char **argv)
{
	struct status_opts o = {0};
	struct loaded_sweep l;
	const struct cfg *cfg;
	struct status_view v;
	bool tty = isatty(STDOUT_FILENO), shown = false;
	struct status_settling settling = {0, 0};
	struct status_ask ask;
	struct verdict_reads reads = {0}; /* what the last refresh read: read once per watch */
	unsigned failures = 0;
	int ret = EXIT_ERROR, code;

	loaded_init(&l);
	status_view_init(&v);

	code = parse_options(&o, argc, argv);
	if (code != CLI_CONTINUE) {
		ret = code;
		goto out;
	}
	if (loaded_open(&l, cli_state_dir(o.state_dir), o.which) < 0 || loaded_plan(&l) < 0)
		goto out;
	/* Only asked: a kept file that no longer reads is not status's to say. */
	o.stages = loaded_sweepfile(&cfg, &l, LOADED_QUIET) == 0 && cfg->nstage;
	ask = (struct status_ask){o.tasks, o.json, o.watch, o.refresh, o.stages};
	for (;;) {
		if (status_view_load(&v, &l, &ask, !shown && !failures, &reads) < 0) {
			/* slurmdbd restarts happen: a watch rides over a few failed refreshes. */
			if (!o.watch || !shown || ++failures > WATCH_MAX_FAILURES)
				goto out;
			warning("refresh failed; trying again in %u s", o.interval_s);
		} else {
			failures = 0;
			shown = true;
			print_view(&v, &l.plan, &o, &ask, tty);
			if (!o.watch || status_view_settled(&v, &settling))
				break;
		}
		if (fflush(stdout) != 0 || ferror(stdout))
			goto out; /* a closed pipe ends the watch; main reports it */
		status_view_release(&v);
		sleep(o.interval_s);
	}
	ret = EXIT_OK;
out:
	status_view_release(&v);
	verdict_reads_release(&reads);
	loaded_release(&l);
	return ret;
}
