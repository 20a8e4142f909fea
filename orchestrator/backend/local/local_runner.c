/*
 * The local backend's runner: one process per array job stands in for
 * slurmctld and slurmd (see local.c). Its turn under the lab's rules and
 * the board is local_turn.c; local_runner_impl.h is what the two share.
 */
/* wait4 (one child's own resource use, its peak RSS) is BSD, not POSIX. */
#define _DEFAULT_SOURCE
#include "local.h"

#include <ctype.h>
#include <dirent.h>
#include <grp.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "array.h"
#include "board.h"
#include "error.h"
#include "path.h"
#include "finish.h"
#include "gpu.h"
#include "local_impl.h"
#include "local_runner_impl.h"
#include "outcome.h"
#include "proc.h"
#include "rules.h"
#include "sbopt.h"
#include "store.h"
#include "strbuf.h"
#include "units.h"

#include "banned.h"

/* ---- The runner ------------------------------------------------------------------------------ */

/* Sends sig to every process of the run's sessions; returns how many. */
static size_t signal_run(const struct run *run, int sig)
{
	size_t n = 0;

	for (size_t k = 0; k < run->nsids; k++)
		n += local_signal_session(run->sids[k], run->rec.pid_start, sig);
	return n;
}

static bool run_has_sid(const struct run *run, long sid)
{
	for (size_t k = 0; k < run->nsids; k++)
		if (run->sids[k] == sid)
			return true;
	return false;
}

static volatile sig_atomic_t got_child, got_stop;

static void on_child(int sig)
{
	(void)sig;
	got_child = 1;
}

static void on_stop(int sig)
{
	(void)sig;
	got_stop = 1;
}

double local_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void local_say(const char *fmt, ...)
{
	char when[32];
	time_t now = time(NULL);
	struct tm tm;
	va_list ap;

	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime_r(&now, &tm));
	printf("%s ", when);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static void release_gpus(struct run *run)
{
	for (size_t g = 0; g < run->ngpus; g++) {
		if (run->locks[g] >= 0)
			close(run->locks[g]);
		free(run->uuids[g]);
	}
	free(run->uuids);
	free(run->indices);
	free(run->locks);
	run->uuids = NULL;
	run->indices = NULL;
	run->locks = NULL;
	run->ngpus = 0;
}

bool local_held_here(const struct runner *r, const char *uuid)
{
	for (size_t i = 0; i < r->nruns; i++)
		for (size_t g = 0; g < r->runs[i].ngpus; g++)
			if (!strcmp(r->runs[i].uuids[g], uuid))
				return true;
	return false;
}

/* Free GPUs that none of this runner's tasks holds. */
static size_t gpus_available(const struct runner *r, const struct gpu_set *set)
{
	size_t n = 0;

	for (size_t i = 0; i < set->ngpus; i++)
		n += set->gpus[i].verdict == GPU_FREE && !local_held_here(r, set->gpus[i].uuid);
	return n;
}

/* Whether the runner said already that uuid's lock is unsafe; with add, remembers it did. */
static bool lock_refused(struct runner *r, const char *uuid, bool add)
{
	char *entry = xstrfmt("\n%s\n", uuid);
	bool found = r->refused_locks.len && strstr(r->refused_locks.buf, entry);

	if (add && !found)
		strbuf_addstr(&r->refused_locks, entry + (r->refused_locks.len ? 1 : 0));
	free(entry);
	return found;
}

/*
 * Gives run r->arr.gpus GPUs, lowest index first, of those only marked in
 * only (by position in set; NULL: any); 0, or -1 when too few could be locked.
 */
