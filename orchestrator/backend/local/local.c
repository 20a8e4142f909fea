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
#include "gpu.h"
#include "outcome.h"
#include "proc.h"
#include "sbopt.h"
#include "store.h"
#include "strbuf.h"
#include "units.h"

#include "banned.h"

#define TERM_GRACE_S     30 /* SIGKILL this long after the time limit's SIGTERM: Slurm's KillWait */
#define CANCEL_GRACE_S   5  /* SIGKILL this long after cancel's SIGTERM */
#define CANCEL_WAIT_S    (CANCEL_GRACE_S + 10) /* how long cancel waits for a runner to finish */
#define POLL_S           1                     /* memory and dependency checks */
#define GPU_RETRY_S      5  /* asking nvidia-smi again while too few GPUs are free */
#define START_GRACE_S    60 /* a job with no runner recorded yet is still being submitted */
#define DEFAULT_SIGNAL_S 60 /* sbatch's @time when --signal gives none */

extern char **environ;

static const struct {
	const char *name;
	int sig;
} signals[] = {
    {"USR1", SIGUSR1}, {"USR2", SIGUSR2}, {"TERM", SIGTERM}, {"INT", SIGINT},   {"HUP", SIGHUP},
    {"QUIT", SIGQUIT}, {"ALRM", SIGALRM}, {"KILL", SIGKILL}, {"CONT", SIGCONT}, {"STOP", SIGSTOP},
};

static const char *signal_name(int sig)
{
	for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
		if (signals[i].sig == sig)
			return signals[i].name;
	return "?";
}

/* ---- What an array job asks (pure) ---------------------------------------------------------- */

enum mem_kind { MEM_NONE, MEM_NODE, MEM_PER_CPU, MEM_PER_GPU };

struct job_parse {
	struct local_array_rec *out;
	const char *source; /* for messages */
	enum mem_kind mem_kind;
	uint64_t mem_value;
};

static void set_text(char **field, const char *value)
{
	free(*field);
	*field = xstrdup(value);
}

static int parse_positive(unsigned *out, const char *s)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || !v || v > 1u << 20)
		return -1;
	*out = (unsigned)v;
	return 0;
}

/* "[type:]N" as in --gpus-per-task and --gpus. */
static int parse_gpu_count(unsigned *out, const char *s)
{
	const char *colon = strrchr(s, ':');

	return parse_positive(out, colon ? colon + 1 : s);
}

/* --gres=gpu[:type][:N][,other...]: the GPUs of the entry named gpu. */
static int parse_gres(unsigned *out, const char *s)
{
	while (*s) {
		size_t len = strcspn(s, ",");

		if (!strncmp(s, "gpu", 3) && (len == 3 || s[3] == ':')) {
			char *entry = xstrndup(s, len);
			const char *colon = strrchr(entry, ':');
			int ret = 0;

			*out = 1;
			/* gpu:a100 names a type, gpu:2 and gpu:a100:2 a count. */
			if (colon && isdigit((unsigned char)colon[1]))
				ret = parse_positive(out, colon + 1);
			free(entry);
			return ret;
		}
		s += len;
		if (*s)
			s++;
	}
	return 0;
}

/* --signal=[{R|B}:]SIG[@SECONDS], SIG a name (with or without SIG) or a number. */
static int parse_signal(struct local_array_rec *out, const char *s)
{
	const char *at;
	char *name;
	unsigned long v;
	char *end;
	int sig = 0;

	if ((s[0] == 'B' || s[0] == 'R') && s[1] == ':')
		s += 2;
	at = strchr(s, '@');
	name = at ? xstrndup(s, (size_t)(at - s)) : xstrdup(s);
	if (isdigit((unsigned char)name[0])) {
		v = strtoul(name, &end, 10);
		sig = !*end && v > 0 && v < 65 ? (int)v : 0;
	} else {
		const char *bare = strncmp(name, "SIG", 3) ? name : name + 3;

		for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
			if (!strcmp(signals[i].name, bare))
				sig = signals[i].sig;
	}
	free(name);
	if (!sig)
		return -1;
	out->warn_signal = sig;
	out->warn_s = DEFAULT_SIGNAL_S;
	if (at) {
		errno = 0;
		v = strtoul(at + 1, &end, 10);
		if (errno || end == at + 1 || *end || v > 0xffff)
			return -1;
		out->warn_s = (unsigned)v;
	}
	return 0;
}

