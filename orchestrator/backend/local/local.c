/*
 * The local side of the seam: one runner process per array job stands in
 * for slurmctld and slurmd. It is the sweep binary itself, so only sweep
 * writes the state store, and it exits with its array job: nothing of
 * sweep outlives a sweep.
 *
 * A task is its script's process made a session leader (setsid): the
 * command the script starts in a process group of its own stays in that
 * session, so "the task's processes" are the processes of its session,
 * found in /proc without any cgroup. The runner is also a child subreaper,
 * so whatever a task leaves behind is reaped here.
 */
/* wait4 (one child's own resource use, its peak RSS) is BSD, not POSIX. */
#define _DEFAULT_SOURCE
#include "local.h"

#include <ctype.h>
#include <dirent.h>
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
#include "error.h"
#include "path.h"
#include "gpu.h"
#include "rules.h"
#include "local_impl.h"
#include "outcome.h"
#include "proc.h"
#include "sbopt.h"
#include "store.h"
#include "strbuf.h"
#include "taskdir.h"
#include "units.h"

#include "banned.h"

/* ---- The seam: submit, records, cancel ------------------------------------------------------ */

/* The state folder and sweep of a script, laid out as <state>/sweeps/<id>/<name>.sbatch. */
static int locate_sweep(char **state_dir, int64_t *id, const char *script)
{
	const char *slash = strrchr(script, '/'), *p;
	size_t len;

	if (script[0] != '/' || !slash)
		goto bad;
	for (p = slash; p > script && p[-1] != '/'; p--)
		;
	len = (size_t)(slash - p);
	if (!len || p - script < 8 || strncmp(p - 8, "/sweeps/", 8))
		goto bad;
	*id = 0;
	for (const char *d = p; d < slash; d++) {
		if (*d < '0' || *d > '9' || *id > INT64_MAX / 10 - 10)
			goto bad;
		*id = *id * 10 + (*d - '0');
	}
	*state_dir = xstrndup(script, (size_t)(p - 8 - script));
	return 0;
bad:
	return error("'%s' is not a script sweep wrote into a state folder: the local runner runs "
	             "only those",
	             script);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The --array value's task ids (ascending, distinct) and its %K throttle (0 when none). */
static int read_array(uint32_t **ids, size_t *n, unsigned *throttle, const char *spec)
{
	const char *pct = strchr(spec, '%'), *why;
	size_t k = 0;

	if (array_parse_tasks(ids, n, spec, UINT32_MAX, &why) < 0)
		return error("cannot read the --array value '%s': %s", spec, why);
	if (!*n)
		return error("the --array value '%s' names no task", spec);
	qsort(*ids, *n, sizeof(**ids), cmp_u32);
	for (size_t i = 0; i < *n; i++)
		if (!k || (*ids)[k - 1] != (*ids)[i])
			(*ids)[k++] = (*ids)[i];
	*n = k;
	*throttle = pct ? (unsigned)strtoul(pct + 1, NULL, 10) : 0;
	return 0;
}

/* Without a throttle: as many tasks at once as the CPUs hold. */
static unsigned default_throttle(unsigned ncpus)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	long k = online > 0 ? online / (long)(ncpus ? ncpus : 1) : 1;

	return k > 0 ? (unsigned)k : 1;
}

/* The lab's rules read, and let a task of this sweep run at all. */
static int check_rules(unsigned want)
{
	struct rules rules;
	bool found;
	int ret;

	rules_init(&rules);
	ret = rules_load(&rules, &found);
	if (!ret && found && rules.max_gpus && want > rules.max_gpus)
		ret =
		    error("each task asks %u GPUs and the lab's rules ('%s') let one user hold %u "
		          "at once; ask fewer (--gpus-per-task)",
		          want, rules.file, rules.max_gpus);
	rules_release(&rules);
	return ret;
}