int local_take_gpus(struct runner *r, struct run *run, const struct gpu_set *set,
                    struct strbuf *ids, const bool *only)
{
	run->uuids = xcalloc(r->arr.gpus, sizeof(*run->uuids));
	run->indices = xcalloc(r->arr.gpus, sizeof(*run->indices));
	run->locks = xcalloc(r->arr.gpus, sizeof(*run->locks));
	for (size_t i = 0; i < set->ngpus && run->ngpus < r->arr.gpus; i++) {
		const struct gpu *g = &set->gpus[i];
		int fd;

		if (g->verdict != GPU_FREE || local_held_here(r, g->uuid) || (only && !only[i]))
			continue;
		fd = gpu_lock(g->uuid, !lock_refused(r, g->uuid, false));
		if (fd == GPU_LOCK_UNSAFE)
			lock_refused(r, g->uuid, true);
		if (fd == GPU_LOCK_HELD || fd == GPU_LOCK_UNSAFE)
			continue;
		run->uuids[run->ngpus] = xstrdup(g->uuid);
		run->indices[run->ngpus] = g->index;
		run->locks[run->ngpus++] = fd;
		strbuf_addf(ids, "%s%u", ids->len ? "," : "", g->index);
	}
	if (run->ngpus == r->arr.gpus)
		return 0;
	release_gpus(run);
	strbuf_reset(ids);
	return -1;
}

static int save(struct runner *r, const struct run *run)
{
	if (store_local_update_task(r->st, &run->rec) < 0) {
		local_say("task %" PRIu32 ": could not record its state (see the error above)",
		          run->rec.array_task_id);
		return SWEEP_ERR;
	}
	return 0;
}

/* The blank end note (local.h), made while the disk still has room for it. */
static void make_end_note(const struct runner *r, const struct run *run)
{
	char *path = local_end_note_path(r->sweep_dir, run->rec.job_id);
	char blank[LOCAL_END_NOTE_BYTES];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);

	memset(blank, ' ', sizeof(blank));
	if (fd >= 0 && write(fd, blank, sizeof(blank)) != (ssize_t)sizeof(blank)) {
		close(fd);
		fd = -1;
		unlink(path);
	}
	if (fd >= 0)
		close(fd);
	free(path);
}

/*
 * Records a task's end; when the store cannot (a full disk), writes it
 * over the end note's blanks, which needs no new room, for status to read.
 */
static void save_end(struct runner *r, const struct run *run)
{
	char *path = local_end_note_path(r->sweep_dir, run->rec.job_id);
	struct strbuf note = STRBUF_INIT;
	int fd;

	if (save(r, run) == 0) {
		unlink(path);
		free(path);
		return;
	}
	local_end_note_format(&note, &run->rec);
	fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && pwrite(fd, note.buf, note.len, 0) == (ssize_t)note.len)
		local_say("task %" PRIu32 ": its end is kept in '%s' instead",
		          run->rec.array_task_id, path);
	else
		local_say("task %" PRIu32 ": cannot keep its end in '%s' either: %s",
		          run->rec.array_task_id, path, fd < 0 ? strerror(errno) : "short write");
	if (fd >= 0)
		close(fd);
	strbuf_release(&note);
	free(path);
}

static void log_path(struct strbuf *out, const struct runner *r, const struct run *run,
                     const char *pattern)
{
	if (pattern[0] != '/')
		strbuf_addf(out, "%s/", r->arr.workdir);
	local_expand_pattern(out, pattern, r->arr.name, r->arr.job_id, run->rec.array_task_id,
	                     run->rec.job_id);
}

static void fail_unstarted(struct runner *r, struct run *run)
{
	release_gpus(run);
	run->rec.state = TS_FAILED;
	run->rec.exit_code = 1;
	run->rec.start_time = run->rec.end_time = (int64_t)time(NULL);
	save_end(r, run);
}