/* --dependency=afterany:ID[:ID...] (or afterok, after, afternotok): the first id. */
static int parse_dependency(uint32_t *out, const char *s)
{
	const char *colon = strchr(s, ':');
	unsigned long v;
	char *end;

	if (!colon || strncmp(s, "after", 5))
		return -1;
	errno = 0;
	v = strtoul(colon + 1, &end, 10);
	if (errno || end == colon + 1 || (*end && *end != ':' && *end != ',') || !v ||
	    v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* The options this side acts on (all take a value), with their short forms. */
static const struct sbopt_name job_options[] = {
    {"job-name", 'J'},      {"output", 'o'},      {"error", 'e'},     {"chdir", 'D'},
    {"time", 't'},          {"mem", 0},           {"mem-per-cpu", 0}, {"mem-per-gpu", 0},
    {"cpus-per-task", 'c'}, {"gpus-per-task", 0}, {"gres", 0},        {"gpus", 'G'},
    {"signal", 0},          {"dependency", 'd'},  {"open-mode", 0},
};
#define NJOB_OPTIONS (sizeof(job_options) / sizeof(job_options[0]))

static int job_option(struct job_parse *p, const char *name, const char *value, const char **why)
{
	struct local_array_rec *out = p->out;
	uint64_t secs;
	bool unlimited;

	if (!strcmp(name, "job-name")) {
		set_text(&out->name, value);
	} else if (!strcmp(name, "output")) {
		set_text(&out->out_pattern, value);
	} else if (!strcmp(name, "error")) {
		set_text(&out->err_pattern, value);
	} else if (!strcmp(name, "chdir")) {
		set_text(&out->workdir, value);
	} else if (!strcmp(name, "open-mode")) {
		out->append = !strcmp(value, "append");
	} else if (!strcmp(name, "time")) {
		if (units_parse_time(&secs, &unlimited, value, why) < 0)
			return -1;
		out->time_limit_s = unlimited ? 0 : secs;
	} else if (!strcmp(name, "mem") || !strcmp(name, "mem-per-cpu") ||
	           !strcmp(name, "mem-per-gpu")) {
		if (units_parse_mem(&p->mem_value, value, why) < 0)
			return -1;
		p->mem_kind = name[3] == '\0'  ? MEM_NODE
		              : name[8] == 'c' ? MEM_PER_CPU
		                               : MEM_PER_GPU;
	} else if (!strcmp(name, "cpus-per-task")) {
		if (parse_positive(&out->ncpus, value) < 0) {
			*why = "--cpus-per-task takes a positive number";
			return -1;
		}
	} else if (!strcmp(name, "gpus-per-task") || !strcmp(name, "gpus")) {
		if (parse_gpu_count(&out->gpus, value) < 0) {
			*why = "--gpus-per-task and --gpus take [type:]N, N a positive number";
			return -1;
		}
	} else if (!strcmp(name, "gres")) {
		if (parse_gres(&out->gpus, value) < 0) {
			*why = "--gres=gpu takes [:type]:N, N a positive number";
			return -1;
		}
	} else if (!strcmp(name, "signal")) {
		if (parse_signal(out, value) < 0) {
			*why =
			    "--signal takes [B:]SIG[@SECONDS], SIG a name such as USR1 or a number";
			return -1;
		}
	} else if (!strcmp(name, "dependency")) {
		if (parse_dependency(&out->after_job_id, value) < 0) {
			*why = "--dependency takes afterany:JOBID";
			return -1;
		}
	}
	return 0;
}

/* sbopt_fn: one option of the script or of the submission; one with no value is ignored. */
static int take_option(void *data, const char *name, const char *value)
{
	struct job_parse *p = data;
	const char *why = NULL;

	if (value && job_option(p, name, value, &why) < 0)
		return error("'%s': --%s=%s: %s", p->source, name, value, why);
	return 0;
}

int local_read_job(struct local_array_rec *out, const char *source, const char *script_text,
                   const char *const *extra)
{
	struct job_parse p = {out, source, MEM_NONE, 0};
	size_t nextra = 0;

	memset(out, 0, sizeof(*out));
	out->ncpus = 1;
	if (sbopt_read_script(script_text, job_options, NJOB_OPTIONS, take_option, &p) < 0)
		goto fail;
	while (extra && extra[nextra])
		nextra++;
	if (sbopt_read_words(extra, nextra, job_options, NJOB_OPTIONS, take_option, &p) < 0)
		goto fail;

	switch (p.mem_kind) {
	case MEM_NONE:
		break;
	case MEM_NODE:
		out->mem_mb = p.mem_value;
		break;
	case MEM_PER_CPU:
		out->mem_mb = p.mem_value * out->ncpus;
		break;
	case MEM_PER_GPU:
		out->mem_mb = p.mem_value * (out->gpus ? out->gpus : 1);
		break;
	}
	if (!out->out_pattern)
		out->out_pattern = xstrdup("slurm-%A_%a.out");
	if (!out->err_pattern)
		out->err_pattern = xstrdup(out->out_pattern);
	return 0;
fail:
	local_array_rec_release(out);
	return -1;
}

void local_expand_pattern(struct strbuf *out, const char *pattern, const char *name,
                          uint32_t array_job_id, uint32_t array_task_id, uint32_t job_id)
{
	for (const char *p = pattern; *p; p++) {
		if (*p != '%' || !p[1]) {
			strbuf_addch(out, *p);
			continue;
		}
		switch (*++p) {
		case 'x':
			strbuf_addstr(out, name);
			break;
		case 'A':
			strbuf_addf(out, "%" PRIu32, array_job_id);
			break;
		case 'a':
			strbuf_addf(out, "%" PRIu32, array_task_id);
			break;
		case 'j':
			strbuf_addf(out, "%" PRIu32, job_id);
			break;
		case '%':
			strbuf_addch(out, '%');
			break;
		default:
			strbuf_addch(out, '%');
			strbuf_addch(out, *p);
		}
	}
}

/* ---- Decisions (pure) ------------------------------------------------------------------------ */

size_t local_schedule(size_t running, size_t pending, unsigned throttle, unsigned gpus_per_task,
                      size_t free_gpus)
{
	size_t n = pending;

	if (throttle)
		n = running >= throttle ? 0 : n < throttle - running ? n : throttle - running;
	if (gpus_per_task && n > free_gpus / gpus_per_task)
		n = free_gpus / gpus_per_task;
	return n;
}

void local_deadlines(struct local_deadlines *out, uint64_t time_limit_s, int warn_signal,
                     unsigned warn_s, unsigned grace_s)
{
	out->warn_at = out->term_at = out->kill_at = -1;
	if (!time_limit_s || time_limit_s > INT64_MAX / 2)
		return; /* no limit: nothing to warn of */
	out->term_at = (int64_t)time_limit_s;
	out->kill_at = (int64_t)time_limit_s + grace_s;
	if (warn_signal)
		out->warn_at = warn_s >= time_limit_s ? 0 : (int64_t)(time_limit_s - warn_s);
}

enum task_state local_final_state(int wstatus, enum local_stop why)
{
	switch (why) {
	case LOCAL_STOP_TIMEOUT:
		return TS_TIMEOUT;
	case LOCAL_STOP_MEMORY:
		return TS_OUT_OF_MEMORY;
	case LOCAL_STOP_CANCEL:
		return TS_CANCELLED;
	case LOCAL_STOP_NONE:
		break;
	}
	return WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0 ? TS_COMPLETED : TS_FAILED;
}

void local_task_acct(struct acct_rec *out, const struct local_task_rec *t,
                     const struct local_array_rec *arr, bool runner_alive, bool task_alive,
                     int64_t now, const char *node)
{
	enum task_state state = (enum task_state)t->state;
	int64_t end;

	if (!task_state_is_final(state) && !runner_alive && !(state == TS_RUNNING && task_alive))
		state = TS_NODE_FAIL;
	out->array_job_id = t->array_job_id;
	out->array_task_id = t->array_task_id;
	out->job_id = t->job_id;
	out->pending_tasks = NULL;
	out->state = state;
	out->exit_code = t->exit_code;
	out->signal = t->signal;
	out->submit_time = arr->submit_time;
	out->start_time = t->start_time;
	out->end_time = task_state_is_final((enum task_state)t->state) ? t->end_time : 0;
	/* A task its runner left behind has no known end: no elapsed time to count. */
	end = out->end_time ? out->end_time : state == TS_NODE_FAIL ? t->start_time : now;
	out->elapsed_s = t->start_time && end > t->start_time ? (uint64_t)(end - t->start_time) : 0;
	out->timelimit_s = arr->time_limit_s ? arr->time_limit_s : ACCT_NO_VALUE;
	out->req_mem_mb = arr->mem_mb;
	out->req_mem_per_cpu = false;
	out->ncpus = arr->ncpus;
	out->maxrss_bytes = t->maxrss_bytes;
	out->nodes = t->start_time && node ? xstrdup(node) : NULL;
}

/* ---- Processes, from /proc ------------------------------------------------------------------- */

struct pstat {
	char state;
	long session;
	uint64_t start; /* clock ticks after boot */
	uint64_t rss_pages;
};

static int read_pstat(struct pstat *out, long pid)
{
	char path[64], buf[1024];
	char *p, *field[24];
	ssize_t len;
	size_t n = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return -1;
	buf[len] = '\0';
	/* The command name (field 2) is in parentheses and may hold anything. */
	p = strrchr(buf, ')');
	if (!p)
		return -1;
	for (p++; n < 22;) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		field[n++] = p; /* field[k] is the file's field k + 3 */
		p += strcspn(p, " ");
		if (*p)
			*p++ = '\0';
	}
	if (n < 22)
		return -1;
	out->state = field[0][0];
	out->session = strtol(field[3], NULL, 10);
	out->start = strtoull(field[19], NULL, 10);
	out->rss_pages = strtoull(field[21], NULL, 10);
	return 0;
}

/* Whether pid is still the process that started at start (pids are reused). */
static bool process_is(int64_t pid, uint64_t start)
{
	struct pstat ps;

	return pid > 0 && read_pstat(&ps, (long)pid) == 0 && ps.start == start && ps.state != 'Z' &&
	       ps.state != 'X';
}

static long digits_value(const char *name)
{
	long pid = 0;

	if (!*name)
		return -1;
	for (; *name; name++) {
		if (*name < '0' || *name > '9' || pid > LONG_MAX / 10 - 1)
			return -1;
		pid = pid * 10 + (*name - '0');
	}
	return pid;
}

/*
 * Sends sig to every live process of session sid that started no earlier
 * than since (a later process reusing the number is not the task's).
 * Returns how many were signalled.
 */
static size_t signal_session(long sid, uint64_t since, int sig)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	size_t n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		long pid = digits_value(de->d_name);
		struct pstat ps;

		if (pid <= 0 || read_pstat(&ps, pid) < 0 || ps.session != sid || ps.start < since ||
		    ps.state == 'Z' || ps.state == 'X')
			continue;
		if (kill((pid_t)pid, sig) == 0)
			n++;
	}
	closedir(d);
	return n;
}