static int check_gpus(unsigned want)
{
	struct gpu_set set;
	int ret = 0;

	gpu_set_init(&set);
	if (gpu_query(&set, false) < 0)
		return error("each task asks %u GPU%s: cannot run them here", want,
		             want == 1 ? "" : "s");
	if (set.ngpus < want)
		ret = error("each task asks %u GPU%s and this machine has %zu%s", want,
		            want == 1 ? "" : "s", set.ngpus,
		            set.ngpus ? "" : " (nvidia-smi lists none)");
	gpu_set_release(&set);
	if (!ret)
		ret = gpu_lock_check_dir();
	if (!ret)
		ret = check_rules(want);
	return ret;
}

/* In a child: closes what the caller of sweep left open, which a runner must not hold for days. */
static void close_others(int keep)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		long fd = local_digits_value(de->d_name);

		if (fd > 2 && fd != keep && fd != dirfd(d))
			close((int)fd);
	}
	closedir(d);
}

/*
 * Starts "sweep __local-runner STATE_DIR JOB_ID" in a session of its own,
 * its output appended to log_path. Reports a failed exec through a pipe
 * that closes on exec.
 */
static int start_runner(int64_t *pid_out, uint64_t *start_out, const char *state_dir,
                        uint32_t job_id, const char *log_path)
{
	char exe[PATH_MAX], id[16];
	const char *argv[] = {exe, LOCAL_RUNNER_COMMAND, state_dir, id, NULL};
	int logfd, nullfd, pipefd[2], child_errno = 0;
	ssize_t n;
	struct pstat ps;
	pid_t pid;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return error("cannot find the sweep binary to start the local runner: %s",
		             strerror(errno));
	exe[n] = '\0';
	snprintf(id, sizeof(id), "%" PRIu32, job_id);
	logfd = path_open_private(log_path, O_WRONLY | O_APPEND, PATH_PRIVATE_FILE);
	if (logfd < 0)
		return error("cannot open the runner log '%s': %s", log_path, strerror(errno));
	nullfd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (nullfd < 0 || pipe(pipefd) < 0) {
		int ret = error("cannot start the local runner: %s", strerror(errno));

		close(logfd);
		if (nullfd >= 0)
			close(nullfd);
		return ret;
	}
	fcntl(pipefd[0], F_SETFD, FD_CLOEXEC);
	fcntl(pipefd[1], F_SETFD, FD_CLOEXEC);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0) {
		setsid(); /* no terminal: logging out does not end it */
		dup2(nullfd, 0);
		dup2(logfd, 1);
		dup2(logfd, 2);
		close_others(pipefd[1]);
		execv(exe, (char *const *)argv);
		child_errno = errno;
		if (write(pipefd[1], &child_errno, sizeof(child_errno)) < 0)
			_exit(127);
		_exit(127);
	}
	close(pipefd[1]);
	close(logfd);
	close(nullfd);
	if (pid < 0) {
		close(pipefd[0]);
		return error("cannot start the local runner: %s", strerror(errno));
	}
	while ((n = read(pipefd[0], &child_errno, sizeof(child_errno))) < 0 && errno == EINTR)
		;
	close(pipefd[0]);
	if (n > 0) {
		waitpid(pid, NULL, 0);
		return error("cannot start the local runner '%s': %s", exe, strerror(child_errno));
	}
	*pid_out = pid;
	*start_out = local_read_pstat(&ps, pid) == 0 ? ps.start : 0;
	return 0;
}