void local_start_task(struct runner *r, struct run *run, const char *gpus)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	const char *argv[] = {r->arr.script, r->offset, NULL};
	struct local_env e = {0};
	struct local_task_env te;
	char **env = NULL;
	int ofd = -1, efd = -1, nullfd = -1;
	/* --open-mode: truncate, Slurm's default, or append. */
	int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (r->arr.append ? O_APPEND : O_TRUNC);
	struct pstat ps;
	pid_t pid;

	make_end_note(r, run);
	log_path(&out, r, run, r->arr.out_pattern);
	log_path(&err, r, run, r->arr.err_pattern);
	/* As Slurm's with sweep's SLURM_UMASK (slurm_submit.c): at most PATH_SHARED_FILE. */
	ofd = open(out.buf, flags, PATH_SHARED_FILE);
	efd = strcmp(out.buf, err.buf) ? open(err.buf, flags, PATH_SHARED_FILE) : ofd;
	nullfd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (ofd < 0 || efd < 0 || nullfd < 0) {
		local_say("task %" PRIu32 ": cannot open its log '%s': %s", run->rec.array_task_id,
		          ofd < 0 ? out.buf : err.buf, strerror(errno));
		fail_unstarted(r, run);
		goto out;
	}
	te.arr = &r->arr;
	te.task = &run->rec;
	te.count = r->nruns;
	te.task_min = r->task_min;
	te.task_max = r->task_max;
	te.host = r->host;
	te.gpus = gpus;
	local_task_env(&e, &te);
	env = local_task_environ(&e);
	pid = fork();
	if (pid == 0)
		local_task_exec(r->arr.workdir, nullfd, ofd, efd, argv, env);
	if (pid < 0) {
		local_say("task %" PRIu32 ": cannot start: %s", run->rec.array_task_id,
		          strerror(errno));
		fail_unstarted(r, run);
		goto out;
	}
	run->pid = pid;
	run->sids[0] = pid;
	run->nsids = 1;
	run->started = local_now_s();
	run->rec.state = TS_RUNNING;
	run->rec.pid = pid;
	run->rec.pid_start = local_read_pstat(&ps, pid) == 0 ? ps.start : 0;
	run->rec.start_time = (int64_t)time(NULL);
	run->rec.gpus = gpus ? xstrdup(gpus) : NULL;
	r->running++;
	save(r, run);
	local_say("task %" PRIu32 " (job %" PRIu32 "): started, pid %d%s%s", run->rec.array_task_id,
	          run->rec.job_id, (int)pid, gpus ? ", GPUs " : "", gpus ? gpus : "");
out:
	if (ofd >= 0)
		close(ofd);
	if (efd >= 0 && efd != ofd)
		close(efd);
	if (nullfd >= 0)
		close(nullfd);
	local_env_release(&e);
	free(env);
	strbuf_release(&out);
	strbuf_release(&err);
}

static void finish_task(struct runner *r, struct run *run, int wstatus, const struct rusage *ru)
{
	uint64_t kernel_peak = (uint64_t)ru->ru_maxrss * 1024; /* KiB on Linux */
	char rss[32];

	/* Whatever the task left running would be killed by Slurm at its end too. */
	signal_run(run, SIGKILL);
	release_gpus(run);
	run->rec.state = local_final_state(wstatus, run->why);
	run->rec.exit_code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 0;
	run->rec.signal = WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0;
	run->rec.end_time = (int64_t)time(NULL);
	run->rec.maxrss_bytes = run->peak > kernel_peak ? run->peak : kernel_peak;
	/* The script and every descendant it waited for, as Slurm's TotalCPU counts. */
	run->rec.cpu_us = (uint64_t)ru->ru_utime.tv_sec * 1000000u +
	                  (uint64_t)ru->ru_utime.tv_usec +
	                  (uint64_t)ru->ru_stime.tv_sec * 1000000u + (uint64_t)ru->ru_stime.tv_usec;
	run->pid = 0;
	run->nsids = 0;
	r->running--;
	r->gpu_retry_at = 0;
	r->board_dirty = true;
	save_end(r, run);
	units_format_bytes(rss, sizeof(rss), run->rec.maxrss_bytes);
	local_say("task %" PRIu32 ": %s, exit code %d:%d, %" PRId64 " s, MaxRSS %s",
	          run->rec.array_task_id, task_state_name((enum task_state)run->rec.state),
	          run->rec.exit_code, run->rec.signal, run->rec.end_time - run->rec.start_time,
	          rss);
}

static void reap(struct runner *r)
{
	struct rusage ru;
	int wstatus;
	pid_t pid;

	while ((pid = wait4(-1, &wstatus, WNOHANG, &ru)) > 0)
		for (size_t i = 0; i < r->nruns; i++)
			if (r->runs[i].pid == pid) {
				finish_task(r, &r->runs[i], wstatus, &ru);
				break;
			}
	/* Others are orphans a task left, adopted by this subreaper. */
}