/* ---- GPUs ------------------------------------------------------------------------------------ */

static bool on_path(const char *prog)
{
	const char *path = getenv("PATH");

	if (!path || !*path)
		path = "/usr/bin:/bin";
	while (*path) {
		size_t len = strcspn(path, ":");
		char *full = xstrfmt("%.*s/%s", (int)len, len ? path : ".", prog);
		bool ok = access(full, X_OK) == 0;

		free(full);
		if (ok)
			return true;
		path += len;
		if (*path)
			path++;
	}
	return false;
}

/* Runs one nvidia-smi query; 1 when it says there is no GPU (exit status 6). */
static int run_smi(struct strbuf *out, const char *const *argv)
{
	struct proc_result res;
	int ret = 0;

	proc_result_init(&res);
	if (proc_run(&res, argv, NULL, 60) < 0) {
		ret = SWEEP_ERR;
	} else if (res.timed_out) {
		ret = error("nvidia-smi did not answer within 60 s (is the driver hung?)");
	} else if (res.exited && res.status == 6) {
		ret = 1; /* "No devices were found" */
	} else if (!res.exited || res.status != 0) {
		struct strbuf *msg = res.err.len ? &res.err : &res.out;

		strbuf_trim_trailing_newlines(msg);
		ret = error("nvidia-smi failed (%s %d): %s", res.exited ? "exit status" : "signal",
		            res.status, msg->len ? msg->buf : "(no message)");
	} else {
		strbuf_add(out, res.out.buf, res.out.len);
	}
	proc_result_release(&res);
	return ret;
}

