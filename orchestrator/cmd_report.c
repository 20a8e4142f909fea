/*
 * sweep report: store (what was asked) + accounting (what Slurm did, one
 * query) -> one outcome per task -> result files -> the gate -> statistics
 * -> a printer. The statistics are printed only when every task passed the
 * gate, or with --allow-incomplete, and then with the gaps marked.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct.h"
#include "backend.h"
#include "cli.h"
#include "error.h"
#include "loaded.h"
#include "gate.h"
#include "plan.h"
#include "outcome.h"
#include "report.h"
#include "result.h"
#include "store.h"
#include "strbuf.h"
#include "units.h"

#include "banned.h"

static const char usage[] = "sweep report [options] [SWEEP]";
static const char options[] =
    "SWEEP is a sweep's name or id (default: the most recent sweep).\n"
    "\n"
    "options:\n"
    "  --metric NAME        report this metric (repeatable; default: every numeric key\n"
    "                       found in the result files)\n"
    "  --json               print JSON\n"
    "  --csv                print CSV\n"
    "  --allow-incomplete   print statistics over the tasks that passed, marking the\n"
    "                       settings that miss some and listing the excluded tasks\n"
    "  --state-dir DIR      the state folder (default $SWEEP_STATE_DIR or .sweep)\n"
    "  -h, --help           show this help\n"
    "\n"
    "exit status: 0 every task passed, 3 some task is missing or failed (the list is\n"
    "printed), 1 error, 2 usage.\n";

enum format {
	FORMAT_TABLE,
	FORMAT_JSON,
	FORMAT_CSV,
};

struct report_opts {
	const char *state_dir;
	const char *which;
	const char **metrics;
	size_t nmetrics;
	size_t alloc;
	enum format format;
	bool allow_incomplete;
};

/* Returns CLI_CONTINUE to go on, or the exit code the command ends with. */
static int parse_options(struct report_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"metric", required_argument, NULL, 'm'},
	    {"json", no_argument, NULL, 'j'},
	    {"csv", no_argument, NULL, 'c'},
	    {"allow-incomplete", no_argument, NULL, 'a'},
	    {"state-dir", required_argument, NULL, 's'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	bool json = false, csv = false;
	int opt, code;

	cli_getopt_start();
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'm':
			if (!*optarg) {
				error("--metric needs a name");
				return cli_usage(stderr, usage, options);
			}
			ALLOC_GROW(o->metrics, o->nmetrics + 1, o->alloc);
			o->metrics[o->nmetrics++] = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'c':
			csv = true;
			break;
		case 'a':
			o->allow_incomplete = true;
			break;
		default:
			code =
			    cli_common_option(opt, &o->state_dir, argv, longopts, usage, options);
			if (code != CLI_CONTINUE)
				return code;
		}
	}
	if (json && csv) {
		error("--json and --csv cannot be used together");
		return cli_usage(stderr, usage, options);
	}
	o->format = json ? FORMAT_JSON : csv ? FORMAT_CSV : FORMAT_TABLE;
	return cli_take_sweep(&o->which, argc, argv, usage, options);
}

/* Reads the result of every task whose run passed; the others' are not looked at. */
static struct result *read_results(const struct sweep_rec *rec, const struct task_outcome *oc,
                                   size_t ntasks)
{
	struct result *results = xcalloc(ntasks ? ntasks : 1, sizeof(*results));

	for (size_t i = 0; i < ntasks; i++) {
		char *path;

		result_init(&results[i]);
		if (oc[i].state != TS_COMPLETED || oc[i].exit_code || oc[i].signal)
			continue;
		path = result_path(rec->dir, i);
		result_read(&results[i], path);
		free(path);
	}
	return results;
}

/*
 * A metric that no result holds is most likely a typing mistake: say so,
 * with the metrics there are, rather than only listing every task as failed.
 */
