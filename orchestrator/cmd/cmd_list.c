/*
 * sweep list: the sweeps of the state store, each with where it stands:
 * its outcomes and the verdict report gives (gate_passed, the one pass
 * test, and the same result size limit), so list and report agree.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "array.h"
#include "backend.h"
#include "cli.h"
#include "error.h"
#include "outcome.h"
#include "result.h"
#include "store.h"
#include "strbuf.h"
#include "table.h"
#include "verdict.h"

#include "banned.h"

static const struct cli_option option_table[] = {
    CLI_OPT_STATE_DIR,
    CLI_OPT_HELP,
    {0, "names", 'N', NULL, NULL},
    {0, "metrics", 'M', "VALUE", NULL},
    CLI_OPT_END,
};

static struct cli_command command = {
    .usage = "sweep list [--state-dir DIR]",
    .options = option_table,
    .column = 21,
};

/*
 * For shell completion, two hidden options that print one word a line:
 * --names, the sweeps' names (most recent first, each once) then their ids;
 * --metrics SWEEP ("" for the most recent), the metric names found in the
 * first few result files of that sweep. Both are one store query;
 * --metrics reads at most METRICS_MAX_FILES result files among the first
 * METRICS_MAX_TASKS tasks.
 */
#define METRICS_MAX_FILES 16
#define METRICS_MAX_TASKS 1000

/* By name, then the most recent first. */
static int compare_name_id(const void *a, const void *b)
{
	const struct sweep_rec *x = *(const struct sweep_rec *const *)a;
	const struct sweep_rec *y = *(const struct sweep_rec *const *)b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->id < y->id ? 1 : x->id > y->id ? -1 : 0;
}

/* The most recent first. */
static int compare_id_desc(const void *a, const void *b)
{
	const struct sweep_rec *x = *(const struct sweep_rec *const *)a;
	const struct sweep_rec *y = *(const struct sweep_rec *const *)b;

	return x->id < y->id ? 1 : x->id > y->id ? -1 : 0;
}

static int print_names(struct store *st)
{
	struct sweep_rec *recs = NULL;
	const struct sweep_rec **by = NULL;
	size_t n = 0, nnames = 0;

	if (store_list_sweeps(st, &recs, &n) < 0)
		return EXIT_ERROR;
	by = xcalloc(n ? n : 1, sizeof(*by));
	for (size_t i = 0; i < n; i++)
		by[i] = &recs[i];
	/* Each name once, where its most recent sweep stands. */
	qsort(by, n, sizeof(*by), compare_name_id);
	for (size_t i = 0; i < n; i++)
		if (!i || strcmp(by[i]->name, by[nnames - 1]->name))
			by[nnames++] = by[i];
	qsort(by, nnames, sizeof(*by), compare_id_desc);
	for (size_t i = 0; i < nnames; i++)
		printf("%s\n", by[i]->name);
	for (size_t i = n; i-- > 0;)
		printf("%" PRId64 "\n", recs[i].id);
	free(by);
	sweep_recs_free(recs, n);
	return EXIT_OK;
}

