/*
 * sweep rightsize: store (what was asked) + accounting (what Slurm
 * measured, one query) -> one outcome per task -> efficiencies and the
 * --mem and --time to ask for next time -> a printer. Also the source of
 * submit --resources-from.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct.h"
#include "backend.h"
#include "cfg.h"
#include "cli.h"
#include "error.h"
#include "grid.h"
#include "outcome.h"
#include "rightsize.h"
#include "store.h"
#include "strbuf.h"
#include "units.h"

#include "banned.h"

static const char usage[] = "sweep rightsize [options] [SWEEP]";
static const char options[] =
    "SWEEP is a sweep's name or id (default: the most recent sweep).\n"
    "\n"
    "options:\n"
    "  --headroom H       multiply the peak MaxRSS and the longest elapsed time by H\n"
    "                     (default 1.2, at least 1)\n"
    "  --mem-factor F     a task that ran out of memory needed more than it had: ask\n"
    "                     at least F times that (default 2, more than 1)\n"
    "  --time-factor F    the same for a task that hit its time limit (default 2)\n"
    "  --tasks            also one row per task: its request, use and efficiency\n"
    "  --json             print JSON\n"
    "  --state-dir DIR    the state folder (default $SWEEP_STATE_DIR or .sweep)\n"
    "  -h, --help         show this help\n"
    "\n"
    "--mem is rounded up to a multiple of 64M up to 1G, of 512M up to 16G, of 1G\n"
    "beyond; --time to whole minutes.\n"
    "\n"
    "exit status: 0 both --mem and --time recommended, 3 the data cannot support a\n"
    "recommendation (why is printed), 1 error, 2 usage.\n";

struct rightsize_opts {
	const char *state_dir;
	const char *which;
	struct rightsize_policy policy;
	bool tasks;
	bool json;
};

int cmd_rightsize_parse_factor(double *out, const char *opt, const char *arg)
{
	const char *why;
	bool headroom = !strcmp(opt, "headroom");

	if (rightsize_parse_factor(out, arg, 1.0, !headroom, &why) < 0)
		return error("--%s '%s': %s", opt, arg, why);
	return 0;
}

/* Returns CLI_CONTINUE to go on, or the exit code the command ends with. */
static int parse_options(struct rightsize_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"headroom", required_argument, NULL, 'H'},
	    {"mem-factor", required_argument, NULL, 'm'},
	    {"time-factor", required_argument, NULL, 't'},
	    {"tasks", no_argument, NULL, 'T'},
	    {"json", no_argument, NULL, 'j'},
	    {"state-dir", required_argument, NULL, 's'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int opt, code;

	rightsize_policy_init(&o->policy);
	cli_getopt_start();
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'H':
			if (cmd_rightsize_parse_factor(&o->policy.headroom, "headroom", optarg) < 0)
				return cli_usage(stderr, usage, options);
			break;
		case 'm':
			if (cmd_rightsize_parse_factor(&o->policy.mem_factor, "mem-factor",
			                               optarg) < 0)
				return cli_usage(stderr, usage, options);
			break;
		case 't':
			if (cmd_rightsize_parse_factor(&o->policy.time_factor, "time-factor",
			                               optarg) < 0)
				return cli_usage(stderr, usage, options);
			break;
		case 'T':
			o->tasks = true;
			break;
		case 'j':
			o->json = true;
			break;
		default:
			code =
			    cli_common_option(opt, &o->state_dir, argv, longopts, usage, options);
			if (code != CLI_CONTINUE)
				return code;
		}
	}
	return cli_take_sweep(&o->which, argc, argv, usage, options);
}

/* What a sizing is made of; the outcomes borrow from set, the sizing from plan and outcomes. */
struct sizing {
	struct sweep_rec rec;
	struct plan plan;
	struct acct_set set;
	struct task_outcome *outcomes;
	struct rightsize rs;
};

static void sizing_init(struct sizing *z)
{
	sweep_rec_init(&z->rec);
	plan_init(&z->plan);
	acct_set_init(&z->set);
	z->outcomes = NULL;
	rightsize_init(&z->rs);
}

static void sizing_release(struct sizing *z)
{
	rightsize_release(&z->rs);
	free(z->outcomes);
	acct_set_release(&z->set);
	plan_release(&z->plan);
	sweep_rec_release(&z->rec);
	sizing_init(z);
}

/* The outcome of every task: the store's array jobs and one records query. */
static int load_outcomes(struct sizing *z, struct store *st)
{
	struct array_rec *arrays = NULL;
	size_t narrays = 0;
	int ret;

	z->outcomes = xcalloc(z->plan.ntasks ? z->plan.ntasks : 1, sizeof(*z->outcomes));
	ret = backend_load_outcomes(z->outcomes, &z->set, &arrays, &narrays, st, &z->rec);
	array_recs_free(arrays, narrays);
	return ret;
}

static int sizing_load(struct sizing *z, const char *state_dir, const char *which,
                       const struct rightsize_policy *p)
{
	struct store *st = NULL;
	int ret;

	ret = cli_open_sweep(&st, &z->rec, state_dir, which);
	if (ret < 0)
		return ret;
	ret = store_load_plan(st, &z->plan, z->rec.id);
	if (ret == 0)
		ret = load_outcomes(z, st);
	store_close(st);
	if (ret < 0)
		return ret;
	rightsize_build(&z->rs, &z->plan, z->outcomes, p);
	z->rs.name = z->rec.name;
	z->rs.id = z->rec.id;
	return 0;
}