static void check_metric_names(const struct gate_result *gate, const struct result *results,
                               size_t ntasks)
{
	const struct result *sample = NULL;

	for (size_t m = 0; m < gate->nmetrics; m++) {
		struct strbuf have = STRBUF_INIT;
		bool found = false;

		for (size_t i = 0; i < ntasks && !found; i++) {
			if (results[i].status != RESULT_OK)
				continue;
			if (!sample)
				sample = &results[i];
			found = result_find(&results[i], gate->metrics[m]) != NULL;
		}
		if (found || !sample)
			continue;
		for (size_t k = 0; k < sample->nentries; k++) {
			if (sample->entries[k].kind == RESULT_OTHER)
				continue;
			strbuf_addf(&have, "%s%s", have.len ? ", " : "", sample->entries[k].key);
		}
		warning("no result file has a metric '%s'; task %zu's has: %s", gate->metrics[m],
		        (size_t)(sample - results), have.len ? have.buf : "no numbers");
		strbuf_release(&have);
	}
}

/* SWEEP_RESULT_MAX: the largest result file read, in sbatch's memory form ("64M"). */
static int set_result_limit(void)
{
	const char *env = getenv("SWEEP_RESULT_MAX"), *why;
	uint64_t mb;

	if (!env || !*env)
		return 0;
	if (units_parse_mem(&mb, env, &why) < 0 || mb > SIZE_MAX >> 20)
		return error("SWEEP_RESULT_MAX='%s' is not a size such as '64M': %s", env,
		             why ? why : "too large");
	result_set_max_bytes((size_t)mb << 20);
	return 0;
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o = {0};
	struct loaded_sweep l;
	struct result *results = NULL;
	struct gate_result gate;
	struct report rep;
	int ret = EXIT_ERROR, code;

	loaded_init(&l);
	gate_result_init(&gate);
	report_init(&rep);

	code = parse_options(&o, argc, argv);
	if (code != CLI_CONTINUE) {
		ret = code;
		goto out;
	}
	if (set_result_limit() < 0)
		goto out;
	if (loaded_open(&l, cli_state_dir(o.state_dir), o.which) < 0 || loaded_plan(&l) < 0)
		goto out;
	if (l.rec.status != SWEEP_SUBMITTED)
		warning("sweep '%s' was not fully submitted (%s%s%s); tasks never submitted "
		        "show as missing",
		        l.rec.name, sweep_status_name(l.rec.status), l.rec.error ? ": " : "",
		        l.rec.error ? l.rec.error : "");
	if (loaded_outcomes(&l) < 0)
		goto out;
	results = read_results(&l.rec, l.outcomes, l.plan.ntasks);

	gate_check(&gate, &l.plan, l.outcomes, results, o.metrics, o.nmetrics);
	if (o.nmetrics)
		check_metric_names(&gate, results, l.plan.ntasks);
	report_build(&rep, &l.plan, &gate, results);
	rep.name = l.rec.name;
	rep.id = l.rec.id;
	rep.logs = l.rec.logs;
	rep.dir = l.rec.dir;
	rep.allow_incomplete = o.allow_incomplete;
	switch (o.format) {
	case FORMAT_TABLE:
		report_print_table(stdout, &rep);
		break;
	case FORMAT_JSON:
		report_print_json(stdout, &rep);
		break;
	case FORMAT_CSV:
		report_print_csv(stdout, &rep);
		break;
	}

	ret = EXIT_OK;
	if (!gate_complete(&gate)) {
		ret = EXIT_INCOMPLETE;
		if (o.allow_incomplete)
			warning("%zu of %zu tasks missing or failed; the statistics exclude them",
			        gate.nfailures, gate.ntasks);
		else
			warning("%zu of %zu tasks missing or failed; no statistics until every "
			        "task passed (--allow-incomplete reports what exists)",
			        gate.nfailures, gate.ntasks);
	}
out:
	report_release(&rep);
	gate_result_release(&gate);
	results_free(results, l.plan.ntasks);
	loaded_release(&l);
	free(o.metrics);
	return ret;
}