static void fill_owner(struct gpu_proc *p)
{
	char path[64];
	struct stat sb;
	struct passwd *pw;
	struct strbuf comm = STRBUF_INIT;

	snprintf(path, sizeof(path), "/proc/%ld", p->pid);
	if (stat(path, &sb) < 0)
		return; /* not in our PID namespace: another container's */
	pw = getpwuid(sb.st_uid);
	p->user = pw ? xstrdup(pw->pw_name) : xstrfmt("%u", (unsigned)sb.st_uid);
	snprintf(path, sizeof(path), "/proc/%ld/comm", p->pid);
	if (strbuf_read_file(&comm, path) == 0) {
		strbuf_trim_trailing_newlines(&comm);
		p->command = strbuf_detach(&comm, NULL);
	}
	strbuf_release(&comm);
}

int local_query_gpus(struct gpu_set *out, bool owners)
{
	struct strbuf gpus = STRBUF_INIT, apps = STRBUF_INIT;
	int ret;

	if (!on_path("nvidia-smi"))
		return error("nvidia-smi is not on PATH: no NVIDIA driver on this machine? sweeps "
		             "that ask no GPU run without it (--gpus-per-task 0, the default)");
	ret = run_smi(&gpus, gpu_query_gpus_argv);
	if (ret == 0)
		ret = run_smi(&apps, gpu_query_apps_argv);
	if (ret == 0)
		ret = gpu_parse(out, gpus.buf, apps.buf);
	else if (ret == 1)
		ret = 0; /* no GPU: an empty set */
	for (size_t i = 0; ret == 0 && owners && i < out->nprocs; i++)
		fill_owner(&out->procs[i]);
	strbuf_release(&gpus);
	strbuf_release(&apps);
	return ret;
}

/*
 * A GPU given to a task is also locked (fcntl, in a file every user can
 * open), so that two runners never hand out the same GPU in the moment
 * before its task shows up in nvidia-smi. Returns the lock's descriptor,
 * -1 when another holds it, -2 when there is no lock to take (the file
 * cannot be opened), which does not stop the GPU being used.
 */
static int lock_gpu(const char *uuid)
{
	const char *dir = getenv("SWEEP_GPU_LOCK_DIR");
	struct strbuf path = STRBUF_INIT;
	struct flock fl = {0};
	int fd;

	strbuf_addf(&path, "%s/sweep-gpu-", dir && *dir ? dir : "/tmp");
	for (const char *p = uuid; *p; p++)
		strbuf_addch(&path, isalnum((unsigned char)*p) || *p == '-' ? *p : '_');
	strbuf_addstr(&path, ".lock");
	fd = open(path.buf, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0) {
		warning("cannot open the GPU lock '%s': %s; using the GPU unlocked", path.buf,
		        strerror(errno));
		strbuf_release(&path);
		return -2;
	}
	fchmod(fd, 0666); /* others' runners must open it too; fails harmlessly if not ours */
	strbuf_release(&path);
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_SET;
	if (fcntl(fd, F_SETLK, &fl) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* ---- The runner ------------------------------------------------------------------------------ */

struct run {
	struct local_task_rec rec;
	pid_t pid; /* its script, while it runs */
	double started;
	bool warned, termed;
	enum local_stop why;
	double kill_at; /* SIGKILL its session from then on; 0: not yet */
	uint64_t peak;  /* polled peak of its session's RSS, bytes */
	uint64_t rss;
	char **uuids; /* its GPUs, and their locks */
	int *locks;
	size_t ngpus;
};

struct runner {
	struct store *st;
	struct local_array_rec arr;
	struct run *runs;
	size_t nruns;
	size_t next; /* runs before it have been started or were never pending */
	size_t running;
	struct local_deadlines dl;
	bool stopping;
	bool after_done;
	double gpu_retry_at;
	bool gpu_waiting; /* said so in the log */
	uint32_t task_min, task_max;
	char offset[16];
	char host[256];
};

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

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
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
	free(run->locks);
	run->uuids = NULL;
	run->locks = NULL;
	run->ngpus = 0;
}

static bool held_here(const struct runner *r, const char *uuid)
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
		n += set->gpus[i].verdict == GPU_FREE && !held_here(r, set->gpus[i].uuid);
	return n;
}