static int local_submit(uint32_t *job_id, const struct backend_submit *req)
{
	struct store *st = NULL;
	struct sweep_rec rec;
	struct local_array_rec arr = {0};
	struct strbuf text = STRBUF_INIT;
	uint32_t *ids = NULL;
	size_t n = 0;
	char *state_dir = NULL, *log = NULL, idstr[32], cwd[PATH_MAX], host[256];
	int64_t sweep_id = 0, pid = 0;
	uint64_t start = 0;
	int ret = SWEEP_ERR;

	sweep_rec_init(&rec);
	if (locate_sweep(&state_dir, &sweep_id, req->script) < 0 ||
	    store_open(&st, state_dir, 0) < 0)
		goto out;
	snprintf(idstr, sizeof(idstr), "%" PRId64, sweep_id);
	if (store_find_sweep(st, &rec, idstr) < 0)
		goto out;
	if (rec.id != sweep_id || strcmp(rec.script, req->script)) {
		error("'%s' is not the script of sweep %" PRId64 " in '%s'", req->script, sweep_id,
		      state_dir);
		goto out;
	}
	if (strbuf_read_file(&text, req->script) < 0) {
		error("cannot read '%s': %s", req->script, strerror(errno));
		goto out;
	}
	if (local_read_job(&arr, req->script, text.buf, req->extra_args) < 0)
		goto out;
	if (!arr.name)
		arr.name = xstrdup(strrchr(req->script, '/') + 1);
	if (!arr.workdir)
		arr.workdir = xstrdup(getcwd(cwd, sizeof(cwd)) ? cwd : "/");
	if (read_array(&ids, &n, &arr.throttle, req->array) < 0)
		goto out;
	if (!arr.throttle)
		arr.throttle = default_throttle(arr.ncpus);
	if (arr.gpus && check_gpus(arr.gpus) < 0)
		goto out;
	local_this_host(host, sizeof(host));
	arr.host = xstrdup(host);
	arr.sweep_id = sweep_id;
	arr.script = xstrdup(req->script);
	arr.offset = req->offset;
	if (store_local_add(st, &arr, ids, n) < 0)
		goto out;
	log = xstrfmt("%s/runner-%" PRIu32 ".log", rec.dir, arr.job_id);
	if (start_runner(&pid, &start, state_dir, arr.job_id, log) < 0) {
		store_local_cancel_pending(st, arr.job_id, (int64_t)time(NULL));
		goto out;
	}
	if (store_local_set_runner(st, arr.job_id, pid, start) < 0) {
		kill((pid_t)pid, SIGTERM); /* it cancels its tasks */
		goto out;
	}
	*job_id = arr.job_id;
	ret = 0;
out:
	free(ids);
	free(log);
	free(state_dir);
	strbuf_release(&text);
	local_array_rec_release(&arr);
	sweep_rec_release(&rec);
	store_close(st);
	return ret;
}

/*
 * backend_ops.find: the local runner's array jobs are in the state store
 * as soon as they start, so a submission killed after starting one
 * (before recording it as the sweep's) leaves them to be found there.
 */
static int local_find(struct array_rec **out, size_t *n, const struct sweep_rec *rec)
{
	struct store *st = NULL;
	char *state_dir = NULL;
	int64_t sweep_id;
	int ret;

	*out = NULL;
	*n = 0;
	ret = locate_sweep(&state_dir, &sweep_id, rec->script);
	if (ret == 0)
		ret = store_open(&st, state_dir, 0);
	if (ret == 0)
		ret = store_local_find(st, out, n, rec->id, rec->script);
	store_close(st);
	free(state_dir);
	return ret;
}

static int local_max_array_size(uint32_t *out)
{
	*out = 0;
	return 0;
}

/*
 * How a task whose runner died (kill -9) ended, when its script could say
 * so: the default template writes its command's exit status to
 * <task folder>/.exit.<job id> as it ends (taskdir.h: the folder of its
 * index in the sweep's layout). Sets the task's
 * final state from it and returns true; false when there is no such file
 * (killed, or a template of one's own), which leaves NODE_FAIL.
 */
static bool ended_on_its_own(struct local_task_rec *t, const struct local_array_rec *arr,
                             enum taskdir_layout layout)
{
	const char *slash = strrchr(arr->script, '/');
	struct strbuf text = STRBUF_INIT;
	struct stat sb;
	bool found = false;
	char *end, *dir, *name, *path;
	long code;

