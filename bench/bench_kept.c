/*
 * A repeated read of a finished sweep from the state store (issue 12), for
 * TASKS tasks (default 10,000) in array jobs of 50 (the test cluster's
 * MaxArraySize): builds a state store as `sweep submit` and a first read
 * leave it (the sweep, its array jobs, every task's result file, the kept
 * accounting records), times the keeping itself, then runs the sweep
 * binary's status, status --tasks --json and report on it, 5 times each,
 * and prints the median wall time and the peak memory of each. Every array
 * job is kept, so these send no query and need no cluster; the first read
 * (slurmdbd) is measured by bench/status_vs_sacct.sh.
 *
 *   build/bench/bench_kept SWEEP_BINARY [TASKS]
 */
#define _DEFAULT_SOURCE /* wait4 */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "acct.h"
#include "acct_cache.h"
#include "array.h"
#include "path.h"
#include "plan.h"
#include "proc.h"
#include "result.h"
#include "store.h"
#include "strbuf.h"

#include "banned.h"

#define CHUNK 50
#define RUNS  5

extern char **environ;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Runs argv RUNS times, stdout and stderr to /dev/null; median seconds, peak KB of any run. */
static int run(double *median, long *peak_kb, char *const *argv)
{
	double t[RUNS];
	posix_spawn_file_actions_t fa;

	*peak_kb = 0;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	for (int r = 0; r < RUNS; r++) {
		struct rusage ru;
		pid_t pid;
		int status;
		double t0 = now();

		if (posix_spawn(&pid, argv[0], &fa, NULL, argv, environ) != 0)
			return -1;
		if (wait4(pid, &status, 0, &ru) < 0)
			return -1;
		t[r] = now() - t0;
		if (ru.ru_maxrss > *peak_kb)
			*peak_kb = ru.ru_maxrss;
	}
	posix_spawn_file_actions_destroy(&fa);
	qsort(t, RUNS, sizeof(t[0]), cmp_double);
	*median = t[RUNS / 2];
	return 0;
}

static void build_plan(struct plan *plan, size_t ntasks, size_t nseeds)
{
	size_t nsettings = ntasks / nseeds;

	plan_init(plan);
	plan->nparams = 1;
	plan->params = xcalloc(1, sizeof(char *));
	plan->params[0] = xstrdup("lr");
	plan->nsettings = nsettings;
	plan->values = xcalloc(nsettings, sizeof(char *));
	for (size_t s = 0; s < nsettings; s++)
		plan->values[s] = xstrfmt("%g", 1e-4 * (double)(s + 1));
	plan->nseeds = nseeds;
	plan->seeds = xcalloc(nseeds, sizeof(int64_t));
	for (size_t k = 0; k < nseeds; k++)
		plan->seeds[k] = (int64_t)k;
	plan->ntasks = nsettings * nseeds;
	plan->varies = xcalloc(1, 1);
	plan->varies[0] = 1;
}

