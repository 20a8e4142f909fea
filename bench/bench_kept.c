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
 * Then the same sweep with every task FAILED (exit code 1, a Python
 * traceback in each task's .err log, issue 23): the first report reads
 * every log's tail for the cause and keeps it; the later ones read no log.
 * Prints both next to the complete sweep's report and their ratio (the
 * target: a refused report within 2x of a complete one).
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
#include "outcome.h"
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

/*
 * Runs argv RUNS times, stdout and stderr to /dev/null; median seconds, peak
 * KB of any run. Each run must exit with want (what is timed is no error).
 */
static int run(double *median, long *peak_kb, char *const *argv, int want)
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
		if (!WIFEXITED(status) || WEXITSTATUS(status) != want) {
			fprintf(stderr, "'%s %s' exited %d, not %d\n", argv[0], argv[1],
			        WIFEXITED(status) ? WEXITSTATUS(status) : -1, want);
			return -1;
		}
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

/* The kept records of array a (tasks from a * CHUNK) of a sweep of ntasks tasks. */
static void add_records(struct acct_set *set, const struct array_rec *arr, size_t ntasks, size_t a,
                        bool failed)
{
	uint32_t n = (uint32_t)(ntasks - a * CHUNK < CHUNK ? ntasks - a * CHUNK : CHUNK);

	for (uint32_t k = 0; k < n; k++) {
		struct acct_rec *r = acct_set_add(set);
		size_t i = a * CHUNK + k;

		r->array_job_id = arr->job_id;
		r->array_task_id = k;
		r->job_id = arr->job_id + k;
		r->state = failed ? TS_FAILED : TS_COMPLETED;
		r->exit_code = failed ? 1 : 0;
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

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* Each task's output: a result file, or (failed) the logs of a Python import error. */
static int write_outputs(const struct sweep_rec *rec, const struct acct_set *set, bool failed)
{
	static const char err[] =
	    "Traceback (most recent call last):\n"
	    "  File \"/home/user/proj/train.py\", line 3, in <module>\n"
	    "    import sklearn\n"
	    "ModuleNotFoundError: No module named 'sklearn'\n";
	static const char out[] = "sweep: task started\nepoch 1 loss 0.9\nsweep: task ended\n";

	if (failed && path_mkdir_p(rec->logs) < 0)
		return -1;
	for (size_t i = 0; i < set->n; i++) {
		const struct acct_rec *r = &set->recs[i];
		size_t index = (size_t)(r->array_job_id - 100000) / 100 * CHUNK + r->array_task_id;
		char *task = taskdir_path(rec->dir, rec->task_layout, index), *path;
		int rc;

		if (path_mkdir_p(task) < 0)
			return -1;
		free(task);
		if (failed) {
			path = outcome_log_path(rec->logs, rec->name, TS_FAILED, r->array_job_id,
			                        r->array_task_id);
			rc = write_file(path, out);
			memcpy(path + strlen(path) - 4, ".err", 4);
			rc |= write_file(path, err);
		} else {
			char json[64];

			path = result_path(rec->dir, rec->task_layout, index);
			snprintf(json, sizeof(json), "{\"loss\": %.17g}\n", 0.5 + 1e-3 * (double)(index % 13));
			rc = write_file(path, json);
		}
		free(path);
		if (rc)
			return -1;
	}
	return 0;
}

/*
 * Records a sweep named name of plan's tasks in st as submit and a first
 * read leave it, with its files; *t_keep is how long keeping the records took.
 */
static int build_sweep(struct store *st, const char *dir, const char *name,
                       const struct plan *plan, bool failed, double *t_keep)
{
	size_t ntasks = plan->ntasks, narrays = (ntasks + CHUNK - 1) / CHUNK;
	struct sweep_rec rec;
	struct acct_set set;
	struct acct_cache_entry *keep = xcalloc(narrays, sizeof(*keep));
	/* The sweep file as stored: report reads where the metrics are from it. */
	char *spec_text = xstrfmt("name: %s\ncommand: python3 train.py\nseeds: 5\n", name);
	double t0;
	int ret = -1;

	sweep_rec_init(&rec);
	acct_set_init(&set);
	rec.name = xstrdup(name);
	rec.source = xstrfmt("/nonexistent/%s.yaml", name);
	rec.logs = xstrfmt("%s/logs", dir);
	rec.backend = xstrdup("slurm");
	if (store_begin_sweep(st, &rec, plan, spec_text) < 0)
		goto out;
	for (size_t a = 0; a < narrays; a++) {
		char spec[32];
		struct array_rec arr = {.job_id = (uint32_t)(100000 + a * 100),
		                        .offset = (uint32_t)(a * CHUNK),
		                        .spec = spec,
		                        .attempt = 1,
		                        .submitted_at = 1700000000};
		uint32_t n = (uint32_t)(ntasks - a * CHUNK < CHUNK ? ntasks - a * CHUNK : CHUNK);

		array_spec(spec, sizeof(spec), n, 0);
		if (store_add_array(st, rec.id, &arr) < 0)
			goto out;
		keep[a] = (struct acct_cache_entry){arr.job_id, arr.submitted_at, true, NULL, 0, 0};
		add_records(&set, &arr, ntasks, a, failed);
	}
	if (store_finish_sweep(st, rec.id, SWEEP_SUBMITTED, NULL) < 0 ||
	    write_outputs(&rec, &set, failed) < 0)
		goto out;
	t0 = now();
	if (store_acct_update(st, rec.id, keep, narrays, &set, NULL, 0) < 0)
		goto out;
	*t_keep = now() - t0;
	ret = 0;
out:
	acct_set_release(&set);
	free(keep);
	free(spec_text);
	sweep_rec_release(&rec);
	return ret;
}

/* Runs the sweep binary with args RUNS times; prints "name  wall  peak"; the median in *t. */
static int time_command(double *t, const char *sweep, const char *const *args, int want)
{
	char *argv[8] = {(char *)sweep};
	struct strbuf name = STRBUF_INIT;
	long kb;
	int ret;

	for (size_t k = 0; args[k] && k < 6; k++) {
		argv[k + 1] = (char *)args[k];
		strbuf_addf(&name, "%s%s", k ? " " : "", args[k]);
	}
	ret = run(t, &kb, argv, want);
	if (ret < 0)
		fprintf(stderr, "cannot run '%s'\n", sweep);
	else
		printf("%-30s %6.1f ms  %6.1f MB\n", name.buf, *t * 1000, (double)kb / 1024);
	strbuf_release(&name);
	return ret;
}

int main(int argc, char **argv)
{
	size_t ntasks = argc > 2 ? strtoul(argv[2], NULL, 10) : 10000;
	char dir[] = "/tmp/sweep-bench-kept-XXXXXX";
	struct store *st = NULL;
	struct plan plan;
	double t_keep, t_keep_failed, t, t_report, t_first, t_refused;
	static const char *const cmds[][5] = {
	    {"status", "1", NULL},
	    {"status", "1", "--tasks", "--json", NULL},
	};
	static const char *const report[] = {"report", "1", NULL};
	static const char *const refused[] = {"report", "2", NULL};

	if (argc < 2 || !mkdtemp(dir)) {
		fprintf(stderr, "usage: bench_kept SWEEP_BINARY [TASKS]\n");
		return 2;
	}
	build_plan(&plan, ntasks, 5);
	ntasks = plan.ntasks;
	if (store_open(&st, dir, 1) < 0 || build_sweep(st, dir, "bench", &plan, false, &t_keep) < 0 ||
	    build_sweep(st, dir, "failed", &plan, true, &t_keep_failed) < 0)
		return 1;
	store_close(st);

	printf("%zu tasks in %zu array jobs, every one kept; keeping them took %.1f ms\n", ntasks,
	       (ntasks + CHUNK - 1) / CHUNK, t_keep * 1000);
	printf("%-30s %9s  %9s\n", "sweep (from the state store)", "wall", "peak RSS");
	setenv("SWEEP_STATE_DIR", dir, 1);
	for (size_t c = 0; c < sizeof(cmds) / sizeof(cmds[0]); c++)
		if (time_command(&t, argv[1], cmds[c], 0) < 0)
			return 1;
	if (time_command(&t_report, argv[1], report, 0) < 0)
		return 1;
	printf("\nthe same sweep, every task FAILED with a traceback in its log:\n");
	{
		/* The first report reads each log's tail once and keeps the cause. */
		char *argv1[] = {argv[1], "report", "2", NULL};
		posix_spawn_file_actions_t fa;
		pid_t pid;
		int status;
		double t0 = now();

		char *out = xstrfmt("%s/refused.out", dir);
		struct strbuf sb = STRBUF_INIT;

		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		posix_spawn_file_actions_adddup2(&fa, 1, 2);
		if (posix_spawn(&pid, argv[1], &fa, NULL, argv1, environ) != 0 ||
		    waitpid(pid, &status, 0) < 0)
			return 1;
		posix_spawn_file_actions_destroy(&fa);
		t_first = now() - t0;
		/* What was timed must be the refusal with the causes, not an error. */
		if (strbuf_read_file(&sb, out) < 0 ||
		    !strstr(sb.buf, " tasks (0-") ||
		    !strstr(sb.buf, "ModuleNotFoundError: No module named 'sklearn'")) {
			fprintf(stderr, "report 2 did not group the causes:\n%.2000s\n", sb.buf);
			return 1;
		}
		strbuf_release(&sb);
		free(out);
		printf("%-30s %6.1f ms  (reads %zu logs, keeps the causes)\n", "report (first, refused)",
		       t_first * 1000, ntasks);
	}
	if (time_command(&t_refused, argv[1], refused, 3) < 0)
		return 1;
	printf("refused report / complete report: %.2fx (first read of the logs: %.2fx)\n",
	       t_refused / t_report, t_first / t_report);
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
