/*
 * nvidia-smi's CSV, read strictly: a GPU whose line cannot be read is not
 * guessed at, since a wrong "free" puts two jobs on one GPU. Fields are
 * separated by ", "; a model name could hold a comma, so the name is
 * whatever stands between the uuid and the two memory fields.
 */
#include "gpu.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
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
