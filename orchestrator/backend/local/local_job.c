/*
 * The local backend, pure parts: what an array job asks (its script's
 * #SBATCH lines, the log file patterns) and the runner's decisions.
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
#include "local_impl.h"
#include "outcome.h"
#include "proc.h"
#include "sbopt.h"
#include "store.h"
#include "strbuf.h"
#include "units.h"

#include "banned.h"

static const struct {
	const char *name;
	int sig;
} signals[] = {
    {"USR1", SIGUSR1}, {"USR2", SIGUSR2}, {"TERM", SIGTERM}, {"INT", SIGINT},   {"HUP", SIGHUP},
    {"QUIT", SIGQUIT}, {"ALRM", SIGALRM}, {"KILL", SIGKILL}, {"CONT", SIGCONT}, {"STOP", SIGSTOP},
};

const char *local_signal_name(int sig)
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
	out->total_cpu_us = t->cpu_us == UINT64_MAX ? ACCT_NO_VALUE : t->cpu_us;
	out->nodes = t->start_time && node ? xstrdup(node) : NULL;
	out->reason = state == TS_PENDING && t->reason ? xstrdup(t->reason) : NULL;
}

char *local_end_note_path(const char *sweep_dir, uint32_t job_id)
{
	return xstrfmt("%s/.end.%" PRIu32, sweep_dir, job_id);
}

static void add_u64_or_none(struct strbuf *out, uint64_t v)
{
	if (v == UINT64_MAX)
		strbuf_addstr(out, " -");
	else
		strbuf_addf(out, " %" PRIu64, v);
}

void local_end_note_format(struct strbuf *out, const struct local_task_rec *t)
{
	size_t start = out->len;

	strbuf_addf(out, "end %s %d %d %" PRId64, task_state_name((enum task_state)t->state),
	            t->exit_code, t->signal, t->end_time);
	add_u64_or_none(out, t->maxrss_bytes);
	add_u64_or_none(out, t->cpu_us);
	while (out->len - start < LOCAL_END_NOTE_BYTES - 1)
		strbuf_addch(out, ' ');
	strbuf_addch(out, '\n');
}

/* The next blank-separated word of *p as a number in [min, max] (or "-": UINT64_MAX). */
static int note_number(int64_t *out, const char **p, int64_t min, int64_t max, bool none_ok)
{
	char *end;
	long long v;

	while (**p == ' ')
		(*p)++;
	if (none_ok && **p == '-' && ((*p)[1] == ' ' || (*p)[1] == '\n' || !(*p)[1])) {
		(*p)++;
		*out = -1;
		return 0;
	}
	if (!isdigit((unsigned char)**p) && **p != '-')
		return -1;
	errno = 0;
	v = strtoll(*p, &end, 10);
	if (errno || end == *p || (*end && *end != ' ' && *end != '\n') || v < min || v > max)
		return -1;
	*p = end;
	*out = v;
	return 0;
}

int local_end_note_parse(struct local_task_rec *t, const char *text)
{
	const char *p = text, *word;
	int64_t code, sig, end, rss, cpu;
	int state = -1;
	size_t len;

	if (strncmp(p, "end ", 4))
		return -1;
	p += 4;
	word = p;
	len = strcspn(p, " \n");
	for (int s = 0; s < TS_NSTATES; s++)
		if (strlen(task_state_name((enum task_state)s)) == len &&
		    !strncmp(task_state_name((enum task_state)s), word, len))
			state = s;
	p += len;
	if (state < 0 || !task_state_is_final((enum task_state)state) ||
	    note_number(&code, &p, 0, 255, false) < 0 || note_number(&sig, &p, 0, 255, false) < 0 ||
	    note_number(&end, &p, 1, INT64_MAX, false) < 0 ||
	    note_number(&rss, &p, 0, INT64_MAX, true) < 0 ||
	    note_number(&cpu, &p, 0, INT64_MAX, true) < 0 || p[strspn(p, " \n")])
		return -1;
	t->state = state;
	t->exit_code = (int)code;
	t->signal = (int)sig;
	t->end_time = end;
	t->maxrss_bytes = rss < 0 ? UINT64_MAX : (uint64_t)rss;
	t->cpu_us = cpu < 0 ? UINT64_MAX : (uint64_t)cpu;
	return 0;
}