static void enforce(struct runner *r, double now)
{
	for (size_t i = 0; i < r->nruns; i++) {
		struct run *run = &r->runs[i];
		double elapsed = now - run->started;

		if (!run->pid)
			continue;
		if (!run->warned && r->dl.warn_at >= 0 && elapsed >= (double)r->dl.warn_at) {
			run->warned = true;
			kill(run->pid, r->arr.warn_signal);
			local_say("task %" PRIu32
			          ": sent SIG%s to its script, %u s before its time limit",
			          run->rec.array_task_id, local_signal_name(r->arr.warn_signal),
			          r->arr.warn_s);
		}
		if (!run->termed && r->dl.term_at >= 0 && elapsed >= (double)r->dl.term_at) {
			run->termed = true;
			run->why = LOCAL_STOP_TIMEOUT;
			run->kill_at = run->started + (double)r->dl.kill_at;
			signal_run(run, SIGTERM);
			local_say("task %" PRIu32
			          ": time limit reached, sent SIGTERM (SIGKILL in %d s)",
			          run->rec.array_task_id, TERM_GRACE_S);
		}
		if (run->kill_at > 0 && now >= run->kill_at)
			signal_run(run, SIGKILL);
	}
}

/* One pass over /proc: each running task's sessions' RSS; over its request, it is killed. */
static void poll_memory(struct runner *r, double now)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	struct proc_seen {
		long pid, ppid, sid;
		uint64_t rss_pages;
	} *procs = NULL;
	size_t nprocs = 0, alloc = 0;
	bool grew = true;
	DIR *d;
	struct dirent *de;

	if (!r->running)
		return;
	d = opendir("/proc");
	if (!d)
		return;
	for (size_t i = 0; i < r->nruns; i++)
		r->runs[i].rss = 0;
	while ((de = readdir(d))) {
		long pid = local_digits_value(de->d_name);
		struct pstat ps;

		if (pid <= 0 || local_read_pstat(&ps, pid) < 0 || ps.state == 'Z' ||
		    ps.state == 'X')
			continue;
		ALLOC_GROW(procs, nprocs + 1, alloc);
		procs[nprocs++] = (struct proc_seen){pid, ps.ppid, ps.session, ps.rss_pages};
	}
	closedir(d);
	/* A session made by a task's process (setsid) belongs to the task. */
	while (grew) {
		grew = false;
		for (size_t p = 0; p < nprocs; p++) {
			struct run *owner = NULL;

			for (size_t i = 0; i < r->nruns && !owner; i++)
				if (r->runs[i].pid && run_has_sid(&r->runs[i], procs[p].sid))
					owner = &r->runs[i];
			if (owner)
				continue;
			for (size_t q = 0; q < nprocs && !owner; q++) {
				if (procs[q].pid != procs[p].ppid)
					continue;
				for (size_t i = 0; i < r->nruns && !owner; i++)
					if (r->runs[i].pid &&
					    run_has_sid(&r->runs[i], procs[q].sid))
						owner = &r->runs[i];
			}
			if (owner && owner->nsids < RUN_MAX_SIDS) {
				owner->sids[owner->nsids++] = procs[p].sid;
				local_say("task %" PRIu32
				          ": follows session %ld, made by its process %ld",
				          owner->rec.array_task_id, procs[p].sid, procs[p].pid);
				grew = true;
			}
		}
	}
	for (size_t p = 0; p < nprocs; p++)
		for (size_t i = 0; i < r->nruns; i++)
			if (r->runs[i].pid && run_has_sid(&r->runs[i], procs[p].sid)) {
				r->runs[i].rss += procs[p].rss_pages * page;
				break;
			}
	free(procs);
	for (size_t i = 0; i < r->nruns; i++) {
		struct run *run = &r->runs[i];
		char rss[32], req[32];

		if (!run->pid)
			continue;
		if (run->rss > run->peak)
			run->peak = run->rss;
		if (!r->arr.mem_mb || run->rss <= r->arr.mem_mb * 1024 * 1024 || run->why)
			continue;
		run->why = LOCAL_STOP_MEMORY;
		run->kill_at = now;
		signal_run(run, SIGKILL);
		units_format_bytes(rss, sizeof(rss), run->rss);
		units_format_mem(req, sizeof(req), r->arr.mem_mb);
		local_say("task %" PRIu32 ": uses %s, over its --mem=%s: killed",
		          run->rec.array_task_id, rss, req);
	}
}