/* Whether an option of slurm.extra is --mem-per-gpu, which sbatch refuses beside --mem. */
static bool asks_mem_per_gpu(const struct cfg *cfg)
{
	for (size_t i = 0; i < cfg->slurm.nextra; i++)
		if (!strncmp(cfg->slurm.extra[i], "--mem-per-gpu", 13) &&
		    (!cfg->slurm.extra[i][13] || cfg->slurm.extra[i][13] == '='))
			return true;
	return false;
}

static void apply_mem(struct cfg *cfg, const struct rightsize_group *g)
{
	char before[64], after[64];

	units_format_mem(after, sizeof(after), g->mem_mb);
	if (cfg->slurm.mem_per_cpu_mb) {
		units_format_mem(before, sizeof(before), cfg->slurm.mem_per_cpu_mb);
		printf("  slurm.mem_per_cpu: %s -> slurm.mem: %s (per task)\n", before, after);
	} else if (cfg->slurm.mem_mb) {
		units_format_mem(before, sizeof(before), cfg->slurm.mem_mb);
		printf("  slurm.mem: %s -> %s\n", before, after);
	} else {
		printf("  slurm.mem: (not set) -> %s\n", after);
	}
	cfg->slurm.mem_mb = g->mem_mb;
	cfg->slurm.mem_per_cpu_mb = 0;
}

static void apply_time(struct cfg *cfg, const struct rightsize_group *g)
{
	uint64_t minutes = g->time_min;
	char before[64], after[64];

	if (cfg->slurm.time_unlimited)
		snprintf(before, sizeof(before), "UNLIMITED");
	else if (cfg->slurm.time_min)
		units_format_time(before, sizeof(before), (uint64_t)cfg->slurm.time_min * 60);
	else
		snprintf(before, sizeof(before), "(not set)");
	/* The warning signal must come after the start: the sweep file reader insists. */
	if (minutes * 60 <= cfg->slurm.signal_seconds)
		minutes = cfg->slurm.signal_seconds / 60 + 1;
	if (minutes > UINT32_MAX)
		minutes = UINT32_MAX;
	units_format_time(after, sizeof(after), minutes * 60);
	printf("  slurm.time: %s -> %s", before, after);
	if (minutes != g->time_min)
		printf(" (more than the %u s warning signal before the end, slurm.signal)",
		       cfg->slurm.signal_seconds);
	putchar('\n');
	cfg->slurm.time_min = (uint32_t)minutes;
	cfg->slurm.time_unlimited = false;
}

int cmd_rightsize_apply(struct cfg *cfg, const char *state_dir, const char *which)
{
	struct rightsize_policy policy;
	struct sizing z;
	struct strbuf why = STRBUF_INIT;
	const struct rightsize_group *g;
	int ret;

	rightsize_policy_init(&policy);
	sizing_init(&z);
	ret = sizing_load(&z, state_dir, which, &policy);
	if (ret < 0)
		goto out;
	g = &z.rs.sweep;
	/* Once anything ran its time can be sized; its memory may lack MaxRSS. */
	if (g->time_gap != RIGHTSIZE_OK) {
		rightsize_explain(&why, g, g->time_gap);
		ret = error("sweep %" PRId64 " '%s' cannot size this one: %s", z.rec.id, z.rec.name,
		            why.buf);
		goto out;
	}
	if (g->mem_gap == RIGHTSIZE_OK && asks_mem_per_gpu(cfg)) {
		ret = error("--resources-from sets slurm.mem, which sbatch refuses beside the "
		            "--mem-per-gpu of slurm.extra: remove one of them");
		goto out;
	}
	printf("resources from sweep %" PRId64 " '%s' (its peaks x %g, rounded up):\n", z.rec.id,
	       z.rec.name, policy.headroom);
	if (g->mem_gap == RIGHTSIZE_OK) {
		apply_mem(cfg, g);
	} else {
		rightsize_explain(&why, g, g->mem_gap);
		printf("  slurm.mem: unchanged: %s\n", why.buf);
	}
	apply_time(cfg, g);
	strbuf_reset(&why);
	rightsize_explain_bounds(&why, g, &policy, "; ");
	if (why.len)
		printf("  (%s)\n", why.buf);
	putchar('\n');
out:
	strbuf_release(&why);
	sizing_release(&z);
	return ret;
}

int cmd_rightsize(int argc, char **argv)
{
	struct rightsize_opts o = {0};
	struct sizing z;
	int ret, code;

	sizing_init(&z);
	code = parse_options(&o, argc, argv);
	if (code != CLI_CONTINUE)
		return code;
	ret = EXIT_ERROR;
	if (sizing_load(&z, cli_state_dir(o.state_dir), o.which, &o.policy) < 0)
		goto out;
	if (o.json)
		rightsize_print_json(stdout, &z.rs);
	else
		rightsize_print_table(stdout, &z.rs, o.tasks);
	ret = rightsize_complete(&z.rs) ? EXIT_OK : EXIT_INCOMPLETE;
out:
	sizing_release(&z);
	return ret;
}
