#include "gate.h"

#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "outcome.h"
#include "result.h"
#include "strbuf.h"

#include "banned.h"

void gate_result_init(struct gate_result *g)
{
	memset(g, 0, sizeof(*g));
}

void gate_result_release(struct gate_result *g)
{
	for (size_t i = 0; i < g->nmetrics; i++)
		free(g->metrics[i]);
	free(g->metrics);
	for (size_t i = 0; i < g->nfailures; i++)
		free(g->failures[i].reason);
	free(g->failures);
	free(g->passed);
	free(g->npassed);
	gate_result_init(g);
}

bool gate_passed(const struct task_outcome *o, const struct result *res)
{
	/* Slurm calls a non-zero exit FAILED; be safe if a runner does not. */
	if (o->state != TS_COMPLETED || o->exit_code || o->signal)
		return false;
	/* A result over the size limit is RESULT_TOO_LARGE: not read. */
	return !res || res->status == RESULT_OK;
}

bool gate_failure_of_result(const struct gate_failure *f)
{
	struct task_outcome o = {.state = f->state, .exit_code = f->exit_code, .signal = f->signal};

	return gate_passed(&o, NULL);
}

bool gate_run_failed(struct strbuf *why, const struct task_outcome *o)
{
	if (gate_passed(o, NULL))
		return false;
	switch (o->state) {
	case TS_COMPLETED:
		if (o->signal)
			strbuf_addf(why, "killed by signal %d", o->signal);
		else
			strbuf_addf(why, "exit code %d", o->exit_code);
		return true;
	case TS_FAILED:
		/*
		 * Without cgroups, OverMemoryKill ends a task FAILED with signal
		 * 9 (exit 0:9); only the cgroup plugin gives OUT_OF_MEMORY.
		 */
		if (outcome_out_of_memory(o))
			strbuf_addstr(why, "out of memory");
		else if (o->signal)
			strbuf_addf(why, "killed by signal %d", o->signal);
		else if (o->exit_code)
			strbuf_addf(why, "exit code %d", o->exit_code);
		else
			strbuf_addstr(why, "failed without an exit code");
		return true;
	case TS_OUT_OF_MEMORY:
		strbuf_addstr(why, "out of memory");
		return true;
	case TS_TIMEOUT:
		strbuf_addstr(why, o->by_warning_signal ? "time limit (ended by the warning signal)"
		                                        : "time limit");
		return true;
	case TS_NODE_FAIL:
		strbuf_addstr(why, "node failure");
		return true;
	case TS_PREEMPTED:
		strbuf_addstr(why, "preempted");
		return true;
	case TS_CANCELLED:
		strbuf_addstr(why, "cancelled");
		return true;
	case TS_BOOT_FAIL:
		strbuf_addstr(why, "node failed to boot");
		return true;
	case TS_DEADLINE:
		strbuf_addstr(why, "deadline reached");
		return true;
	case TS_PENDING:
		strbuf_addstr(why, "still pending");
		return true;
	case TS_HELD:
		strbuf_addstr(why, "held");
		if (o->pending_reason)
			strbuf_addf(why, " (%s)", o->pending_reason);
		return true;
	case TS_RUNNING:
		strbuf_addstr(why, "still running");
		return true;
	case TS_SUSPENDED:
		strbuf_addstr(why, "suspended");
		return true;
	case TS_REQUEUED:
		strbuf_addstr(why, "requeued, waiting to run again");
		return true;
	case TS_MISSING:
		strbuf_addstr(why, "missing (no record in Slurm)");
		return true;
	case TS_NSTATES:
		break;
	}
	strbuf_addf(why, "unknown state %d", (int)o->state);
	return true;
}

static void add_metric(struct gate_result *g, size_t *alloc, const char *name)
{
	ALLOC_GROW(g->metrics, g->nmetrics + 1, *alloc);
	g->metrics[g->nmetrics++] = xstrdup(name);
}

static void requested_metrics(struct gate_result *g, const char *const *metrics, size_t n)
{
	size_t alloc = 0;

	for (size_t i = 0; i < n; i++) {
		size_t j;

		for (j = 0; j < g->nmetrics && strcmp(g->metrics[j], metrics[i]); j++)
			;
		if (j == g->nmetrics)
			add_metric(g, &alloc, metrics[i]);
	}
}

/*
 * The union of numeric keys. Each result is sorted already, and new names
 * are rare after the first few tasks, so a sorted array with insertion
 * costs a binary search per key and no more.
 */