void local_this_host(char *buf, size_t size)
{
	if (gethostname(buf, size - 1) < 0)
		snprintf(buf, size, "localhost");
	buf[size - 1] = '\0';
}

/* Whether the runner still runs; one on another machine (a shared state folder) is trusted. */
bool local_runner_alive(const struct local_array_rec *arr, int64_t now, const char *host)
{
	if (arr->host && *arr->host && strcmp(arr->host, host))
		return true;
	if (!arr->runner_pid)
		return now - arr->submit_time < START_GRACE_S;
	return local_process_is(arr->runner_pid, arr->runner_start);
}

/* --dependency=afterany: the earlier local array job has ended, or will never go on. */
static void check_after(struct runner *r)
{
	struct local_array_rec before;
	struct local_task_rec *tasks = NULL;
	size_t n = 0;
	bool done = true;

	if (store_local_load_array(r->st, &before, r->arr.after_job_id) < 0) {
		r->after_done = true; /* not one of ours: nothing to wait for */
		return;
	}
	if (store_local_load_tasks(r->st, &tasks, &n, before.job_id) == 0 &&
	    local_runner_alive(&before, (int64_t)time(NULL), r->host))
		for (size_t i = 0; i < n; i++)
			if (!task_state_is_final((enum task_state)tasks[i].state))
				done = false;
	local_task_recs_free(tasks, n);
	local_array_rec_release(&before);
	if (done)
		local_say("array job %" PRIu32 " has ended: starting", r->arr.after_job_id);
	r->after_done = done;
}

struct run *local_next_pending(struct runner *r)
{
	while (r->next < r->nruns && r->runs[r->next].rec.state != TS_PENDING)
		r->next++;
	return r->next < r->nruns ? &r->runs[r->next] : NULL;
}

size_t local_count_pending(const struct runner *r)
{
	size_t n = 0;

	for (size_t i = r->next; i < r->nruns; i++)
		n += r->runs[i].rec.state == TS_PENDING;
	return n;
}

static void start_tasks(struct runner *r, double now)
{
	size_t pending = local_count_pending(r), n;
	struct gpu_set set;
	int turn = GPU_LOCK_NONE;

	if (!pending)
		return;
	if (!r->arr.gpus) {
		n = local_schedule(r->running, pending, r->arr.throttle, 0, 0);
		for (size_t k = 0; k < n; k++)
			local_start_task(r, local_next_pending(r), NULL);
		return;
	}
	if (now < r->gpu_retry_at || !local_schedule(r->running, pending, r->arr.throttle, 0, 0))
		return;
	r->gpu_retry_at = now + GPU_RETRY_S;
	if (local_turn_load_rules(r) < 0) {
		/* A rule file that does not read holds the tasks back: it may hold a cap. */
		struct strbuf why = STRBUF_INIT;

		strbuf_addf(&why, "rules: '%s' does not read (see the runner's log)", rules_path());
		local_turn_set_reason(r, why.buf);
		strbuf_release(&why);
		if (!r->waiting_since)
			r->waiting_since = (int64_t)time(NULL);
		return;
	}
	gpu_set_init(&set);
	if (gpu_query(&set, false) < 0)
		goto out; /* reported; asked again in a moment */
	gpu_select(&set, 0);
	if (r->rules_found) {
		/* The turn covers reading the board, deciding, locking and posting. */
		turn = local_turn_take();
		if (turn == GPU_LOCK_HELD) {
			r->gpu_retry_at = now + 0.2;
			goto out;
		}
		local_turn_start_by_rules(r, &set, (int64_t)time(NULL));
		if (r->board_dirty)
			local_turn_post_board(r, local_now_s()); /* before the turn passes on */
		goto out;
	}
	n = local_schedule(r->running, pending, r->arr.throttle, r->arr.gpus,
	                   gpus_available(r, &set));
	if (!n && !r->gpu_waiting)
		local_say(
		    "waiting for GPUs: each task asks %u, %zu of the %zu GPUs are free and not "
		    "ours (see sweep gpus)",
		    r->arr.gpus, gpus_available(r, &set), set.ngpus);
	r->gpu_waiting = !n;
	if (!n && !r->waiting_since) {
		r->waiting_since = (int64_t)time(NULL);
		r->board_dirty = true;
	}
	for (size_t k = 0; k < n; k++) {
		struct strbuf ids = STRBUF_INIT;
		struct run *run = local_next_pending(r);

		if (local_take_gpus(r, run, &set, &ids, NULL) < 0) {
			strbuf_release(&ids);
			break; /* locked by another runner: wait */
		}
		local_start_task(r, run, ids.buf);
		strbuf_release(&ids);
		r->waiting_since = 0;
		r->board_dirty = true;
	}
	if (n)
		r->gpu_retry_at = 0;
out:
	gpu_set_release(&set);
	if (turn >= 0)
		close(turn);
}

