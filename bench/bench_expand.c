/*
 * Expansion and rendering of a 100,000-task sweep (20,000 settings x 5
 * seeds): plan_expand, script_render and script_write_files, the work
 * `sweep submit` does before sbatch. Prints wall time and peak memory, and
 * the cost a task pays at start to find its own setting (the last one, the
 * worst case) next to the cost of starting bash at all, in the same run.
 *
 *   build/bench/bench_expand [TASKS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cfg.h"
#include "plan.h"
#include "proc.h"
#include "script.h"
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

/* Median wall time of running bash -c script `runs` times. */
static double time_bash(const char *script, int runs)
{
	double *t = xcalloc((size_t)runs, sizeof(double)), med;

	for (int i = 0; i < runs; i++) {
		const char *argv[] = {"bash", "-c", script, NULL};
		struct proc_result res;
		double t0 = now();

		proc_result_init(&res);
		if (proc_run(&res, argv, NULL, 60) < 0 || res.status != 0) {
			fprintf(stderr, "bench: bash failed: %s\n", res.err.buf);
			exit(1);
		}
		t[i] = now() - t0;
		proc_result_release(&res);
	}
	for (int i = 1; i < runs; i++)
		for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
			double x = t[j];

			t[j] = t[j - 1];
			t[j - 1] = x;
		}
	med = t[runs / 2];
	free(t);
	return med;
}

int main(int argc, char **argv)
{
	size_t ntasks = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000;
	size_t nseeds = 5, nsettings = ntasks / nseeds;
	/* four parameters whose product is nsettings: 10 x 10 x 10 x (nsettings / 1000) */
	size_t sizes[4] = {10, 10, 10, nsettings / 1000 ? nsettings / 1000 : 1};
	static char *names[] = {"lr", "wd", "width", "depth"};
	struct cfg_param grid[4];
	int64_t *seeds = xcalloc(nseeds, sizeof(int64_t));
	struct cfg cfg;
	struct plan plan;
	struct script_input in = {0};
	struct strbuf script = STRBUF_INIT;
	char dir[] = "/tmp/sweep-bench-XXXXXX";
	char *sweep_dir, *script_path, *logs, *lookup_last, *lookup_first;
	double t0, t_expand, t_render, t_write, t_store, base, first, last;
	struct store *st = NULL;
	struct sweep_rec rec;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	cfg_init(&cfg);
	cfg.path = "bench.yaml";
	cfg.name = "bench";
	cfg.command = "python train.py --lr {lr} --wd {wd} --width {width} --depth {depth} "
	              "--seed {seed}";
	cfg.slurm.mem_mb = 4096;
	cfg.slurm.time_min = 60;
	cfg.slurm.max_concurrent = 100;
	cfg.slurm.signal_seconds = 120;
	for (size_t g = 0; g < 4; g++) {
		grid[g].name = names[g];
		grid[g].nvalues = sizes[g];
		grid[g].values = xcalloc(sizes[g], sizeof(char *));
		for (size_t v = 0; v < sizes[g]; v++)
			grid[g].values[v] = xstrfmt("%s-value-%zu", names[g], v);
	}
	for (size_t i = 0; i < nseeds; i++)
		seeds[i] = (int64_t)i;
	cfg.grid = grid;
	cfg.ngrid = 4;
	cfg.seeds = seeds;
	cfg.nseeds = nseeds;

	t0 = now();
	if (plan_expand(&plan, &cfg) < 0)
		return 1;
	t_expand = now() - t0;

	sweep_dir = xstrfmt("%s/sweeps/1", dir);
	script_path = xstrfmt("%s/bench.sbatch", sweep_dir);
	logs = xstrfmt("%s/logs", dir);
	in.cfg = &cfg;
	in.plan = &plan;
	in.sweep_id = 1;
	in.sweep_dir = sweep_dir;
	in.script = script_path;
	in.logs = logs;
	in.workdir = dir;
	in.source = "bench.yaml";
	in.array_limit = 1001;
	t0 = now();
	if (script_render(&script, script_default_template, &in) < 0)
		return 1;
	t_render = now() - t0;
	t0 = now();
	if (script_write_files(&in, script.buf) < 0)
		return 1;
	t_write = now() - t0;

	/* What submit records before sbatch runs: the sweep and its settings. */
	sweep_rec_init(&rec);
	rec.name = xstrdup("bench");
	rec.source = xstrdup("bench.yaml");
	rec.logs = xstrdup(logs);
	t0 = now();
	if (store_open(&st, dir, 1) < 0 || store_begin_sweep(st, &rec, &plan, "") < 0)
		return 1;
	t_store = now() - t0;
	store_close(st);
	sweep_rec_release(&rec);

	printf("sweep of %zu tasks (%zu settings x %zu seeds)\n", plan.ntasks, plan.nsettings,
	       plan.nseeds);
	printf("  expand      %8.1f ms\n", t_expand * 1e3);
	printf("  render      %8.1f ms\n", t_render * 1e3);
	printf("  write files %8.1f ms (script, settings table, tasks.tsv)\n", t_write * 1e3);
	printf("  record      %8.1f ms (state store: sweep and settings, one transaction)\n",
	       t_store * 1e3);
	printf("  total       %8.1f ms   target < 1000 ms\n",
	       (t_expand + t_render + t_write + t_store) * 1e3);
	printf("  peak memory %8.1f MB   target < 100 MB\n", peak_mb());

	/*
	 * What a task does at start to find its setting (as templates/array.sbatch
	 * does), and the worst case: the last line of a file of the table.
	 */
	lookup_first =
	    xstrfmt("mapfile -t -s 0 -n 1 l <'%s/settings/0'; eval \"${l[0]}\"", sweep_dir);
	lookup_last = xstrfmt("mapfile -t -s %d -n 1 l <'%s/settings/0'; eval \"${l[0]}\"",
	                      SCRIPT_SETTINGS_PER_FILE - 1, sweep_dir);
	base = time_bash("true", 21);
	first = time_bash(lookup_first, 21);
	last = time_bash(lookup_last, 21);
	printf("task start-up, median of 21 runs:\n");
	printf("  bash -c true (reference)      %6.2f ms\n", base * 1e3);
	printf("  find setting 1                %6.2f ms\n", first * 1e3);
	printf("  find setting %-6d           %6.2f ms (%.2f ms over the reference)\n",
	       SCRIPT_SETTINGS_PER_FILE, last * 1e3, (last - base) * 1e3);

	{
		const char *rm[] = {"rm", "-rf", dir, NULL};
		struct proc_result res;

		proc_result_init(&res);
		proc_run(&res, rm, NULL, 60);
		proc_result_release(&res);
	}
	for (size_t g = 0; g < 4; g++) {
		for (size_t v = 0; v < sizes[g]; v++)
			free(grid[g].values[v]);
		free(grid[g].values);
	}
	free(seeds);
	free(sweep_dir);
	free(script_path);
	free(logs);
	free(lookup_first);
	free(lookup_last);
	strbuf_release(&script);
	plan_release(&plan);
	return 0;
}