static void discover_metrics(struct gate_result *g, const struct task_outcome *outcomes,
                             const struct result *results, size_t ntasks)
{
	size_t alloc = 0;

	for (size_t i = 0; i < ntasks; i++) {
		const struct result *res = &results[i];

		if (!gate_passed(&outcomes[i], res))
			continue;
		for (size_t k = 0; k < res->nentries; k++) {
			const char *key = res->entries[k].key;
			size_t lo = 0, hi = g->nmetrics;

			/* A metric the log was searched for counts even without a value. */
			if (res->entries[k].kind == RESULT_OTHER && !res->entries[k].from_log)
				continue;
			if (res->entries[k].step) /* a series' x axis */
				continue;
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;
				int cmp = strcmp(g->metrics[mid], key);

				if (!cmp)
					break;
				if (cmp < 0)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo < hi)
				continue;
			ALLOC_GROW(g->metrics, g->nmetrics + 1, alloc);
			memmove(g->metrics + lo + 1, g->metrics + lo,
			        (g->nmetrics - lo) * sizeof(*g->metrics));
			g->metrics[lo] = xstrdup(key);
			g->nmetrics++;
		}
	}
}

/* Appends why the result of a task that passed lacks a metric; false if it has them all. */
static bool metrics_failed(struct strbuf *why, const struct result *res, char *const *metrics,
                           size_t nmetrics)
{
	for (size_t m = 0; m < nmetrics; m++) {
		const struct result_entry *e = result_find(res, metrics[m]);

		if (e && e->kind == RESULT_NUMBER)
			continue;
		if (why->len)
			strbuf_addstr(why, "; ");
		if (e && e->why)
			strbuf_addstr(why, e->why);
		else if (!e)
			strbuf_addf(why, "metric '%s' absent", metrics[m]);
		else if (e->kind == RESULT_NONFINITE)
			strbuf_addf(why, "metric '%s' is %s, not a finite number", metrics[m],
			            e->what);
		else
			strbuf_addf(why, "metric '%s' is %s, not a number", metrics[m], e->what);
	}
	return why->len > 0;
}

void gate_check(struct gate_result *out, const struct plan *plan,
                const struct task_outcome *outcomes, const struct result *results,
                const char *const *metrics, size_t nmetrics)
{
	struct strbuf why = STRBUF_INIT;

	gate_result_release(out);
	out->ntasks = plan->ntasks;
	out->nsettings = plan->nsettings;
	out->nseeds = plan->nseeds;
	out->passed = xcalloc(plan->ntasks, 1);
	out->npassed = xcalloc(plan->nsettings, sizeof(*out->npassed));
	if (nmetrics)
		requested_metrics(out, metrics, nmetrics);
	else
		discover_metrics(out, outcomes, results, plan->ntasks);

	for (size_t i = 0; i < plan->ntasks; i++) {
		const struct task_outcome *o = &outcomes[i];
		struct gate_failure *f;
		bool failed = true;

		strbuf_reset(&why);
		if (gate_passed(o, &results[i]))
			failed = metrics_failed(&why, &results[i], out->metrics, out->nmetrics);
		else if (!gate_run_failed(&why, o))
			result_describe(&why, &results[i]); /* the run passed: its result did not */
		if (!failed) {
			out->passed[i] = 1;
			out->npassed[plan_setting_of(plan, i)]++;
			continue;
		}
		ALLOC_GROW(out->failures, out->nfailures + 1, out->alloc);
		f = &out->failures[out->nfailures++];
		f->index = i;
		f->setting = plan_setting_of(plan, i);
		f->seed = plan_seed_of(plan, i);
		f->state = o->state;
		f->exit_code = o->exit_code;
		f->signal = o->signal;
		f->array_job_id = o->array_job_id;
		f->array_task_id = o->array_task_id;
		f->reason = xstrdup(why.buf);
	}
	strbuf_release(&why);
}

char *gate_failures_text(const struct gate_result *g)
{
	size_t no_metric = 0;

	for (size_t i = 0; i < g->nfailures; i++)
		no_metric += gate_failure_of_result(&g->failures[i]);
	if (!no_metric)
		return xstrfmt("%zu failed", g->nfailures);
	if (no_metric == g->nfailures)
		return xstrfmt("%zu completed, no metric", no_metric);
	return xstrfmt("%zu failed, %zu completed, no metric", g->nfailures - no_metric, no_metric);
}