static void begin_cancel(struct runner *r, double now)
{
	int64_t when = (int64_t)time(NULL);

	r->stopping = true;
	if (store_local_cancel_pending(r->st, r->arr.job_id, when) < 0)
		local_say("could not record the pending tasks as cancelled (see the error above)");
	for (size_t i = 0; i < r->nruns; i++) {
		struct run *run = &r->runs[i];

		if (run->rec.state == TS_PENDING) {
			run->rec.state = TS_CANCELLED;
			run->rec.end_time = when;
		} else if (run->pid) {
			if (run->why == LOCAL_STOP_NONE)
				run->why = LOCAL_STOP_CANCEL;
			run->termed = true;
			run->kill_at = now + CANCEL_GRACE_S;
			signal_run(run, SIGTERM);
		}
	}
	local_say("cancelled: pending tasks will not start, running ones got SIGTERM");
}

static int runner_load(struct runner *r, const char *state_dir, uint32_t job_id)
{
	struct local_task_rec *tasks = NULL;
	size_t n = 0;

	if (store_open(&r->st, state_dir, 0) < 0 ||
	    store_local_load_array(r->st, &r->arr, job_id) < 0 ||
	    store_local_load_tasks(r->st, &tasks, &n, job_id) < 0)
		return SWEEP_ERR;
	r->runs = xcalloc(n ? n : 1, sizeof(*r->runs));
	r->nruns = n;
	for (size_t i = 0; i < n; i++)
		r->runs[i].rec = tasks[i]; /* takes over its gpus string */
	free(tasks);
	if (n) {
		r->task_min = r->runs[0].rec.array_task_id;
		r->task_max = r->runs[n - 1].rec.array_task_id;
	}
	local_deadlines(&r->dl, r->arr.time_limit_s, r->arr.warn_signal, r->arr.warn_s,
	                TERM_GRACE_S);
	snprintf(r->offset, sizeof(r->offset), "%" PRIu32, r->arr.offset);
	local_this_host(r->host, sizeof(r->host));
	r->after_done = !r->arr.after_job_id;
	{
		struct passwd *pw = getpwuid(geteuid());

		r->user = pw ? xstrdup(pw->pw_name) : xstrfmt("%u", (unsigned)geteuid());
	}
	{
		struct sweep_policy p;
		const char *slash = strrchr(r->arr.script, '/');

		if (store_load_policy(r->st, &p, r->arr.sweep_id) < 0)
			return SWEEP_ERR;
		r->fail_fast = p.fail_fast;
		sweep_policy_release(&p);
		r->sweep_dir = xstrndup(r->arr.script, slash ? (size_t)(slash - r->arr.script) : 0);
	}
	return 0;
}

static void runner_release(struct runner *r)
{
	for (size_t i = 0; i < r->nruns; i++) {
		release_gpus(&r->runs[i]);
		free(r->runs[i].rec.gpus);
		free(r->runs[i].rec.reason);
	}
	free(r->runs);
	local_array_rec_release(&r->arr);
	store_close(r->st);
	free(r->sweep_dir);
	strbuf_release(&r->refused_locks);
	board_withdraw(&r->board);
	rules_release(&r->rules);
	strbuf_release(&r->reason);
	free(r->user);
	memset(r, 0, sizeof(*r));
}