/* Gives run r->arr.gpus GPUs, lowest index first; 0, or -1 when too few could be locked. */
static int take_gpus(struct runner *r, struct run *run, const struct gpu_set *set,
                     struct strbuf *ids)
{
	run->uuids = xcalloc(r->arr.gpus, sizeof(*run->uuids));
	run->locks = xcalloc(r->arr.gpus, sizeof(*run->locks));
	for (size_t i = 0; i < set->ngpus && run->ngpus < r->arr.gpus; i++) {
		const struct gpu *g = &set->gpus[i];
		int fd;

		if (g->verdict != GPU_FREE || held_here(r, g->uuid))
			continue;
		fd = lock_gpu(g->uuid);
		if (fd == -1)
			continue;
		run->uuids[run->ngpus] = xstrdup(g->uuid);
		run->locks[run->ngpus++] = fd;
		strbuf_addf(ids, "%s%u", ids->len ? "," : "", g->index);
	}
	if (run->ngpus == r->arr.gpus)
		return 0;
	release_gpus(run);
	strbuf_reset(ids);
	return -1;
}

static void save(struct runner *r, const struct run *run)
{
	if (store_local_update_task(r->st, &run->rec) < 0)
		say("task %" PRIu32 ": could not record its state (see the error above)",
		    run->rec.array_task_id);
}

struct env {
	char **own;
	size_t n, alloc;
};