	if (!slash)
		return false;
	dir = xstrndup(arr->script, (size_t)(slash - arr->script));
	name = xstrfmt(".exit.%" PRIu32, t->job_id);
	path = taskdir_file(dir, layout, (size_t)arr->offset + t->array_task_id, name);
	free(dir);
	free(name);
	if (strbuf_read_file_max(&text, path, 64, STRBUF_READ_NOFOLLOW) < 0 ||
	    stat(path, &sb) < 0 || sb.st_mtime < t->start_time)
		goto out;
	errno = 0;
	code = strtol(text.buf, &end, 10);
	if (errno || end == text.buf || (*end && *end != '\n') || code < 0 || code > 255)
		goto out;
	t->state = code ? TS_FAILED : TS_COMPLETED;
	t->exit_code = (int)code;
	t->end_time = (int64_t)sb.st_mtime;
	found = true;
out:
	free(path);
	strbuf_release(&text);
	return found;
}

/*
 * How a task ended that its runner could not record (a full disk): from
 * its end note (local.h), saying so. Returns true when there was one.
 */
static bool ended_unrecorded(struct local_task_rec *t, const struct local_array_rec *arr)
{
	const char *slash = strrchr(arr->script, '/');
	struct strbuf dir = STRBUF_INIT, text = STRBUF_INIT;
	char *path;
	bool found;

	if (!slash)
		return false;
	strbuf_add(&dir, arr->script, (size_t)(slash - arr->script));
	path = local_end_note_path(dir.buf, t->job_id);
	found =
	    strbuf_read_file_max(&text, path, LOCAL_END_NOTE_BYTES, STRBUF_READ_NOFOLLOW) == 0 &&
	    local_end_note_parse(t, text.buf) == 0;
	if (found)
		warning("task %" PRIu64 " (job %" PRIu32
		        "): its runner could not record its end in "
		        "the state store (is the disk full?); its end is read from '%s'",
		        (uint64_t)arr->offset + t->array_task_id, t->job_id, path);
	free(path);
	strbuf_release(&dir);
	strbuf_release(&text);
	return found;
}

/* The runners' records are in the store already: steps and refresh change nothing. */
static int local_records(struct acct_set *out, struct backend_read *rd, struct store *st,
                         const struct sweep_rec *rec, const struct array_rec *arrays,
                         size_t narrays)
{
	char host[256];
	int64_t now = (int64_t)time(NULL);
	int ret = 0;

	rd->kept = 0;
	rd->asked = 0;
	rd->queries = 0;
	local_this_host(host, sizeof(host));
	for (size_t a = 0; a < narrays && ret == 0; a++) {
		struct local_array_rec arr;
		struct local_task_rec *tasks = NULL;
		size_t n = 0;
		bool alive;

		ret = store_local_load_array(st, &arr, arrays[a].job_id);
		if (ret < 0)
			break;
		ret = store_local_load_tasks(st, &tasks, &n, arr.job_id);
		alive = local_runner_alive(&arr, now, host);
		for (size_t i = 0; ret == 0 && i < n; i++) {
			bool task_alive = !alive && tasks[i].state == TS_RUNNING &&
			                  local_process_is(tasks[i].pid, tasks[i].pid_start);
			bool noted = false;

			/* Ended, but the store could not take it: the runner's note says how. */
			if (tasks[i].state == TS_RUNNING ||
			    (!alive && tasks[i].state == TS_PENDING))
				noted = ended_unrecorded(&tasks[i], &arr);
			/* Ended after its runner died: not a node failure if it said how. */
			if (!noted && !alive && tasks[i].state == TS_RUNNING && !task_alive)
				ended_on_its_own(&tasks[i], &arr, rec->task_layout);

			local_task_acct(acct_set_add(out), &tasks[i], &arr, alive, task_alive, now,
			                arr.host && *arr.host ? arr.host : host);
		}
		local_task_recs_free(tasks, n);
		local_array_rec_release(&arr);
	}
	return ret;
}

