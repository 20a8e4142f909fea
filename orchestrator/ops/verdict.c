/*
 * Which tasks of a sweep passed: where its metrics are (the sweep file's
 * `results:` key, from the kept sweep file as loaded.h reads it: the
 * loaded sweep's when there is one), each task's result read from there,
 * and the gate.
 */
#include "verdict.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "loaded.h"
#include "outcome.h"
#include "placeholder.h"
#include "plan.h"
#include "sbopt.h"
#include "store.h"
#include "strbuf.h"
#include "taskdir.h"
#include "units.h"

#include "banned.h"

void verdict_init(struct verdict *v)
{
	memset(v, 0, sizeof(*v));
	kept_file_init(&v->own);
	gate_result_init(&v->gate);
	plan_init(&v->kept);
}

void verdict_release(struct verdict *v)
{
	kept_file_release(&v->own);
	free(v->workdir);
	result_log_spec_release(&v->log);
	if (v->all) {
		results_free(v->all, v->nall);
		free(v->results); /* shallow copies */
	} else {
		results_free(v->results, v->ntasks);
	}
	free(v->kept_outcomes);
	free(v->kept_from);
	free(v->runs);
	plan_release(&v->kept);
	gate_result_release(&v->gate);
	verdict_init(v);
}

static int remember_chdir(void *data, const char *name, const char *value)
{
	char **workdir = data;

	(void)name;
	if (value) {
		free(*workdir);
		*workdir = xstrdup(value);
	}
	return 0;
}

int verdict_workdir(char **out, const struct sweep_rec *rec, const char *what)
{
	static const struct sbopt_name chdir_name[] = {{"chdir", 'D'}};
	struct strbuf script = STRBUF_INIT;
	int ret = 0;

	*out = NULL;
	if (strbuf_read_file(&script, rec->script) < 0)
		ret = error("cannot read the script '%s': %s", rec->script, strerror(errno));
	else
		sbopt_read_script(script.buf, chdir_name, 1, remember_chdir, out);
	if (ret == 0 && !*out)
		ret = error("the script '%s' has no --chdir: cannot tell where '%s' is",
		            rec->script, what);
	strbuf_release(&script);
	return ret;
}

int verdict_log_spec(struct result_log_spec *out, const struct cfg_results *r)
{
	const char **names = xcalloc(r->nlog + 1, sizeof(*names));
	const char **patterns = xcalloc(r->nlog + 1, sizeof(*patterns));
	int ret;

	for (size_t k = 0; k < r->nlog; k++) {
		names[k] = r->log[k].name;
		patterns[k] = r->log[k].pattern;
	}
	ret = result_log_spec_init(out, names, patterns, r->nlog);
	free(names);
	free(patterns);
	return ret;
}

/* Where the results are, from the kept sweep file (kf: its cache). */
static int source_load(struct verdict *v, struct kept_file *kf, struct store *st,
                       const struct sweep_rec *rec)
{
	const struct cfg_results *r;
	int ret;

	/* A sweep recorded without its sweep file has sweep's own result files. */
	ret = kept_file_get(&v->cfg, kf, st, rec, LOADED_ERROR);
	if (ret < 0)
		return ret;
	r = &v->cfg->results;
	v->format = r->format == CFG_RESULTS_CSV     ? RESULT_CSV
	            : r->format == CFG_RESULTS_JSONL ? RESULT_JSONL
	                                             : RESULT_JSON;
	if (r->file && strcmp(r->file, CFG_SWEEP_RESULT) && r->file[0] != '/' &&
	    (ret = verdict_workdir(&v->workdir, rec, r->file)) < 0)
		return ret;
	return verdict_log_spec(&v->log, r);
}

/* Task i's results.file: its placeholders filled in, under the workdir when relative. */
static char *task_file(const struct verdict *v, const struct sweep_rec *rec,
                       const struct plan *plan, size_t i)
{
	struct strbuf sb = STRBUF_INIT;
	const char *file = v->cfg->results.file;
	struct placeholder_piece piece;
	size_t n;

	if (file[0] != '/')
		strbuf_addf(&sb, "%s/", v->workdir);
	for (const char *p = file; (n = placeholder_next(&piece, p)); p += n) {
		if (piece.kind == PLACEHOLDER_TEXT) {
			strbuf_add(&sb, piece.start, piece.len);
		} else if (piece.len == 4 && !strncmp(piece.start, "seed", 4)) {
			strbuf_addf(&sb, "%" PRId64, plan_seed_of(plan, i));
		} else if ((piece.len == 5 && !strncmp(piece.start, "index", 5)) ||
		           (piece.len == 4 && !strncmp(piece.start, "task", 4))) {
			strbuf_addf(&sb, "%zu", i);
		} else if (piece.len == 5 && !strncmp(piece.start, "sweep", 5)) {
			strbuf_addf(&sb, "%" PRId64, rec->id);
		} else {
			for (size_t k = 0; k < plan->nparams; k++)
				if (strlen(plan->params[k]) == piece.len &&
				    !strncmp(plan->params[k], piece.start, piece.len))
					strbuf_addstr(
					    &sb, plan_value(plan, plan_setting_of(plan, i), k));
		}
	}
	return strbuf_detach(&sb, NULL);
}

