/*
 * Packed tasks recorded by sweep itself (slurm_pack.h): the runner that
 * the packed array task's script starts per sweep task, and the reader of
 * its record files. A job step per task (srun) cost about 0.25 s of the
 * node's CPUs under load (pack: 100 at 10,000 tasks: 8.1x a bash loop);
 * a fork, an exec and wait4 cost what the loop costs.
 */
#define _GNU_SOURCE /* wait4, struct rusage's use with it */
#include "slurm_pack.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "array.h"
#include "error.h"
#include "strbuf.h"

#include "banned.h"

/* ---------------------------------------------------------------- the reader */

/* An unsigned decimal field and the space or end after it; false when it is not one. */
static bool field_u64(uint64_t *out, const char **p, const char *end)
{
	uint64_t v = 0;
	const char *s = *p;

	if (s >= end || *s < '0' || *s > '9')
		return false;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		if (v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	if (s < end && *s != ' ')
		return false;
	*out = v;
	*p = s < end ? s + 1 : s;
	return true;
}

static bool field_max(uint64_t *out, const char **p, const char *end, uint64_t max)
{
	return field_u64(out, p, end) && *out <= max;
}

int slb_pack_parse(struct slb_pack_line *out, const char *line, size_t len, const char **why)
{
	const char *p = line, *end = line + len;
	uint64_t index, restart, start, stop = 0, code = 0, sig = 0, rss = 0, cpu = 0;
	size_t hlen;

	memset(out, 0, sizeof(*out));
	if (len < 2 || (line[0] != 'S' && line[0] != 'E') || line[1] != ' ') {
		*why = "not a start (S) or end (E) line";
		return -1;
	}
	out->end = line[0] == 'E';
	p += 2;
	if (!field_max(&index, &p, end, UINT32_MAX - 1) ||
	    !field_max(&restart, &p, end, UINT32_MAX) || !field_max(&start, &p, end, INT64_MAX)) {
		*why = p >= end ? "truncated" : "a bad number";
		return -1;
	}
	if (out->end && (!field_max(&stop, &p, end, INT64_MAX) || !field_max(&code, &p, end, 255) ||
	                 !field_max(&sig, &p, end, 127) || !field_u64(&rss, &p, end) ||
	                 !field_u64(&cpu, &p, end))) {
		*why = p >= end ? "truncated" : "a bad number";
		return -1;
	}
	hlen = (size_t)(end - p);
	if (!hlen) {
		*why = "truncated";
		return -1;
	}
	if (hlen >= sizeof(out->host) || memchr(p, ' ', hlen) || memchr(p, '\0', hlen)) {
		*why = "a bad host name";
		return -1;
	}
	if (out->end && stop < start) {
		*why = "an end before the start";
		return -1;
	}
	out->index = (uint32_t)index;
	out->restart = (uint32_t)restart;
	out->start_us = (int64_t)start;
	out->end_us = (int64_t)stop;
	out->exit_code = (int)code;
	out->signal = (int)sig;
	out->maxrss_bytes = rss;
	out->cpu_us = cpu;
	memcpy(out->host, p, hlen);
	out->host[hlen] = '\0';
	return 0;
}

/* One sweep task of the file: its start and end lines of the run. */
struct packed {
	struct slb_pack_line start, end;
	bool started, ended;
	size_t order; /* of its first line in the file */
};

static int by_index(const void *a, const void *b)
{
	const struct packed *x = a, *y = b;

	if (x->start.index != y->start.index)
		return x->start.index < y->start.index ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

/* The array task ended before its tasks did: by the time limit, scancel, memory... */
static bool ended_early(enum task_state s)
{
	return task_state_is_final(s) && s != TS_COMPLETED && s != TS_FAILED && s != TS_REQUEUED;
}

static void fill(struct acct_rec *rec, const struct acct_rec *job, const struct packed *t,
                 bool last, int64_t now)
{
	int64_t start_s = t->start.start_us / 1000000;
	bool failed = t->ended && (t->end.exit_code || t->end.signal);

	rec->job_id = job->job_id;
	rec->array_job_id = job->array_job_id;
	rec->array_task_id = job->array_task_id;
	rec->step_index = t->start.index;
	rec->timelimit_s = job->timelimit_s;
	rec->req_mem_mb = job->req_mem_mb;
	rec->req_mem_per_cpu = job->req_mem_per_cpu;
	rec->ncpus = job->ncpus;
	rec->nnodes = 1;
	rec->nodes = xstrdup(t->start.host);
	rec->submit_time = job->submit_time;
	rec->start_time = start_s;
	if (t->ended && !(last && failed && ended_early(job->state))) {
		rec->state = failed ? TS_FAILED : TS_COMPLETED;
		rec->exit_code = t->end.exit_code;
		rec->signal = t->end.signal;
		rec->end_time = t->end.end_us / 1000000;
		rec->elapsed_s = (uint64_t)(t->end.end_us - t->end.start_us + 500000) / 1000000;
		rec->maxrss_bytes = t->end.maxrss_bytes;
		rec->node_mem_bytes = t->end.maxrss_bytes;
		rec->tasks_per_node = 1;
		rec->total_cpu_us = t->end.cpu_us;
		rec->steps_final = true;
		return;
	}
	if (!t->ended && !task_state_is_final(job->state) && job->state != TS_REQUEUED) {
		/* Running (or suspended with its array task). */
		rec->state = job->state == TS_SUSPENDED ? TS_SUSPENDED : TS_RUNNING;
		rec->elapsed_s = now > start_s ? (uint64_t)(now - start_s) : 0;
		return;
	}
	/*
	 * It did not end by itself: what ended the array task ended it (a time
	 * limit names the task that was running). Where this process could not
	 * write its end (killed with the array task), the array task's figures.
	 */
	rec->state = job->state == TS_COMPLETED ? TS_FAILED : job->state;
	if (t->ended) {
		rec->exit_code = t->end.exit_code;
		rec->signal = t->end.signal;
		rec->end_time = t->end.end_us / 1000000;
		rec->maxrss_bytes = t->end.maxrss_bytes;
		rec->total_cpu_us = t->end.cpu_us;
	} else {
		rec->exit_code = job->exit_code;
		rec->signal = job->signal;
		rec->end_time = job->end_time;
		rec->maxrss_bytes = job->maxrss_bytes;
	}
	rec->node_mem_bytes = rec->maxrss_bytes;
	rec->tasks_per_node = 1;
	rec->elapsed_s = rec->end_time > start_s ? (uint64_t)(rec->end_time - start_s) : 0;
	rec->steps_final = t->ended || job->steps_final;
}

size_t slb_pack_decode(struct acct_set *out, const struct acct_rec *job, uint32_t restart,
                       const char *text, size_t len, int64_t now, const char **why,
                       size_t *bad_line)
{
	struct packed *lines = NULL;
	size_t n = 0, m = 0, alloc = 0, bad = 0, lineno = 0, last = SIZE_MAX;
	const char *p = text, *end = text + len;

	*why = NULL;
	*bad_line = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
		struct slb_pack_line line;
		const char *w = "truncated";

		lineno++;
		/* A line without its newline was cut short (a full disk, a crash). */
		if (!nl || slb_pack_parse(&line, p, l, &w) < 0) {
			if (!bad++) {
				*why = w;
				*bad_line = lineno;
			}
		} else if (line.restart == restart) {
			ALLOC_GROW(lines, n + 1, alloc);
			memset(&lines[n], 0, sizeof(lines[n]));
			lines[n].order = n;
			lines[n].start = line;
			lines[n].end = line;
			lines[n].started = !line.end;
			lines[n].ended = line.end;
			n++;
		}
		p = nl ? nl + 1 : end;
	}
	/* By index, in the order written: each task's lines merged into one. */
	if (n)
		qsort(lines, n, sizeof(*lines), by_index);
	for (size_t i = 0; i < n;) {
		struct packed t = lines[i];
		size_t j = i + 1;

		for (; j < n && lines[j].start.index == t.start.index; j++) {
			if (lines[j].started) {
				t.start = lines[j].start;
				t.started = true;
			}
			if (lines[j].ended) {
				t.end = lines[j].end;
				t.ended = true;
			}
		}
		/* An end without its start line is read as its own start. */
		if (!t.started)
			t.start = t.end;
		/* An end of an earlier start is not this start's. */
		t.ended = t.ended && t.end.start_us >= t.start.start_us;
		lines[m++] = t;
		i = j;
	}
	/* The task started last was the one running when the array task ended. */
	for (size_t i = 0; i < m; i++)
		if (last == SIZE_MAX || lines[i].start.start_us > lines[last].start.start_us)
			last = i;
	for (size_t i = 0; i < m; i++)
		fill(acct_set_add(out), job, &lines[i], i == last, now);
	free(lines);
	return bad;
}

int slb_pack_read_file(struct strbuf *out, const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		return error("cannot read the packed tasks' records '%s': %s", path,
		             strerror(errno));
	}
	if (S_ISLNK(st.st_mode))
		return error("not reading the packed tasks' records '%s': it is a symbolic link, "
		             "not the file sweep writes",
		             path);
	if (st.st_uid != geteuid())
		return error("not reading the packed tasks' records '%s': it belongs to someone "
		             "else (uid %u), who could write what they like in it",
		             path, (unsigned)st.st_uid);
	if (strbuf_read_file_max(out, path, SLB_PACK_MAX_BYTES, STRBUF_READ_NOFOLLOW) < 0) {
		if (errno == EFBIG)
			return error("not reading the packed tasks' records '%s': larger than %u "
			             "bytes",
			             path, SLB_PACK_MAX_BYTES);
		if (errno == EINVAL)
			return error("not reading the packed tasks' records '%s': not a regular "
			             "file",
			             path);
		return error("cannot read the packed tasks' records '%s': %s", path,
		             strerror(errno));
	}
	return 1;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/*
 * Which run of its job id rec is: how many rows of that id started before
 * it. Rows of requeued tasks only are counted (runs: the sorted job ids of
 * the started rows), so that a read of 10,000 array tasks stays linear.
 */
static uint32_t run_of(const struct acct_set *set, size_t from, const struct acct_rec *rec,
                       const uint32_t *runs, size_t nruns)
{
	const uint32_t *hit = bsearch(&rec->job_id, runs, nruns, sizeof(*runs), cmp_u32);
	uint32_t n = 0;

	if (!hit || ((hit == runs || hit[-1] != rec->job_id) &&
	             (hit + 1 == runs + nruns || hit[1] != rec->job_id)))
		return 0;
	for (size_t r = from; r < set->n; r++) {
		const struct acct_rec *o = &set->recs[r];

		if (o != rec && o->job_id == rec->job_id && o->step_index == ACCT_NO_STEP &&
		    o->start_time && o->start_time < rec->start_time)
			n++;
	}
	return n;
}

void slb_pack_add(struct acct_set *set, size_t from, const char *sweep_dir,
                  const struct array_rec *arrays, size_t narrays, int64_t now)
{
	uint32_t *stepped = NULL, *runs = NULL;
	size_t nstepped = 0, alloc = 0, nruns = 0, ralloc = 0, end = set->n;
	struct strbuf text;
	bool packed = false;

	for (size_t a = 0; a < narrays; a++)
		packed |= arrays[a].pack > 1;
	if (!packed)
		return;
	/* Array tasks whose tasks were job steps (sweep-<index>): an older sweep's. */
	for (size_t r = from; r < end; r++) {
		if (set->recs[r].step_index != ACCT_NO_STEP) {
			ALLOC_GROW(stepped, nstepped + 1, alloc);
			stepped[nstepped++] = set->recs[r].job_id;
		} else if (set->recs[r].start_time) {
			ALLOC_GROW(runs, nruns + 1, ralloc);
			runs[nruns++] = set->recs[r].job_id;
		}
	}
	if (nruns)
		qsort(runs, nruns, sizeof(*runs), cmp_u32);
	if (nstepped)
		qsort(stepped, nstepped, sizeof(*stepped), cmp_u32);
	strbuf_init(&text, 0);
	for (size_t r = from; r < end; r++) {
		struct acct_rec job = set->recs[r]; /* a copy: adding moves the array */
		const char *why;
		size_t a, bad, line;
		char *path;

		if (job.step_index != ACCT_NO_STEP || job.array_task_id == ACCT_NO_TASK ||
		    !job.start_time || job.state == TS_PENDING ||
		    (nstepped &&
		     bsearch(&job.job_id, stepped, nstepped, sizeof(*stepped), cmp_u32)))
			continue;
		for (a = 0; a < narrays && arrays[a].job_id != job.array_job_id; a++)
			;
		if (a == narrays || arrays[a].pack <= 1)
			continue;
		path = xstrfmt("%s/%s/%" PRIu32, sweep_dir, ACCT_PACK_DIR, job.job_id);
		strbuf_reset(&text);
		if (slb_pack_read_file(&text, path) > 0) {
			bad = slb_pack_decode(set, &job,
			                      run_of(set, from, &set->recs[r], runs, nruns),
			                      text.buf, text.len, now, &why, &line);
			if (bad)
				warning(
				    "%zu line%s of '%s' could not be read (line %zu: %s); a task "
				    "whose line it was reads as not recorded",
				    bad, bad == 1 ? "" : "s", path, line, why);
		}
		free(path);
	}
	strbuf_release(&text);
	free(stepped);
	free(runs);
}

/* ---------------------------------------------------------------- the runner */

/* The signals the runner outlives: the warning signal's candidates and Slurm's TERM. */
static const int outlived[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM};

static void set_outlived(void (*how)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = how;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(outlived) / sizeof(outlived[0]); i++)
		sigaction(outlived[i], &sa, NULL);
}