/* With its runner gone: kills what is left of its running tasks and records them CANCELLED. */
static int sweep_up(struct store *st, const struct local_array_rec *arr)
{
	struct local_task_rec *tasks = NULL;
	size_t n = 0;
	int64_t now = (int64_t)time(NULL);
	int ret;

	ret = store_local_load_tasks(st, &tasks, &n, arr->job_id);
	for (size_t i = 0; ret == 0 && i < n; i++) {
		struct local_task_rec *t = &tasks[i];

		if (t->state != TS_RUNNING)
			continue;
		if (t->pid > 0)
			local_signal_session((long)t->pid, t->pid_start, SIGKILL);
		t->state = TS_CANCELLED;
		t->signal = SIGKILL;
		t->end_time = now;
		ret = store_local_update_task(st, t);
	}
	if (ret == 0)
		ret = store_local_cancel_pending(st, arr->job_id, now);
	local_task_recs_free(tasks, n);
	return ret;
}

static bool any_alive(const struct local_array_rec *arrs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (arrs[i].runner_pid &&
		    local_process_is(arrs[i].runner_pid, arrs[i].runner_start))
			return true;
	return false;
}

static void wait_runners(const struct local_array_rec *arrs, size_t n, double seconds)
{
	double deadline = local_now_s() + seconds;
	struct timespec tick = {0, 100 * 1000 * 1000};

	while (any_alive(arrs, n) && local_now_s() < deadline)
		nanosleep(&tick, NULL);
}

/*
 * Each runner stops its own tasks (SIGTERM, then SIGKILL) and records
 * them; a runner that does not finish in time is killed, and what it left
 * is swept up here: only processes of the sessions it started.
 */
static int local_cancel(struct store *st, const struct sweep_rec *rec,
                        const struct array_rec *arrays, size_t narrays)
{
	struct local_array_rec *arrs = xcalloc(narrays ? narrays : 1, sizeof(*arrs));
	size_t n = 0;
	char host[256];
	int ret = 0;

	(void)rec;
	local_this_host(host, sizeof(host));
	for (size_t a = 0; a < narrays; a++) {
		if (store_local_load_array(st, &arrs[n], arrays[a].job_id) < 0) {
			ret = SWEEP_ERR;
			continue;
		}
		/* Its processes are not this machine's to stop (a state folder on a shared disk).
		 */
		if (*arrs[n].host && strcmp(arrs[n].host, host)) {
			ret = error("array job %" PRIu32 " runs on '%s': run sweep cancel there",
			            arrs[n].job_id, arrs[n].host);
			local_array_rec_release(&arrs[n]);
			continue;
		}
		if (arrs[n].runner_pid &&
		    local_process_is(arrs[n].runner_pid, arrs[n].runner_start))
			kill((pid_t)arrs[n].runner_pid, SIGTERM);
		n++;
	}
	wait_runners(arrs, n, CANCEL_WAIT_S);
	for (size_t a = 0; a < n; a++)
		if (arrs[a].runner_pid &&
		    local_process_is(arrs[a].runner_pid, arrs[a].runner_start)) {
			warning("the runner of array job %" PRIu32 " did not stop: killing it",
			        arrs[a].job_id);
			kill((pid_t)arrs[a].runner_pid, SIGKILL);
		}
	wait_runners(arrs, n, 5);
	for (size_t a = 0; a < n; a++) {
		if (sweep_up(st, &arrs[a]) < 0)
			ret = SWEEP_ERR;
		local_array_rec_release(&arrs[a]);
	}
	free(arrs);
	return ret;
}

const struct backend_ops local_backend = {
    .name = "local",
    .submitter = "local",
    .submit_command = "submit",
    .taker = "the local runner",
    .found_by = "found in the state store by its script",
    .no_record_yet = "the local runner has no record yet",
    .no_record = "the local runner has no record of these array jobs",
    .max_array_size = local_max_array_size,
    .submit = local_submit,
    .records = local_records,
    .cancel = local_cancel,
    .find = local_find,
};

int local_job_done(bool *done, struct store *st, uint32_t id)
{
	struct local_task_rec *tasks = NULL;
	size_t n = 0;
	int ret = store_local_load_tasks(st, &tasks, &n, id);

	*done = ret == 0;
	for (size_t i = 0; ret == 0 && i < n; i++)
		if (!task_state_is_final((enum task_state)tasks[i].state))
			*done = false;
	local_task_recs_free(tasks, n);
	return ret;
}