int main(int argc, char **argv)
{
	size_t ntasks = argc > 2 ? strtoul(argv[2], NULL, 10) : 10000, narrays;
	char dir[] = "/tmp/sweep-bench-kept-XXXXXX";
	struct store *st = NULL;
	struct sweep_rec rec;
	struct plan plan;
	struct acct_set set;
	struct acct_cache_entry *keep;
	double t0, t_keep;
	static const char *const cmds[][4] = {
	    {"status", NULL},
	    {"status", "--tasks", "--json", NULL},
	    {"report", NULL},
	};

	if (argc < 2 || !mkdtemp(dir)) {
		fprintf(stderr, "usage: bench_kept SWEEP_BINARY [TASKS]\n");
		return 2;
	}
	build_plan(&plan, ntasks, 5);
	ntasks = plan.ntasks;
	narrays = (ntasks + CHUNK - 1) / CHUNK;
	if (store_open(&st, dir, 1) < 0)
		return 1;
	sweep_rec_init(&rec);
	rec.name = xstrdup("bench");
	rec.source = xstrdup("/nonexistent/bench.yaml");
	rec.logs = xstrfmt("%s/logs", dir);
	rec.backend = xstrdup("slurm");
	if (store_begin_sweep(st, &rec, &plan, "name: bench\n") < 0)
		return 1;

	acct_set_init(&set);
	keep = xcalloc(narrays, sizeof(*keep));
	for (size_t a = 0; a < narrays; a++) {
		uint32_t n = (uint32_t)(ntasks - a * CHUNK < CHUNK ? ntasks - a * CHUNK : CHUNK);
		char spec[32];
		struct array_rec arr = {.job_id = (uint32_t)(100000 + a * 100),
		                        .offset = (uint32_t)(a * CHUNK),
		                        .spec = spec,
		                        .attempt = 1,
		                        .submitted_at = 1700000000};

		array_spec(spec, sizeof(spec), n, 0);
		if (store_add_array(st, rec.id, &arr) < 0)
			return 1;
		keep[a] = (struct acct_cache_entry){arr.job_id, arr.submitted_at, true, NULL, 0};
		for (uint32_t k = 0; k < n; k++) {
			struct acct_rec *r = acct_set_add(&set);
			size_t i = a * CHUNK + k;

			r->array_job_id = arr.job_id;
			r->array_task_id = k;
			r->job_id = arr.job_id + k;
			r->state = TS_COMPLETED;
			r->elapsed_s = 60 + i % 7;
			r->timelimit_s = 300;
			r->req_mem_mb = 20;
			r->ncpus = 1;
			r->maxrss_bytes = (uint64_t)(1000 + i % 100) << 10;
			r->nodes = xstrdup("vm");
			r->submit_time = 1700000000;
			r->start_time = 1700000001;
			r->end_time = 1700000061;
			r->steps_final = true;
		}
	}
	if (store_finish_sweep(st, rec.id, SWEEP_SUBMITTED, NULL) < 0)
		return 1;
	for (size_t i = 0; i < ntasks; i++) {
		char *path = result_path(rec.dir, i), *task = xstrfmt("%s/tasks/%zu", rec.dir, i);
		FILE *f;

		if (path_mkdir_p(task) < 0)
			return 1;
		free(task);
		f = fopen(path, "w");
		if (!f)
			return 1;
		fprintf(f, "{\"loss\": %.17g}\n", 0.5 + 1e-3 * (double)(i % 13));
		fclose(f);
		free(path);
	}
	t0 = now();
	if (store_acct_update(st, rec.id, keep, narrays, &set, NULL, 0) < 0)
		return 1;
	t_keep = now() - t0;
	store_close(st);

	printf("%zu tasks in %zu array jobs, every one kept; keeping them took %.1f ms\n", ntasks,
	       narrays, t_keep * 1000);
	printf("%-30s %9s  %9s\n", "sweep (from the state store)", "wall", "peak RSS");
	setenv("SWEEP_STATE_DIR", dir, 1);
	for (size_t c = 0; c < sizeof(cmds) / sizeof(cmds[0]); c++) {
		char *args[6] = {argv[1]};
		struct strbuf name = STRBUF_INIT;
		double t;
		long kb;

		for (size_t k = 0; cmds[c][k]; k++) {
			args[k + 1] = (char *)cmds[c][k];
			strbuf_addf(&name, "%s%s", k ? " " : "", cmds[c][k]);
		}
		if (run(&t, &kb, args) < 0) {
			fprintf(stderr, "cannot run '%s'\n", argv[1]);
			return 1;
		}
		printf("%-30s %6.1f ms  %6.1f MB\n", name.buf, t * 1000, (double)kb / 1024);
		strbuf_release(&name);
	}
	acct_set_release(&set);
	free(keep);
	sweep_rec_release(&rec);
	plan_release(&plan);
	{
		const char *rm[] = {"rm", "-rf", dir, NULL};
		struct proc_result res;

		proc_result_init(&res);
		proc_run(&res, rm, NULL, 60);
		proc_result_release(&res);
	}
	return 0;
}