/*
 * A result in a task folder that others may write (or own), or in a group
 * folder they may, need not be the task's: it is refused, as the task
 * script refuses to run in that folder.
 */
static bool task_dir_refused(struct result *res, const struct sweep_rec *rec, size_t i,
                             struct taskdir_memo *memo)
{
	char *why = taskdir_private_problem(rec->dir, rec->task_layout, i, memo);

	if (!why)
		return false;
	result_release(res);
	res->status = RESULT_UNREADABLE;
	res->detail = why;
	return true;
}

/*
 * Reads task i's result: its file (or none), then the metrics of its log.
 * memo: the same for every task of rec (taskdir_private_problem).
 */
static void read_task_result(struct result *res, const struct verdict *v,
                             const struct sweep_rec *rec, const struct plan *plan, size_t i,
                             const struct task_outcome *o, struct taskdir_memo *memo)
{
	const struct cfg_results *r = &v->cfg->results;
	char *path = NULL, *log;

	if (cfg_results_in_sweep_result(r)) {
		path = result_path(rec->dir, rec->task_layout, i);
		if (!task_dir_refused(res, rec, i, memo))
			result_read(res, path);
	} else if (r->file) {
		path = task_file(v, rec, plan, i);
		result_read_format(res, path, v->format, v->step_key);
		res->file = xstrdup(path);
	} else {
		result_init_empty(res);
	}
	free(path);
	if (!r->nlog || res->status != RESULT_OK)
		return;
	log = outcome_log_path(rec->logs, rec->name, o->state, o->array_job_id, o->array_task_id);
	result_read_log(res, log, &v->log);
	if (res->warning)
		warning("task %zu: %s", i, res->warning);
	free(log);
}

/*
 * The tasks rec reused from earlier sweeps: their results are where the
 * sweep that ran them put them (its folder, its results: file, its logs).
 */
static int read_reused(struct verdict *v, struct store *st, const struct reused_rec *reused,
                       size_t n, const struct task_outcome *oc)
{
	int ret = 0;

	for (size_t k = 0; ret == 0 && k < n;) {
		int64_t from = reused[k].from_sweep;
		struct taskdir_memo memo = TASKDIR_MEMO_INIT;
		struct verdict origin;
		struct sweep_rec orec;
		struct plan oplan;
		char id[32];

		verdict_init(&origin);
		sweep_rec_init(&orec);
		plan_init(&oplan);
		snprintf(id, sizeof(id), "%" PRId64, from);
		ret = store_find_sweep(st, &orec, id);
		if (ret == 0)
			ret = store_load_plan(st, &oplan, from);
		if (ret == 0)
			ret = source_load(&origin, &origin.own, st, &orec);
		origin.step_key = v->step_key;
		for (; k < n && reused[k].from_sweep == from; k++) {
			size_t i = reused[k].index, fi = reused[k].from_index;

			if (ret < 0 || i >= v->ntasks || fi >= oplan.ntasks ||
			    !gate_passed(&oc[i], NULL))
				continue;
			result_release(&v->results[i]);
			result_init(&v->results[i]);
			read_task_result(&v->results[i], &origin, &orec, &oplan, fi, &oc[i], &memo);
		}
		verdict_release(&origin);
		sweep_rec_release(&orec);
		plan_release(&oplan);
	}
	return ret;
}

bool verdict_own_files(const struct verdict *v)
{
	return !v->cfg->results.given;
}

/*
 * Leaves the excluded settings out of what the gate sees: the plan of the
 * kept ones, their outcomes and results (shallow copies).
 */
static void keep_settings(struct verdict *v, const struct plan *plan,
                          const struct task_outcome **oc)
{
	unsigned char *keep = xcalloc(plan->nsettings + 1, 1);
	size_t *from = xcalloc(plan->nsettings + 1, sizeof(*from));
	size_t ns = plan->nseeds;

	v->kept_from = from;

	for (size_t s = 0; s < plan->nsettings; s++)
		keep[s] = !v->excluded[s];
	plan_subset(&v->kept, from, plan, keep);
	v->all = v->results;
	v->nall = v->ntasks;
	v->ntasks = v->kept.ntasks;
	v->results = xcalloc(v->ntasks + 1, sizeof(*v->results));
	v->kept_outcomes = xcalloc(v->ntasks + 1, sizeof(*v->kept_outcomes));
	for (size_t j = 0; j < v->ntasks; j++) {
		size_t i = from[j / ns] * ns + j % ns;

		v->results[j] = v->all[i];
		v->kept_outcomes[j] = (*oc)[i];
	}
	v->plan = &v->kept;
	*oc = v->kept_outcomes;
	free(keep);
}

/*
 * SWEEP_RESULT_MAX: the largest result file read, in sbatch's memory form
 * ("64M"), set before any result is read, so every command that asks
 * whether a task passed reads within the same limit.
 */
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

