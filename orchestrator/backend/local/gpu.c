/*
 * nvidia-smi's CSV, read strictly: a GPU whose line cannot be read is not
 * guessed at, since a wrong "free" puts two jobs on one GPU. Fields are
 * separated by ", "; a model name could hold a comma, so the name is
 * whatever stands between the uuid and the two memory fields. Also the
 * discovery itself (running nvidia-smi) and the per-GPU locks that keep two
 * runners off one GPU.
 */
#include "gpu.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "proc.h"
#include "strbuf.h"

#include "banned.h"

const char *const gpu_query_gpus_argv[] = {"nvidia-smi",
                                           "--query-gpu=index,uuid,name,memory.used,memory.total",
                                           "--format=csv,noheader,nounits", NULL};
const char *const gpu_query_apps_argv[] = {"nvidia-smi",
                                           "--query-compute-apps=gpu_uuid,pid,used_memory",
                                           "--format=csv,noheader,nounits", NULL};

#define MAX_FIELDS 16

void gpu_set_init(struct gpu_set *set)
{
	memset(set, 0, sizeof(*set));
}

void gpu_set_release(struct gpu_set *set)
{
	for (size_t i = 0; i < set->ngpus; i++) {
		free(set->gpus[i].uuid);
		free(set->gpus[i].name);
	}
	for (size_t i = 0; i < set->nprocs; i++) {
		free(set->procs[i].uuid);
		free(set->procs[i].user);
		free(set->procs[i].command);
	}
	free(set->gpus);
	free(set->procs);
	gpu_set_init(set);
}

/* Splits line (modified in place) at commas; fields are trimmed of blanks. */
static size_t split(char **fields, char *line)
{
	size_t n = 0;
	char *p = line;

	for (;;) {
		char *comma = strchr(p, ',');
		char *end = comma ? comma : p + strlen(p);

		while (*p == ' ' || *p == '\t')
			p++;
		while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
			end--;
		if (n < MAX_FIELDS)
			fields[n] = p;
		n++;
		if (!comma) {
			*end = '\0';
			break;
		}
		*end = '\0';
		p = comma + 1;
	}
	return n;
}

/* A count of MiB, or GPU_NO_VALUE for "[N/A]" and its kind; -1 for anything else. */
static int mib(uint64_t *out, const char *s)
{
	uint64_t v = 0;

	if (s[0] == '[' || !strcmp(s, "N/A")) {
		*out = GPU_NO_VALUE;
		return 0;
	}
	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return 0;
}

static int whole(long *out, const char *s, long max)
{
	long v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (max - 9) / 10)
			return -1;
		v = v * 10 + (*s - '0');
	}
	*out = v;
	return 0;
}

/* The next line of *text (modified in place), or NULL at the end. */
static char *next_line(char **text)
{
	char *line = *text, *nl;

	if (!*line)
		return NULL;
	nl = strchr(line, '\n');
	if (nl) {
		*nl = '\0';
		*text = nl + 1;
	} else {
		*text = line + strlen(line);
	}
	return line;
}

static int blank(const char *s)
{
	return !s[strspn(s, " \t\r")];
}

static int cmp_index(const void *a, const void *b)
{
	const struct gpu *x = a, *y = b;

	return x->index < y->index ? -1 : x->index > y->index;
}

static int parse_gpus(struct gpu_set *out, char *text)
{
	size_t alloc = 0, lineno = 0;
	char *line, *fields[MAX_FIELDS];

	while ((line = next_line(&text))) {
		struct gpu g = {0};
		size_t n;
		long index;
		struct strbuf name = STRBUF_INIT;
		char *copy;

		lineno++;
		if (blank(line))
			continue;
		copy = xstrdup(line);
		n = split(fields, line);
		if (n < 5 || n > MAX_FIELDS || whole(&index, fields[0], 1L << 20) < 0 ||
		    !*fields[1] || mib(&g.used_mib, fields[n - 2]) < 0 ||
		    mib(&g.total_mib, fields[n - 1]) < 0) {
			error("nvidia-smi's GPU list, line %zu: expected 'index, uuid, name, "
			      "memory.used, memory.total' (MiB), got '%s'",
			      lineno, copy);
			free(copy);
			return SWEEP_ERR;
		}
		free(copy);
		for (size_t i = 0; i < out->ngpus; i++)
			if (out->gpus[i].index == (unsigned)index ||
			    !strcmp(out->gpus[i].uuid, fields[1]))
				return error("nvidia-smi's GPU list, line %zu: GPU %ld (%s) listed "
				             "twice",
				             lineno, index, fields[1]);
		for (size_t f = 2; f < n - 2; f++) {
			if (f > 2)
				strbuf_addstr(&name, ", ");
			strbuf_addstr(&name, fields[f]);
		}
		g.index = (unsigned)index;
		g.uuid = xstrdup(fields[1]);
		g.name = strbuf_detach(&name, NULL);
		ALLOC_GROW(out->gpus, out->ngpus + 1, alloc);
		out->gpus[out->ngpus++] = g;
	}
	if (out->ngpus)
		qsort(out->gpus, out->ngpus, sizeof(*out->gpus), cmp_index);
	return 0;
}