static void env_set(struct env *e, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void env_set(struct env *e, const char *name, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	strbuf_addf(&sb, "%s=", name);
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	ALLOC_GROW(e->own, e->n + 1, e->alloc);
	e->own[e->n++] = strbuf_detach(&sb, NULL);
}

/* Our environment without Slurm's variables (from some other job) and those e sets, then e's. */
static char **env_merge(const struct env *e)
{
	size_t n = 0, k = 0;
	char **env;

	while (environ[n])
		n++;
	env = xcalloc(n + e->n + 1, sizeof(char *));
	for (size_t i = 0; i < n; i++) {
		size_t len = strcspn(environ[i], "=");
		bool skip = !strncmp(environ[i], "SLURM_", 6);

		for (size_t j = 0; j < e->n && !skip; j++)
			skip = !strncmp(environ[i], e->own[j], len + 1);
		if (!skip)
			env[k++] = environ[i];
	}
	for (size_t j = 0; j < e->n; j++)
		env[k++] = e->own[j];
	env[k] = NULL;
	return env;
}

/* What Slurm would give a batch task of this array job. */
static void task_env(struct env *e, const struct runner *r, const struct run *run, const char *gpus)
{
	const struct local_array_rec *a = &r->arr;

	env_set(e, "SLURM_JOB_ID", "%" PRIu32, run->rec.job_id);
	env_set(e, "SLURM_JOBID", "%" PRIu32, run->rec.job_id);
	env_set(e, "SLURM_ARRAY_JOB_ID", "%" PRIu32, a->job_id);
	env_set(e, "SLURM_ARRAY_TASK_ID", "%" PRIu32, run->rec.array_task_id);
	env_set(e, "SLURM_ARRAY_TASK_COUNT", "%zu", r->nruns);
	env_set(e, "SLURM_ARRAY_TASK_MIN", "%" PRIu32, r->task_min);
	env_set(e, "SLURM_ARRAY_TASK_MAX", "%" PRIu32, r->task_max);
	env_set(e, "SLURM_JOB_NAME", "%s", a->name);
	env_set(e, "SLURM_SUBMIT_DIR", "%s", a->workdir);
	env_set(e, "SLURM_SUBMIT_HOST", "%s", r->host);
	env_set(e, "SLURM_JOB_NODELIST", "%s", r->host);
	env_set(e, "SLURM_NODELIST", "%s", r->host);
	env_set(e, "SLURMD_NODENAME", "%s", r->host);
	env_set(e, "SLURM_JOB_NUM_NODES", "1");
	env_set(e, "SLURM_NNODES", "1");
	env_set(e, "SLURM_NTASKS", "1");
	env_set(e, "SLURM_CPUS_PER_TASK", "%u", a->ncpus);
	env_set(e, "SLURM_CPUS_ON_NODE", "%u", a->ncpus);
	/*
	 * Our job ids mean nothing to a Slurm cluster this machine may belong
	 * to: scontrol in a task (requeue) must not act on that cluster's jobs.
	 */
	env_set(e, "SLURM_CONF", "/dev/null");
	if (a->mem_mb)
		env_set(e, "SLURM_MEM_PER_NODE", "%" PRIu64, a->mem_mb);
	if (a->time_limit_s)
		env_set(e, "SLURM_JOB_END_TIME", "%lld",
		        (long long)(time(NULL) + (time_t)a->time_limit_s));
	/* A task sees its own GPUs only; one that asked none sees none. */
	env_set(e, "CUDA_DEVICE_ORDER", "PCI_BUS_ID");
	env_set(e, "CUDA_VISIBLE_DEVICES", "%s", gpus ? gpus : "");
	if (gpus) {
		env_set(e, "SLURM_JOB_GPUS", "%s", gpus);
		env_set(e, "GPU_DEVICE_ORDINAL", "%s", gpus);
	}
}

/* In the child: the task's own session, its logs, default signals, then the script. */
static void exec_task(const char *workdir, int in, int out, int err, const char *const *argv,
                      char *const *env)
{
	static const int reset[] = {SIGHUP,  SIGINT,  SIGQUIT, SIGPIPE, SIGTERM, SIGUSR1,
	                            SIGUSR2, SIGALRM, SIGCHLD, SIGTSTP, SIGTTIN, SIGTTOU};
	sigset_t none;

	setsid();
	dup2(in, 0);
	dup2(out, 1);
	dup2(err, 2);
	for (size_t i = 0; i < sizeof(reset) / sizeof(reset[0]); i++)
		signal(reset[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (chdir(workdir) < 0) {
		dprintf(2, "sweep: cannot enter '%s': %s\n", workdir, strerror(errno));
		_exit(1);
	}
	execve(argv[0], (char *const *)argv, env);
	dprintf(2, "sweep: cannot run '%s': %s\n", argv[0], strerror(errno));
	_exit(127);
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
	save(r, run);
}

static void start_task(struct runner *r, struct run *run, const char *gpus)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	const char *argv[] = {r->arr.script, r->offset, NULL};
	struct env e = {0};
	char **env = NULL;
	int ofd = -1, efd = -1, nullfd = -1;
	/* --open-mode: truncate, Slurm's default, or append. */
	int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (r->arr.append ? O_APPEND : O_TRUNC);
	struct pstat ps;
	pid_t pid;

	log_path(&out, r, run, r->arr.out_pattern);
	log_path(&err, r, run, r->arr.err_pattern);
	ofd = open(out.buf, flags, 0666);
	efd = strcmp(out.buf, err.buf) ? open(err.buf, flags, 0666) : ofd;
	nullfd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (ofd < 0 || efd < 0 || nullfd < 0) {
		say("task %" PRIu32 ": cannot open its log '%s': %s", run->rec.array_task_id,
		    ofd < 0 ? out.buf : err.buf, strerror(errno));
		fail_unstarted(r, run);
		goto out;
	}
	task_env(&e, r, run, gpus);
	env = env_merge(&e);
	pid = fork();
	if (pid == 0)
		exec_task(r->arr.workdir, nullfd, ofd, efd, argv, env);
	if (pid < 0) {
		say("task %" PRIu32 ": cannot start: %s", run->rec.array_task_id, strerror(errno));
		fail_unstarted(r, run);
		goto out;
	}
	run->pid = pid;
	run->started = now_s();
	run->rec.state = TS_RUNNING;
	run->rec.pid = pid;
	run->rec.pid_start = read_pstat(&ps, pid) == 0 ? ps.start : 0;
	run->rec.start_time = (int64_t)time(NULL);
	run->rec.gpus = gpus ? xstrdup(gpus) : NULL;
	r->running++;
	save(r, run);
	say("task %" PRIu32 " (job %" PRIu32 "): started, pid %d%s%s", run->rec.array_task_id,
	    run->rec.job_id, (int)pid, gpus ? ", GPUs " : "", gpus ? gpus : "");
out:
	if (ofd >= 0)
		close(ofd);
	if (efd >= 0 && efd != ofd)
		close(efd);
	if (nullfd >= 0)
		close(nullfd);
	for (size_t i = 0; i < e.n; i++)
		free(e.own[i]);
	free(e.own);
	free(env);
	strbuf_release(&out);
	strbuf_release(&err);
}

static void finish_task(struct runner *r, struct run *run, int wstatus, const struct rusage *ru)
{
	uint64_t kernel_peak = (uint64_t)ru->ru_maxrss * 1024; /* KiB on Linux */
	char rss[32];

	/* Whatever the task left running would be killed by Slurm at its end too. */
	signal_session(run->pid, run->rec.pid_start, SIGKILL);
	release_gpus(run);
	run->rec.state = local_final_state(wstatus, run->why);
	run->rec.exit_code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 0;
	run->rec.signal = WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0;
	run->rec.end_time = (int64_t)time(NULL);
	run->rec.maxrss_bytes = run->peak > kernel_peak ? run->peak : kernel_peak;
	run->pid = 0;
	r->running--;
	r->gpu_retry_at = 0;
	save(r, run);
	units_format_bytes(rss, sizeof(rss), run->rec.maxrss_bytes);
	say("task %" PRIu32 ": %s, exit code %d:%d, %" PRId64 " s, MaxRSS %s",
	    run->rec.array_task_id, task_state_name((enum task_state)run->rec.state),
	    run->rec.exit_code, run->rec.signal, run->rec.end_time - run->rec.start_time, rss);
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
			say("task %" PRIu32
			    ": sent SIG%s to its script, %u s before its time limit",
			    run->rec.array_task_id, signal_name(r->arr.warn_signal), r->arr.warn_s);
		}
		if (!run->termed && r->dl.term_at >= 0 && elapsed >= (double)r->dl.term_at) {
			run->termed = true;
			run->why = LOCAL_STOP_TIMEOUT;
			run->kill_at = run->started + (double)r->dl.kill_at;
			signal_session(run->pid, run->rec.pid_start, SIGTERM);
			say("task %" PRIu32 ": time limit reached, sent SIGTERM (SIGKILL in %d s)",
			    run->rec.array_task_id, TERM_GRACE_S);
		}
		if (run->kill_at > 0 && now >= run->kill_at)
			signal_session(run->pid, run->rec.pid_start, SIGKILL);
	}
}