static int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* One line, one write(2): O_APPEND keeps each whole among the others'. */
static int append_line(int fd, const char *path, const struct strbuf *line)
{
	ssize_t n;

	do
		n = write(fd, line->buf, line->len);
	while (n < 0 && errno == EINTR);
	if (n < 0 || (size_t)n != line->len)
		return error("cannot write to '%s': %s", path,
		             n < 0 ? strerror(errno) : "short write");
	return 0;
}

static int open_records(const char *path)
{
	struct stat st;
	int fd =
	    open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);

	if (fd < 0)
		return error("cannot open the packed tasks' records '%s': %s%s", path,
		             strerror(errno),
		             errno == ELOOP ? " (a symbolic link in its place)" : "");
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		close(fd);
		return error("refusing the packed tasks' records '%s': not a regular file of yours",
		             path);
	}
	return fd;
}

int slb_pack_run(int argc, char **argv)
{
	struct strbuf line;
	struct rusage ru;
	char host[256], *end;
	const char *path, *restart_env = getenv("SLURM_RESTART_COUNT");
	unsigned long index, restart = 0;
	int64_t start, stop;
	int fd, status = 0, ret;
	pid_t pid, got;

	/* First: a signal forwarded the moment this starts must not end it unrecorded. */
	set_outlived(SIG_IGN);
	if (argc < 5 || strcmp(argv[3], "--")) {
		error("usage: sweep %s FILE INDEX -- COMMAND [ARG...]", ACCT_PACK_COMMAND);
		return 2;
	}
	path = argv[1];
	errno = 0;
	index = strtoul(argv[2], &end, 10);
	if (errno || end == argv[2] || *end || index >= UINT32_MAX) {
		error("%s: bad task index '%s'", ACCT_PACK_COMMAND, argv[2]);
		return 2;
	}
	if (restart_env && *restart_env)
		restart = strtoul(restart_env, NULL, 10);
	if (gethostname(host, sizeof(host)) < 0 || !*host)
		snprintf(host, sizeof(host), "unknown");
	host[sizeof(host) - 1] = '\0';
	for (char *h = host; *h; h++)
		if (*h == ' ' || *h == '\n')
			*h = '_';
	fd = open_records(path);
	if (fd < 0)
		return 1;
	strbuf_init(&line, 256);
	start = now_us();
	strbuf_addf(&line, "S %lu %lu %" PRId64 " %s\n", index, restart, start, host);
	if (append_line(fd, path, &line) < 0) {
		ret = 1;
		goto out;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		error("cannot start task %lu: %s", index, strerror(errno));
		ret = 1;
		goto out;
	}
	if (pid == 0) {
		set_outlived(SIG_DFL);
		execvp(argv[4], argv + 4);
		fprintf(stderr, "sweep: error: cannot run '%s': %s\n", argv[4], strerror(errno));
		_exit(127);
	}
	do
		got = wait4(pid, &status, 0, &ru);
	while (got < 0 && errno == EINTR);
	stop = now_us();
	if (got < 0) {
		error("cannot wait for task %lu: %s", index, strerror(errno));
		memset(&ru, 0, sizeof(ru));
		status = 1 << 8;
	}
	strbuf_reset(&line);
	/* ru_maxrss is in KiB on Linux. */
	strbuf_addf(&line, "E %lu %lu %" PRId64 " %" PRId64 " %d %d %" PRIu64 " %" PRIu64 " %s\n",
	            index, restart, start, stop < start ? start : stop,
	            WIFEXITED(status) ? WEXITSTATUS(status) : 0,
	            WIFSIGNALED(status) ? WTERMSIG(status) : 0, (uint64_t)ru.ru_maxrss * 1024,
	            (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 +
	                (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec),
	            host);
	append_line(fd, path, &line);
	ret = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
out:
	strbuf_release(&line);
	close(fd);
	return ret;
}