static int parse_apps(struct gpu_set *out, char *text)
{
	size_t alloc = 0, lineno = 0;
	char *line, *fields[MAX_FIELDS];

	while ((line = next_line(&text))) {
		struct gpu_proc p = {0};
		long pid;
		char *copy;

		lineno++;
		/* Older drivers say so in words where newer ones print nothing. */
		if (blank(line) || !strncmp(line, "No running", 10))
			continue;
		copy = xstrdup(line);
		if (split(fields, line) != 3 || !*fields[0] ||
		    whole(&pid, fields[1], 1L << 30) < 0 || mib(&p.used_mib, fields[2]) < 0) {
			error("nvidia-smi's process list, line %zu: expected 'gpu_uuid, pid, "
			      "used_memory' (MiB), got '%s'",
			      lineno, copy);
			free(copy);
			return SWEEP_ERR;
		}
		free(copy);
		p.uuid = xstrdup(fields[0]);
		p.pid = pid;
		p.gpu = SIZE_MAX;
		for (size_t i = 0; i < out->ngpus; i++)
			if (!strcmp(out->gpus[i].uuid, p.uuid)) {
				p.gpu = i;
				out->gpus[i].nprocs++;
			}
		ALLOC_GROW(out->procs, out->nprocs + 1, alloc);
		out->procs[out->nprocs++] = p;
	}
	return 0;
}

int gpu_parse(struct gpu_set *out, const char *gpus_csv, const char *apps_csv)
{
	char *gpus = xstrdup(gpus_csv ? gpus_csv : "");
	char *apps = xstrdup(apps_csv ? apps_csv : "");
	int ret;

	ret = parse_gpus(out, gpus);
	if (!ret)
		ret = parse_apps(out, apps);
	if (ret < 0)
		gpu_set_release(out);
	free(gpus);
	free(apps);
	return ret;
}

uint64_t gpu_min_free_mib(const struct gpu *g, uint64_t min_free_mib)
{
	if (min_free_mib || g->total_mib == GPU_NO_VALUE)
		return min_free_mib;
	return g->total_mib / 100 * GPU_DEFAULT_FREE_PERCENT +
	       g->total_mib % 100 * GPU_DEFAULT_FREE_PERCENT / 100;
}

size_t gpu_select(struct gpu_set *set, uint64_t min_free_mib)
{
	size_t nfree = 0;

	for (size_t i = 0; i < set->ngpus; i++) {
		struct gpu *g = &set->gpus[i];

		if (g->nprocs)
			g->verdict = GPU_BUSY;
		else if (g->used_mib == GPU_NO_VALUE || g->total_mib == GPU_NO_VALUE)
			g->verdict = GPU_UNKNOWN_MEMORY;
		else if (g->used_mib > g->total_mib ||
		         g->total_mib - g->used_mib < gpu_min_free_mib(g, min_free_mib))
			g->verdict = GPU_LOW_MEMORY;
		else
			g->verdict = GPU_FREE;
		nfree += g->verdict == GPU_FREE;
	}
	return nfree;
}

void gpu_free_list(struct strbuf *out, const struct gpu_set *set)
{
	int first = 1;

	for (size_t i = 0; i < set->ngpus; i++) {
		if (set->gpus[i].verdict != GPU_FREE)
			continue;
		strbuf_addf(out, "%s%u", first ? "" : ",", set->gpus[i].index);
		first = 0;
	}
}

/* ---- Discovery (nvidia-smi) and locks
 * ------------------------------------------------------------------------------------ */

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

int gpu_query(struct gpu_set *out, bool owners)
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
int gpu_lock(const char *uuid)
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
