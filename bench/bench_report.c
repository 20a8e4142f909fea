/*
 * The work `sweep report` does after its one accounting query, for a sweep
 * of TASKS tasks (default 10,000: 2,000 settings x 5 seeds), on recorded
 * data: outcomes from an acct_set, every task's result file read from disk,
 * the completeness gate, Welford statistics per setting, the table printed
 * to /dev/null. Prints wall time and this process's peak memory, next to
 * the peak memory of the same process before the work (the reference: what
 * the binary and its libraries cost at rest). Also the metrics of the
 * sweep file's `results: log:` read from every task's log (100 epoch lines
 * each, two patterns), next to reading the JSON result files. The accounting query itself
 * is measured on the real cluster by bench/status_vs_sacct.sh.
 *
 *   build/bench/bench_report [TASKS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "acct.h"
#include "gate.h"
#include "plan.h"
#include "outcome.h"
#include "proc.h"
#include "report.h"
#include "report_print.h"
#include "result.h"
#include "store.h"
#include "strbuf.h"

#include "banned.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double peak_mb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_maxrss / 1024.0;
}

int main(int argc, char **argv)
{
	size_t ntasks = argc > 1 ? strtoul(argv[1], NULL, 10) : 10000, nseeds = 5;
	size_t nsettings = ntasks / nseeds;
	char dir[] = "/tmp/sweep-bench-report-XXXXXX";
	struct plan plan;
	struct acct_set set;
	struct array_rec arr = {.job_id = 1000, .offset = 0, .attempt = 1};
	struct task_outcome *oc;
	struct result *results;
	struct gate_result gate;
	struct report rep;
	char spec[64];
	double rest_mb, t0, t_outcome, t_results, t_logs, t_stats, t_print;
	const char *names[] = {"accuracy", "loss"};
	const char *patterns[] = {"test accuracy: ([0-9.eE+-]+)", "loss=([^ ]+)"};
	struct result_log_spec log_spec;
	size_t log_bytes = 0;
	FILE *devnull = fopen("/dev/null", "w");

	ntasks = nsettings * nseeds;
	if (!mkdtemp(dir) || !devnull)
		return 1;
	/* the plan: one parameter with nsettings values */
	plan_init(&plan);
	plan.nparams = 1;
	plan.params = xcalloc(1, sizeof(char *));
	plan.params[0] = xstrdup("lr");
	plan.nsettings = nsettings;
	plan.values = xcalloc(nsettings, sizeof(char *));
	for (size_t s = 0; s < nsettings; s++)
		plan.values[s] = xstrfmt("%g", 1e-4 * (double)(s + 1));
	plan.nseeds = nseeds;
	plan.seeds = xcalloc(nseeds, sizeof(int64_t));
	for (size_t k = 0; k < nseeds; k++)
		plan.seeds[k] = (int64_t)k;
	plan.ntasks = ntasks;
	plan.varies = xcalloc(1, 1);
	plan.varies[0] = 1;
	snprintf(spec, sizeof(spec), "0-%zu", ntasks - 1);
	arr.spec = spec;

	/* accounting as slurmdbd returns it, and every task's result file */
	acct_set_init(&set);
	for (size_t i = 0; i < ntasks; i++) {
		struct acct_rec *r = acct_set_add(&set);
		char *path = xstrfmt("%s/tasks/%zu", dir, i), *file;
		FILE *f;

		r->array_job_id = 1000;
		r->array_task_id = (uint32_t)i;
		r->job_id = (uint32_t)(1000 + i);
		r->state = TS_COMPLETED;
		r->elapsed_s = 60 + i % 7;
		r->req_mem_mb = 4096;
		r->maxrss_bytes = (uint64_t)(1000 + i % 100) << 20;
		r->nodes = xstrdup("node001");
		free(path);
		path = xstrfmt("%s/tasks", dir);
		if (i == 0 && mkdir(path, 0777) < 0)
			return 1;
		free(path);
		path = xstrfmt("%s/tasks/%zu", dir, i);
		if (mkdir(path, 0777) < 0)
			return 1;
		file = xstrfmt("%s/result.json", path);
		f = fopen(file, "w");
		if (!f)
			return 1;
		fprintf(f, "{\"loss\": %.17g, \"accuracy\": %.17g}\n",
		        0.5 + 1e-3 * (double)(i % 13), 0.9 - 1e-3 * (double)(i % 11));
		fclose(f);
		free(file);
		file = xstrfmt("%s/task.out", path);
		f = fopen(file, "w");
		if (!f)
			return 1;
		for (int e = 1; e <= 100; e++)
			fprintf(f, "epoch %d: loss=%.6f lr=%g step time 0.123 s\n", e,
			        0.5 + 1.0 / e + 1e-3 * (double)(i % 13), 1e-3);
		fprintf(f, "test accuracy: %.6f\n", 0.9 - 1e-3 * (double)(i % 11));
		log_bytes += (size_t)ftell(f);
		fclose(f);
		free(file);
		free(path);
	}
	rest_mb = peak_mb();

	t0 = now();
	oc = xcalloc(ntasks, sizeof(*oc));
	if (outcome_build(oc, ntasks, &arr, 1, &set) < 0)
		return 1;
	t_outcome = now() - t0;

	t0 = now();
	results = xcalloc(ntasks, sizeof(*results));
	for (size_t i = 0; i < ntasks; i++) {
		char *path = result_path(dir, TASKDIR_FLAT, i); /* made flat above */

		result_init(&results[i]);
		result_read(&results[i], path);
		free(path);
	}
	t_results = now() - t0;

	if (result_log_spec_init(&log_spec, names, patterns, 2) < 0)
		return 1;
	t0 = now();
	for (size_t i = 0; i < ntasks; i++) {
		char *path = xstrfmt("%s/tasks/%zu/task.out", dir, i);
		struct result r;

		result_init_empty(&r);
		result_read_log(&r, path, &log_spec);
		if (!result_find(&r, "accuracy") ||
		    result_find(&r, "accuracy")->kind != RESULT_NUMBER)
			return 1;
		result_release(&r);
		free(path);
	}
	t_logs = now() - t0;
	result_log_spec_release(&log_spec);

	t0 = now();
	gate_result_init(&gate);
	gate_check(&gate, &plan, oc, results, NULL, 0);
	report_init(&rep);
	report_build(&rep, &plan, &gate, results);
	rep.name = "bench";
	rep.logs = "/logs";
	t_stats = now() - t0;

	t0 = now();
	report_print_table(devnull, &rep);
	report_print_json(devnull, &rep);
	t_print = now() - t0;

	printf("report over %zu tasks (%zu settings x %zu seeds), %s\n", ntasks, nsettings, nseeds,
	       gate_complete(&gate) ? "complete" : "INCOMPLETE");
	printf("  outcomes from accounting %8.1f ms\n", t_outcome * 1e3);
	printf("  read %zu result files %8.1f ms\n", ntasks, t_results * 1e3);
	printf("  metrics from %zu logs %8.1f ms (%.1f MB of logs, 2 patterns)\n", ntasks,
	       t_logs * 1e3, (double)log_bytes / 1e6);
	printf("  gate and statistics      %8.1f ms\n", t_stats * 1e3);
	printf("  print table and JSON     %8.1f ms\n", t_print * 1e3);
	printf("  peak memory              %8.1f MB (at rest with the data loaded: %.1f MB)\n",
	       peak_mb(), rest_mb);
	printf("  target: the whole of sweep report under 30 MB for 10,000 tasks\n");

	report_release(&rep);
	gate_result_release(&gate);
	results_free(results, ntasks);
	free(oc);
	acct_set_release(&set);
	plan_release(&plan);
	fclose(devnull);
	{
		const char *rm[] = {"rm", "-rf", dir, NULL};
		struct proc_result res;

		proc_result_init(&res);
		proc_run(&res, rm, NULL, 120);
		proc_result_release(&res);
	}
	return 0;
}
