/*
 * sweep logs: one task's log files, of its latest (or Nth) attempt, as the
 * generated script names them (<logs>/<name>_%A_%a.out and .err), on either
 * backend. -f follows them while the task runs, as tail -f does, and ends
 * once the task has ended. What a task wrote is not trusted: a log that is
 * a link or not a regular file (a link to /dev/zero would never end) is
 * refused, and on a terminal control characters are shown as cat -v does,
 * so a log cannot set the clipboard (OSC 52), clear the screen or forge
 * links (OSC 8). Piped, and with --raw, the bytes go out as they are.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "cli.h"
#include "error.h"
#include "loaded.h"
#include "outcome.h"
#include "quote.h"
#include "store.h"
#include "strbuf.h"
#include "task_logs.h"

#include "banned.h"

static const struct cli_option option_table[] = {
    {0, "attempt", 'a', "N", "the task's Nth attempt (default: its latest)"},
    {0, "out", 'o', NULL, "only stdout"},
    {0, "err", 'e', NULL, "only stderr"},
    {'f', "follow", 'f', NULL, "keep printing what the task writes until it ends"},
    {0, "raw", 'r', NULL,
     "write control characters as they are, even to a terminal\n"
     "(by default a terminal shows them as cat -v does)"},
    CLI_OPT_STATE_DIR,
    CLI_OPT_HELP,
    CLI_OPT_END,
};

static struct cli_command command = {
    .usage = "sweep logs [options] SWEEP INDEX",
    .intro = "SWEEP is a sweep's name or id; INDEX a task index (status --tasks shows them).\n"
             "Prints the task's stdout and then its stderr log, each under a header.\n"
             "\n",
    .options = option_table,
    .outro = "\n"
             "exit status: 0 success, 1 error (no such task, attempt or log), 2 usage.\n",
};

struct logs_opts {
	const char *state_dir;
	const char *which;
	size_t index;
	unsigned attempt; /* 0: the latest */
	bool out, err, follow, raw;
};

/* The most attempts --attempt names. */
#define MAX_ATTEMPT 1000000

static int parse_options(struct logs_opts *o, int argc, char **argv)
{
	unsigned long long v = 0;
	int opt, code;

	cli_command_prepare(&command);
	while ((opt = getopt_long(argc, argv, command.shortopts, command.longopts, NULL)) != -1) {
		switch (opt) {
		case 'a':
			if (cli_parse_whole(&v, "--attempt", optarg, 1, MAX_ATTEMPT) < 0)
				return cli_usage(stderr, command.usage, command.help);
			o->attempt = (unsigned)v;
			break;
		case 'o':
			o->out = true;
			break;
		case 'e':
			o->err = true;
			break;
		case 'f':
			o->follow = true;
			break;
		case 'r':
			o->raw = true;
			break;
		default:
			code = cli_common_option(opt, &o->state_dir, argv, command.longopts,
			                         command.usage, command.help);
			if (code != CLI_CONTINUE)
				return code;
		}
	}
	if (argc - optind != 2) {
		error("sweep logs takes a sweep and a task index");
		return cli_usage(stderr, command.usage, command.help);
	}
	o->which = argv[optind];
	if (cli_parse_whole(&v, "INDEX", argv[optind + 1], 0, SIZE_MAX) < 0)
		return cli_usage(stderr, command.usage, command.help);
	o->index = (size_t)v;
	if (!o->out && !o->err)
		o->out = o->err = true;
	return CLI_CONTINUE;
}

static int show(struct loaded_sweep *l, const struct logs_opts *o)
{
	struct task_outcome run;
	struct task_log_file files[2];
	size_t n = 0;
	bool visible = !o->raw && isatty(STDOUT_FILENO);
	int shown = -1, ret;
	char *out;

	if (o->follow && !o->attempt && task_logs_wait_record(l, o->index) < 0)
		return SWEEP_ERR;
	if (task_logs_find_run(&run, l, o->index, o->attempt) < 0)
		return SWEEP_ERR;
	out = outcome_log_path(l->rec.logs, l->rec.name,
	                       task_state_is_queued(run.state) && o->follow ? TS_RUNNING : run.state,
	                       run.array_job_id, run.array_task_id);
	if (!out || (task_state_is_queued(run.state) && !o->follow))
		return error("task %zu of sweep %" PRId64
		             " has not started yet (%s): no log to show"
		             "%s",
		             o->index, l->rec.id, task_state_name(run.state),
		             task_state_is_queued(run.state) ? "; -f waits for it" : "");
	if (o->out)
		files[n++] = (struct task_log_file){xstrdup(out), "stdout", 0};
	if (o->err) {
		memcpy(out + strlen(out) - 4, ".err", 4);
		files[n++] = (struct task_log_file){xstrdup(out), "stderr", 0};
	}
	free(out);
	ret = task_logs_copy_new(files, n, &shown, task_state_is_queued(run.state), visible);
	if (ret == 0 && o->follow && !o->attempt)
		ret = task_logs_follow(files, n, &shown, l, o->index, visible);
	for (size_t i = 0; i < n; i++)
		free(files[i].path);
	return ret;
}

int cmd_logs(int argc, char **argv)
{
	struct logs_opts o = {0};
	struct loaded_sweep l;
	int ret = EXIT_ERROR, code;

	loaded_init(&l);
	code = parse_options(&o, argc, argv);
	if (code != CLI_CONTINUE)
		return code;
	if (loaded_open(&l, cli_state_dir(o.state_dir), o.which) < 0 || loaded_plan(&l) < 0)
		goto out;
	if (o.index >= l.plan.ntasks) {
		error("sweep %" PRId64 " '%s' has tasks 0 to %zu, not %zu", l.rec.id, l.rec.name,
		      l.plan.ntasks ? l.plan.ntasks - 1 : 0, o.index);
		goto out;
	}
	if (loaded_outcomes(&l) < 0 || show(&l, &o) < 0)
		goto out;
	ret = EXIT_OK;
out:
	loaded_release(&l);
	return ret;
}