/* One pass over /proc: each running task's session's RSS; over its request, it is killed. */
static void poll_memory(struct runner *r, double now)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
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
		long pid = digits_value(de->d_name);
		struct pstat ps;

		if (pid <= 0 || read_pstat(&ps, pid) < 0)
			continue;
		for (size_t i = 0; i < r->nruns; i++)
			if (r->runs[i].pid && r->runs[i].pid == ps.session) {
				r->runs[i].rss += ps.rss_pages * page;
				break;
			}
	}
	closedir(d);
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
		signal_session(run->pid, run->rec.pid_start, SIGKILL);
		units_format_bytes(rss, sizeof(rss), run->rss);
		units_format_mem(req, sizeof(req), r->arr.mem_mb);
		say("task %" PRIu32 ": uses %s, over its --mem=%s: killed", run->rec.array_task_id,
		    rss, req);
	}
}

static void this_host(char *buf, size_t size)
{
	if (gethostname(buf, size - 1) < 0)
		snprintf(buf, size, "localhost");
	buf[size - 1] = '\0';
}

/* Whether the runner still runs; one on another machine (a shared state folder) is trusted. */
static bool runner_alive(const struct local_array_rec *arr, int64_t now, const char *host)
{
	if (arr->host && *arr->host && strcmp(arr->host, host))
		return true;
	if (!arr->runner_pid)
		return now - arr->submit_time < START_GRACE_S;
	return process_is(arr->runner_pid, arr->runner_start);
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
	    runner_alive(&before, (int64_t)time(NULL), r->host))
		for (size_t i = 0; i < n; i++)
			if (!task_state_is_final((enum task_state)tasks[i].state))
				done = false;
	local_task_recs_free(tasks, n);
	local_array_rec_release(&before);
	if (done)
		say("array job %" PRIu32 " has ended: starting", r->arr.after_job_id);
	r->after_done = done;
}

static struct run *next_pending(struct runner *r)
{
	while (r->next < r->nruns && r->runs[r->next].rec.state != TS_PENDING)
		r->next++;
	return r->next < r->nruns ? &r->runs[r->next] : NULL;
}

static size_t count_pending(const struct runner *r)
{
	size_t n = 0;

	for (size_t i = r->next; i < r->nruns; i++)
		n += r->runs[i].rec.state == TS_PENDING;
	return n;
}

static void start_tasks(struct runner *r, double now)
{
	size_t pending = count_pending(r), n;
	struct gpu_set set;

	if (!pending)
		return;
	if (!r->arr.gpus) {
		n = local_schedule(r->running, pending, r->arr.throttle, 0, 0);
		for (size_t k = 0; k < n; k++)
			start_task(r, next_pending(r), NULL);
		return;
	}
	if (now < r->gpu_retry_at || !local_schedule(r->running, pending, r->arr.throttle, 0, 0))
		return;
	r->gpu_retry_at = now + GPU_RETRY_S;
	gpu_set_init(&set);
	if (local_query_gpus(&set, false) < 0)
		return; /* reported; asked again in a moment */
	gpu_select(&set, 0);
	n = local_schedule(r->running, pending, r->arr.throttle, r->arr.gpus,
	                   gpus_available(r, &set));
	if (!n && !r->gpu_waiting)
		say("waiting for GPUs: each task asks %u, %zu of the %zu GPUs are free and not "
		    "ours (see sweep gpus)",
		    r->arr.gpus, gpus_available(r, &set), set.ngpus);
	r->gpu_waiting = !n;
	for (size_t k = 0; k < n; k++) {
		struct strbuf ids = STRBUF_INIT;
		struct run *run = next_pending(r);

		if (take_gpus(r, run, &set, &ids) < 0) {
			strbuf_release(&ids);
			break; /* locked by another runner: wait */
		}
		start_task(r, run, ids.buf);
		strbuf_release(&ids);
	}
	if (n)
		r->gpu_retry_at = 0;
	gpu_set_release(&set);
}

