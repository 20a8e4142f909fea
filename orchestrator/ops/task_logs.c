/*
 * One task's log files (task_logs.h): which run to show, and copying what
 * it wrote, once or as tail -f does. What a task wrote is not trusted: a
 * log that is a link or not a regular file (a link to /dev/zero would never
 * end) is refused, and made visible (quote_visible) when asked.
 */
#include "task_logs.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cfg.h"
#include "error.h"
#include "outcome.h"
#include "quote.h"
#include "strbuf.h"

#include "banned.h"

#define FOLLOW_POLL_S    1   /* how often -f looks at the files */
#define FOLLOW_STATE_S   10  /* how often -f asks whether the task still runs (one query) */
#define FOLLOW_MISSING_S 120 /* how long -f waits for a just-submitted task's first record */
#define FOLLOW_QUIET_S   20  /* a running task silent this long gets the note on buffering */

/*
 * The run of task index in its attempt-th attempt (0: the latest): the
 * outcomes built from the array jobs up to each attempt, until the task has
 * had that many.
 */
int task_logs_find_run(struct task_outcome *out, const struct loaded_sweep *l, size_t index,
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

/* Copies the new bytes of each file, with a header whenever the file changes (tail's way). */
int task_logs_copy_new(struct task_log_file *files, size_t n, int *shown, bool follow, bool visible)
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

/* Whether the sweep's command runs Python and its env: leaves stdout buffered. */
bool task_logs_python_buffered(const struct cfg *cfg)
{
	const char *cmd = cfg ? cfg->command : NULL, *env = getenv("PYTHONUNBUFFERED");

	/* Set where sweep runs, it most likely reached the task too (tasks get the
	 * environment they were submitted from). */
	if (!cmd || (env && *env) || !strstr(cmd, "python") || strstr(cmd, " -u ") ||
	    strstr(cmd, " -u\t"))
		return false;
	for (size_t i = 0; i < cfg->nenv; i++)
		if (!strcmp(cfg->env[i].name, "PYTHONUNBUFFERED") && cfg->env[i].value &&
		    *cfg->env[i].value)
			return false;
	return true;
}

/* The size of the stdout log now (0 when it is not there). */
static off_t out_size(const struct task_log_file *files, size_t n)
{
	struct stat st;

	for (size_t i = 0; i < n; i++)
		if (!strcmp(files[i].what, "stdout"))
			return lstat(files[i].path, &st) == 0 ? st.st_size : 0;
	return 0;
}

/* -f: until the task's latest run has ended, then what it wrote last. */
int task_logs_follow(struct task_log_file *files, size_t n, int *shown, struct loaded_sweep *l,
                     size_t index, bool visible)
{
	time_t asked = time(NULL), quiet_since = time(NULL);
	off_t size = out_size(files, n), now_size;
	bool told = false;

	while (!task_state_is_final(l->outcomes[index].state) ||
	       l->outcomes[index].state == TS_REQUEUED) {
		sleep(FOLLOW_POLL_S);
		if (task_logs_copy_new(files, n, shown, true, visible) < 0)
			return SWEEP_ERR;
		now_size = out_size(files, n);
		if (now_size != size) {
			size = now_size;
			quiet_since = time(NULL);
		}
		/* A Python program's print() waits in a block buffer when piped to a log. */
		if (!told && l->outcomes[index].state == TS_RUNNING &&
		    time(NULL) - quiet_since >= FOLLOW_QUIET_S) {
			const struct cfg *cfg = NULL;

			told = true;
			if (loaded_sweepfile(&cfg, l, LOADED_QUIET) == 0 && task_logs_python_buffered(cfg))
				fprintf(stderr,
				        "sweep: task %zu has printed nothing for %d s: Python keeps "
				        "stdout in a buffer when it is not a terminal, so its lines come "
				        "in blocks or at the end; add PYTHONUNBUFFERED: \"1\" under env: "
				        "in the sweep file (or run python -u)\n",
				        index, FOLLOW_QUIET_S);
		}
		if (time(NULL) - asked < FOLLOW_STATE_S)
			continue;
		asked = time(NULL);
		if (loaded_outcomes(l) < 0)
			return SWEEP_ERR;
	}
	return task_logs_copy_new(files, n, shown, true, visible);
}

/*
 * -f right after submit: slurmdbd hears of a new array job a moment after
 * sbatch returns, so the task has no record yet. Waits for one, a while.
 */
int task_logs_wait_record(struct loaded_sweep *l, size_t index)
{
	time_t start = time(NULL);

	while (l->outcomes[index].state == TS_MISSING && time(NULL) - start < FOLLOW_MISSING_S) {
		sleep(FOLLOW_POLL_S * 2);
		if (loaded_outcomes(l) < 0)
			return SWEEP_ERR;
	}
	return 0;
}