void verdict_reads_release(struct verdict_reads *r)
{
	results_free(r->results, r->n);
	free(r->runs);
	memset(r, 0, sizeof(*r));
}

void verdict_keep_reads(struct verdict_reads *keep, struct verdict *v)
{
	if (v->all || !v->runs)
		return;
	verdict_reads_release(keep);
	keep->results = v->results;
	keep->runs = v->runs;
	keep->n = v->ntasks;
	v->results = xcalloc(v->ntasks ? v->ntasks : 1, sizeof(*v->results));
	for (size_t i = 0; i < v->ntasks; i++)
		result_init(&v->results[i]);
	v->runs = NULL;
}

/* Task i's result from v->prior, when it was read for the same run o: true. */
static bool take_prior(struct verdict *v, size_t i, const struct task_outcome *o)
{
	struct verdict_reads *p = v->prior;
	const struct verdict_run *r;

	if (!p || i >= p->n || !p->runs[i].read)
		return false;
	r = &p->runs[i];
	if (r->array_job_id != o->array_job_id || r->array_task_id != o->array_task_id ||
	    r->job_id != o->job_id || r->end_time != o->end_time)
		return false;
	v->results[i] = p->results[i];
	result_init(&p->results[i]);
	p->runs[i].read = false;
	return true;
}

/* verdict_check with the kept sweep file's cache kf and the sweep's reused tasks. */
static int check(struct verdict *v, struct kept_file *kf, const struct reused_rec *reused,
                 size_t nreused, struct store *st, const struct sweep_rec *rec,
                 const struct plan *plan, const struct task_outcome *oc, const char *const *metrics,
                 size_t nmetrics)
{
	struct taskdir_memo memo = TASKDIR_MEMO_INIT;
	int ret = set_result_limit();

	if (ret == 0)
		ret = source_load(v, kf, st, rec);
	if (ret < 0)
		return ret;
	v->plan = plan;
	v->ntasks = plan->ntasks;
	v->results = xcalloc(plan->ntasks ? plan->ntasks : 1, sizeof(*v->results));
	v->runs = xcalloc(plan->ntasks ? plan->ntasks : 1, sizeof(*v->runs));
	for (size_t i = 0; i < plan->ntasks; i++) {
		result_init(&v->results[i]);
		/* The others' results are not looked at. */
		if (!gate_passed(&oc[i], NULL))
			continue;
		v->runs[i] = (struct verdict_run){true, oc[i].array_job_id, oc[i].array_task_id,
		                                  oc[i].job_id, oc[i].end_time};
		if (!take_prior(v, i, &oc[i]))
			read_task_result(&v->results[i], v, rec, plan, i, &oc[i], &memo);
	}
	ret = read_reused(v, st, reused, nreused, oc);
	if (ret < 0)
		return ret;
	if (v->excluded && memchr(v->excluded, 1, plan->nsettings))
		keep_settings(v, plan, &oc);
	gate_check(&v->gate, v->plan, oc, v->results, metrics, nmetrics);
	/* The failures name the sweep's own task indices. */
	for (size_t k = 0; v->kept_from && k < v->gate.nfailures; k++) {
		size_t j = v->gate.failures[k].index, ns = plan->nseeds;

		v->gate.failures[k].index = v->kept_from[j / ns] * ns + j % ns;
	}
	return 0;
}

int verdict_check(struct verdict *v, struct store *st, const struct sweep_rec *rec,
                  const struct plan *plan, const struct task_outcome *oc,
                  const char *const *metrics, size_t nmetrics)
{
	struct reused_rec *reused = NULL;
	size_t n = 0;
	int ret = store_load_reused(st, &reused, &n, rec->id);

	if (ret == 0)
		ret = check(v, &v->own, reused, n, st, rec, plan, oc, metrics, nmetrics);
	free(reused);
	return ret;
}

int verdict_check_outcomes(struct verdict *v, struct loaded_sweep *l, const struct task_outcome *oc,
                           const char *const *metrics, size_t nmetrics)
{
	const struct reused_rec *reused;
	size_t n;
	int ret = loaded_reused(&reused, &n, l);

	if (ret == 0)
		ret =
		    check(v, &l->file, reused, n, l->st, &l->rec, &l->plan, oc, metrics, nmetrics);
	return ret;
}

int verdict_check_loaded(struct verdict *v, struct loaded_sweep *l, const char *const *metrics,
                         size_t nmetrics)
{
	return verdict_check_outcomes(v, l, l->outcomes, metrics, nmetrics);
}

void verdict_goals(struct compare_goals *out, const struct verdict *v,
                   const struct compare_goals *cli)
{
	const struct cfg *cfg = v->cfg;

	for (size_t i = 0; i < cfg->nmetrics; i++)
		if (cfg->metrics[i].has_goal)
			compare_goals_set(out, cfg->metrics[i].name,
			                  cfg->metrics[i].maximize ? GOAL_MAX : GOAL_MIN);
	for (size_t i = 0; i < cli->n; i++)
		compare_goals_set(out, cli->items[i].name, cli->items[i].goal);
}