static void begin_cancel(struct runner *r, double now)
{
	int64_t when = (int64_t)time(NULL);

	r->stopping = true;
	if (store_local_cancel_pending(r->st, r->arr.job_id, when) < 0)
		say("could not record the pending tasks as cancelled (see the error above)");
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
			signal_session(run->pid, run->rec.pid_start, SIGTERM);
		}
	}
	say("cancelled: pending tasks will not start, running ones got SIGTERM");
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
	this_host(r->host, sizeof(r->host));
	r->after_done = !r->arr.after_job_id;
	return 0;
}

static void runner_release(struct runner *r)
{
	for (size_t i = 0; i < r->nruns; i++) {
		release_gpus(&r->runs[i]);
		free(r->runs[i].rec.gpus);
	}
	free(r->runs);
	local_array_rec_release(&r->arr);
	store_close(r->st);
}

int local_runner_main(int argc, char **argv)
{
	struct runner r = {0};
	struct sigaction sa;
	sigset_t block, wait_mask;
	double next_poll = 0;
	unsigned long job_id;
	char *end;

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
	say("runner %d: array job %" PRIu32 " of sweep %" PRId64 ", %zu task%s, at most %u at "
	    "once%s",
	    (int)getpid(), r.arr.job_id, r.arr.sweep_id, r.nruns, r.nruns == 1 ? "" : "s",
	    r.arr.throttle, r.after_done ? "" : ", after the previous array job");
	for (;;) {
		double now = now_s();
		struct timespec ts;
		double wait;

		got_child = 0;
		reap(&r);
		if (got_stop && !r.stopping)
			begin_cancel(&r, now);
		enforce(&r, now);
		if (now >= next_poll) {
			poll_memory(&r, now);
			if (!r.after_done)
				check_after(&r);
			next_poll = now + POLL_S;
		}
		if (!r.stopping && r.after_done)
			start_tasks(&r, now);
		if (!r.running && (r.stopping || !next_pending(&r)))
			break;
		wait = next_poll - now_s();
		if (wait <= 0 || got_child || (got_stop && !r.stopping))
			continue;
		ts.tv_sec = (time_t)wait;
		ts.tv_nsec = (long)((wait - (double)ts.tv_sec) * 1e9);
		pselect(0, NULL, NULL, NULL, &ts, &wait_mask);
	}
	say("runner %d: array job %" PRIu32 " done", (int)getpid(), r.arr.job_id);
	runner_release(&r);
	return EXIT_OK;
}

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

static int check_gpus(unsigned want)
{
	struct gpu_set set;
	int ret = 0;

	gpu_set_init(&set);
	if (local_query_gpus(&set, false) < 0)
		return error("each task asks %u GPU%s: cannot run them here", want,
		             want == 1 ? "" : "s");
	if (set.ngpus < want)
		ret = error("each task asks %u GPU%s and this machine has %zu%s", want,
		            want == 1 ? "" : "s", set.ngpus,
		            set.ngpus ? "" : " (nvidia-smi lists none)");
	gpu_set_release(&set);
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
		long fd = digits_value(de->d_name);

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
	logfd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
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
	*start_out = read_pstat(&ps, pid) == 0 ? ps.start : 0;
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
	this_host(host, sizeof(host));
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

static int local_max_array_size(uint32_t *out)
{
	*out = 0;
	return 0;
}

static int local_records(struct acct_set *out, struct store *st, const struct sweep_rec *rec,
                         const struct array_rec *arrays, size_t narrays)
{
	char host[256];
	int64_t now = (int64_t)time(NULL);
	int ret = 0;

	(void)rec;
	this_host(host, sizeof(host));
	for (size_t a = 0; a < narrays && ret == 0; a++) {
		struct local_array_rec arr;
		struct local_task_rec *tasks = NULL;
		size_t n = 0;
		bool alive;

		ret = store_local_load_array(st, &arr, arrays[a].job_id);
		if (ret < 0)
			break;
		ret = store_local_load_tasks(st, &tasks, &n, arr.job_id);
		alive = runner_alive(&arr, now, host);
		for (size_t i = 0; ret == 0 && i < n; i++) {
			bool task_alive = !alive && tasks[i].state == TS_RUNNING &&
			                  process_is(tasks[i].pid, tasks[i].pid_start);

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
			signal_session((long)t->pid, t->pid_start, SIGKILL);
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
		if (arrs[i].runner_pid && process_is(arrs[i].runner_pid, arrs[i].runner_start))
			return true;
	return false;
}

static void wait_runners(const struct local_array_rec *arrs, size_t n, double seconds)
{
	double deadline = now_s() + seconds;
	struct timespec tick = {0, 100 * 1000 * 1000};

	while (any_alive(arrs, n) && now_s() < deadline)
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
	this_host(host, sizeof(host));
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
		if (arrs[n].runner_pid && process_is(arrs[n].runner_pid, arrs[n].runner_start))
			kill((pid_t)arrs[n].runner_pid, SIGTERM);
		n++;
	}
	wait_runners(arrs, n, CANCEL_WAIT_S);
	for (size_t a = 0; a < n; a++)
		if (arrs[a].runner_pid && process_is(arrs[a].runner_pid, arrs[a].runner_start)) {
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
    .no_record_yet = "the local runner has no record yet",
    .no_record = "the local runner has no record of these array jobs",
    .max_array_size = local_max_array_size,
    .submit = local_submit,
    .records = local_records,
    .cancel = local_cancel,
};