static int (*end_hook)(const char *state_dir, int64_t sweep_id, uint32_t job_id);

void local_set_end_hook(int (*hook)(const char *state_dir, int64_t sweep_id, uint32_t job_id))
{
	end_hook = hook;
}

/*
 * fail_fast: the failing task's script counts itself in the sweep folder;
 * with no scheduler to scancel, the runner stops its own tasks once the
 * count is reached.
 */
static void check_fail_fast(struct runner *r, double now)
{
	size_t *failed = NULL, n = 0;

	if (!r->fail_fast || r->stopping)
		return;
	if (finish_read_failures(&failed, &n, r->sweep_dir) == 0 && n >= r->fail_fast) {
		local_say("runner %d: %zu tasks failed (fail_fast: %u): stopping the rest",
		          (int)getpid(), n, r->fail_fast);
		begin_cancel(r, now);
	}
	free(failed);
}

int local_runner_main(int argc, char **argv)
{
	struct runner r = {0};
	struct sigaction sa;
	sigset_t block, wait_mask;
	double next_poll = 0;
	unsigned long job_id;
	char *end;

	strbuf_init(&r.refused_locks, 0);
	strbuf_init(&r.reason, 0);
	r.board.fd = -1;
	rules_init(&r.rules);
	if (argc != 3 || (job_id = strtoul(argv[2], &end, 10)) == 0 || *end ||
	    job_id > UINT32_MAX) {
		error("usage: sweep %s STATE_DIR JOB_ID (sweep submit --local starts it)",
		      LOCAL_RUNNER_COMMAND);
		return EXIT_USAGE;
	}
	/* Signals wait while the loop works; pselect lets them in while it sleeps. */
	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, &wait_mask);
	sigdelset(&wait_mask, SIGCHLD);
	sigdelset(&wait_mask, SIGTERM);
	sigdelset(&wait_mask, SIGINT);
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_child;
	sigaction(SIGCHLD, &sa, NULL);
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);

	if (runner_load(&r, argv[1], (uint32_t)job_id) < 0) {
		runner_release(&r);
		return EXIT_ERROR;
	}
	local_say("runner %d: array job %" PRIu32 " of sweep %" PRId64
	          ", %zu task%s, at most %u at "
	          "once%s",
	          (int)getpid(), r.arr.job_id, r.arr.sweep_id, r.nruns, r.nruns == 1 ? "" : "s",
	          r.arr.throttle, r.after_done ? "" : ", after the previous array job");
	for (;;) {
		double now = local_now_s();
		struct timespec ts;
		double wait;

		got_child = 0;
		reap(&r);
		if (got_stop && !r.stopping)
			begin_cancel(&r, now);
		enforce(&r, now);
		check_fail_fast(&r, now);
		if (now >= next_poll) {
			poll_memory(&r, now);
			if (!r.after_done)
				check_after(&r);
			if (r.arr.gpus)
				local_turn_watch_board(&r);
			next_poll = now + POLL_S;
		}
		if (!r.stopping && r.after_done)
			start_tasks(&r, now);
		if (r.arr.gpus && (r.board_dirty || now >= r.board_at))
			local_turn_post_board(&r, local_now_s());
		if (!r.running && (r.stopping || !local_next_pending(&r)))
			break;
		wait = next_poll - local_now_s();
		if (wait <= 0 || got_child || (got_stop && !r.stopping))
			continue;
		ts.tv_sec = (time_t)wait;
		ts.tv_nsec = (long)((wait - (double)ts.tv_sec) * 1e9);
		pselect(0, NULL, NULL, NULL, &ts, &wait_mask);
	}
	local_say("runner %d: array job %" PRIu32 " done", (int)getpid(), r.arr.job_id);
	if (end_hook) {
		int64_t sweep_id = r.arr.sweep_id;
		uint32_t job = r.arr.job_id;

		runner_release(&r);
		fflush(stdout);
		return end_hook(argv[1], sweep_id, job) < 0 ? EXIT_ERROR : EXIT_OK;
	}
	runner_release(&r);
	return EXIT_OK;
}
