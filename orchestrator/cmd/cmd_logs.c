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

#include "banned.h"

#define FOLLOW_POLL_S    1   /* how often -f looks at the files */
#define FOLLOW_STATE_S   10  /* how often -f asks whether the task still runs (one query) */
#define FOLLOW_MISSING_S 120 /* how long -f waits for a just-submitted task's first record */

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

/*
 * The run of task index in its attempt-th attempt (0: the latest): the
 * outcomes built from the array jobs up to each attempt, until the task has
 * had that many.
 */
static int find_run(struct task_outcome *out, const struct loaded_sweep *l, size_t index,
                    unsigned attempt)
{
	struct array_rec *some = xcalloc(l->narrays ? l->narrays : 1, sizeof(*some));
	struct task_outcome *oc = xcalloc(l->plan.ntasks, sizeof(*oc));
	unsigned last = 0;
	int ret = attempt ? 1 : 0;

	for (size_t a = 0; a < l->narrays; a++)
		last = l->arrays[a].attempt > last ? l->arrays[a].attempt : last;
	*out = l->outcomes[index];
	for (unsigned upto = 1; attempt && upto <= last && ret > 0; upto++) {
		size_t n = 0;

		for (size_t a = 0; a < l->narrays; a++)
			if (l->arrays[a].attempt <= upto)
				some[n++] = l->arrays[a];
		memset(oc, 0, l->plan.ntasks * sizeof(*oc));
		ret = outcome_build(oc, l->plan.ntasks, some, n, &l->set);
		if (ret == 0 && oc[index].attempts == attempt) {
			*out = oc[index];
			ret = 0;
		} else if (ret == 0) {
			ret = 1;
		}
	}
	if (ret > 0)
		ret = error("task %zu of sweep %" PRId64 " had %u attempt%s, not %u", index,
		            l->rec.id, l->outcomes[index].attempts,
		            l->outcomes[index].attempts == 1 ? "" : "s", attempt);
	free(some);
	free(oc);
	return ret;
}

/*
 * Copies what path holds from *pos on to stdout, made visible (quote_visible)
 * when visible; a file not there yet is fine when following. Only a regular
 * file is read: never through a link, never a device or a FIFO.
 */
static int copy_from(const char *path, off_t *pos, bool quiet_missing, bool visible)
{
	struct strbuf shown = STRBUF_INIT;
	char buf[65536];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY);
	struct stat st;
	ssize_t n = 0;
	int ret = 0;

	if (fd < 0) {
		if (errno == ENOENT && quiet_missing)
			return 0;
		if (errno == ELOOP)
			return error("refusing the log '%s': it is a symbolic link, not a log the "
			             "task wrote",
			             path);
		return error("cannot read '%s': %s", path, strerror(errno));
	}
	if (fstat(fd, &st) < 0) {
		ret = error("cannot read '%s': %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = error("refusing the log '%s': it is not a regular file", path);
		goto out;
	}
	if (lseek(fd, *pos, SEEK_SET) < 0) {
		ret = error("cannot read '%s': %s", path, strerror(errno));
		goto out;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		if (visible) {
			strbuf_reset(&shown);
			quote_visible(&shown, buf, (size_t)n);
			fwrite(shown.buf, 1, shown.len, stdout);
		} else {
			fwrite(buf, 1, (size_t)n, stdout);
		}
		*pos += n;
	}
	if (n < 0)
		ret = error("cannot read '%s': %s", path, strerror(errno));
out:
	close(fd);
	strbuf_release(&shown);
	return ret;
}

struct log_file {
	char *path;
	const char *what; /* "stdout", "stderr" */
	off_t pos;
};

/* Copies the new bytes of each file, with a header whenever the file changes (tail's way). */
static int copy_new(struct log_file *files, size_t n, int *shown, bool follow, bool visible)
{
	for (size_t i = 0; i < n; i++) {
		struct stat st;

		if (lstat(files[i].path, &st) == 0 && st.st_size < files[i].pos)
			files[i].pos = 0; /* rewritten from the start (a requeued run) */
		if (*shown != (int)i &&
		    (!follow || (lstat(files[i].path, &st) == 0 && st.st_size > files[i].pos))) {
			printf("%s==> %s (%s) <==\n", *shown >= 0 ? "\n" : "", files[i].path,
			       files[i].what);
			*shown = (int)i;
		}
		if (copy_from(files[i].path, &files[i].pos, follow, visible) < 0)
			return SWEEP_ERR;
	}
	return fflush(stdout) == 0 ? 0 : SWEEP_ERR;
}

/* -f: until the task's latest run has ended, then what it wrote last. */
static int follow(struct log_file *files, size_t n, int *shown, struct loaded_sweep *l,
                  size_t index, bool visible)
{
	time_t asked = time(NULL);

	while (!task_state_is_final(l->outcomes[index].state) ||
	       l->outcomes[index].state == TS_REQUEUED) {
		sleep(FOLLOW_POLL_S);
		if (copy_new(files, n, shown, true, visible) < 0)
			return SWEEP_ERR;
		if (time(NULL) - asked < FOLLOW_STATE_S)
			continue;
		asked = time(NULL);
		if (loaded_outcomes(l) < 0)
			return SWEEP_ERR;
	}
	return copy_new(files, n, shown, true, visible);
}

/*
 * -f right after submit: slurmdbd hears of a new array job a moment after
 * sbatch returns, so the task has no record yet. Waits for one, a while.
 */
static int wait_for_record(struct loaded_sweep *l, size_t index)
{
	time_t start = time(NULL);

	while (l->outcomes[index].state == TS_MISSING && time(NULL) - start < FOLLOW_MISSING_S) {
		sleep(FOLLOW_POLL_S * 2);
		if (loaded_outcomes(l) < 0)
			return SWEEP_ERR;
	}
	return 0;
}

static int show(struct loaded_sweep *l, const struct logs_opts *o)
{
	struct task_outcome run;
	struct log_file files[2];
	size_t n = 0;
	bool visible = !o->raw && isatty(STDOUT_FILENO);
	int shown = -1, ret;
	char *out;

	if (o->follow && !o->attempt && wait_for_record(l, o->index) < 0)
		return SWEEP_ERR;
	if (find_run(&run, l, o->index, o->attempt) < 0)
		return SWEEP_ERR;
	out = outcome_log_path(l->rec.logs, l->rec.name,
	                       run.state == TS_PENDING && o->follow ? TS_RUNNING : run.state,
	                       run.array_job_id, run.array_task_id);
	if (!out || (run.state == TS_PENDING && !o->follow))
		return error("task %zu of sweep %" PRId64
		             " has not started yet (%s): no log to show"
		             "%s",
		             o->index, l->rec.id, task_state_name(run.state),
		             run.state == TS_PENDING ? "; -f waits for it" : "");
	if (o->out)
		files[n++] = (struct log_file){xstrdup(out), "stdout", 0};
	if (o->err) {
		memcpy(out + strlen(out) - 4, ".err", 4);
		files[n++] = (struct log_file){xstrdup(out), "stderr", 0};
	}
	free(out);
	ret = copy_new(files, n, &shown, run.state == TS_PENDING, visible);
	if (ret == 0 && o->follow && !o->attempt)
		ret = follow(files, n, &shown, l, o->index, visible);
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