static int compare_strings(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int print_metrics(struct store *st, const char *which)
{
	struct sweep_rec rec;
	char **names = NULL;
	size_t n = 0, alloc = 0, files = 0;

	sweep_rec_init(&rec);
	if (store_find_sweep(st, &rec, *which ? which : NULL) < 0)
		return EXIT_ERROR;
	for (size_t i = 0; i < rec.ntasks && i < METRICS_MAX_TASKS && files < METRICS_MAX_FILES;
	     i++) {
		char *path = result_path(rec.dir, rec.task_layout, i);
		struct result res;

		result_init(&res);
		result_read(&res, path);
		free(path);
		files += res.status == RESULT_OK;
		for (size_t k = 0; k < res.nentries; k++) {
			if (res.entries[k].kind == RESULT_OTHER)
				continue;
			ALLOC_GROW(names, n + 1, alloc);
			names[n++] = xstrdup(res.entries[k].key);
		}
		result_release(&res);
	}
	qsort(names, n, sizeof(*names), compare_strings);
	for (size_t i = 0; i < n; i++)
		if (!i || strcmp(names[i], names[i - 1]))
			printf("%s\n", names[i]);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	sweep_rec_release(&rec);
	return EXIT_OK;
}

/*
 * Where a submitted sweep stands, from its tasks' outcomes (kept records:
 * no query once every array job finished; else one query, as status) and
 * the verdict report gives: "running (3 of 20 ended)", "cancelled (5 of
 * 20 completed)", "complete", "incomplete (2 failed)" or "incomplete (3
 * completed, no metric)" (gate_failures_text, as resubmit says). A sweep whose
 * records cannot be read says so ("unknown: ...") and the others still show.
 */
static char *standing(struct store *st, const struct sweep_rec *rec)
{
	struct task_outcome *oc = xcalloc(rec->ntasks ? rec->ntasks : 1, sizeof(*oc));
	struct array_rec *arrays = NULL;
	struct acct_set set;
	struct backend_read rd = {0}; /* states only */
	struct plan plan;
	struct verdict v;
	size_t narrays = 0, ended = 0, cancelled = 0, completed = 0;
	bool waiting = false;
	char *out = NULL;

	acct_set_init(&set);
	plan_init(&plan);
	verdict_init(&v);
	if (store_load_plan(st, &plan, rec->id) < 0 ||
	    backend_load_outcomes(oc, &set, &arrays, &narrays, &rd, st, rec) < 0) {
		out = xstrfmt("unknown: %s", error_last());
		goto out;
	}
	backend_read_debug(&rd);
	for (size_t i = 0; i < rec->ntasks; i++) {
		ended += task_state_is_final(oc[i].state);
		cancelled += oc[i].state == TS_CANCELLED;
		completed += gate_passed(&oc[i], NULL);
		/* No record yet of a task of an array job still read from slurmdbd: on its way. */
		waiting |= !task_state_is_final(oc[i].state) &&
		           (oc[i].state != TS_MISSING || rd.kept < narrays);
	}
	if (waiting)
		out = xstrfmt("running (%zu of %zu ended)", ended, rec->ntasks);
	else if (cancelled)
		out = xstrfmt("cancelled (%zu of %zu completed)", completed, rec->ntasks);
	else if (verdict_check(&v, st, rec, &plan, oc, NULL, 0) < 0)
		out = xstrfmt("unknown: %s", error_last());
	else if (gate_complete(&v.gate))
		out = xstrdup("complete");
	else {
		char *failures = gate_failures_text(&v.gate);

		out = xstrfmt("incomplete (%s)", failures);
		free(failures);
	}
out:
	verdict_release(&v);
	plan_release(&plan);
	array_recs_free(arrays, narrays);
	acct_set_release(&set);
	free(oc);
	return out;
}

static int print_table(struct store *st)
{
	static const char *const head[] = {"ID", "NAME", "STATUS", "TASKS", "CREATED", "SOURCE"};
	struct table t;
	struct sweep_rec *recs = NULL;
	size_t n = 0;

	if (store_list_sweeps(st, &recs, &n) < 0)
		return EXIT_ERROR;
	table_init_head(&t, head, sizeof(head) / sizeof(head[0]));
	table_align_right(&t, 3);
	for (size_t i = 0; i < n; i++) {
		char when[32];
		time_t created = (time_t)recs[i].created_at;
		struct tm tm;

		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime_r(&created, &tm));
		table_add(&t, xstrfmt("%" PRId64, recs[i].id));
		table_addstr(&t, recs[i].name);
		if (recs[i].status == SWEEP_SUBMITTED)
			table_add(&t, standing(st, &recs[i]));
		else
			table_addstr(&t, sweep_status_name(recs[i].status));
		table_add(&t, xstrfmt("%zu", recs[i].ntasks));
		table_addstr(&t, when);
		table_addstr(&t, recs[i].source);
	}
	table_print(stdout, &t);
	table_release(&t);
	if (!n)
		printf("(no sweeps yet)\n");
	sweep_recs_free(recs, n);
	return EXIT_OK;
}

int cmd_list(int argc, char **argv)
{
	const char *state_opt = NULL, *metrics = NULL;
	struct store *st = NULL;
	int opt, code, names = 0;

	cli_command_prepare(&command);
	while ((opt = getopt_long(argc, argv, command.shortopts, command.longopts, NULL)) != -1) {
		switch (opt) {
		case 'N':
			names = 1;
			break;
		case 'M':
			metrics = optarg;
			break;
		default:
			code = cli_common_option(opt, &state_opt, argv, command.longopts,
			                         command.usage, command.help);
			if (code != CLI_CONTINUE)
				return code;
		}
	}
	code = cli_no_operands(argc, argv, command.usage, command.help);
	if (code != CLI_CONTINUE)
		return code;
	if (store_open(&st, cli_state_dir(state_opt), 0) < 0)
		return EXIT_ERROR;
	if (metrics)
		code = print_metrics(st, metrics);
	else if (names)
		code = print_names(st);
	else
		code = print_table(st);
	store_close(st);
	return code;
}
