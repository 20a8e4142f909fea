/*
 * The resubmission plan. The tasks to run again are sorted by the request
 * they get and their chunk, so each sbatch submission is one run of that
 * order; task ids ascend within it, which keeps --array values short.
 */
#include "resubmit.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "gate.h"
#include "outcome.h"
#include "rightsize.h"
#include "strbuf.h"
#include "units.h"

#include "banned.h"

void resubmit_plan_init(struct resubmit_plan *plan)
{
	memset(plan, 0, sizeof(*plan));
}

void resubmit_plan_release(struct resubmit_plan *plan)
{
	for (size_t i = 0; i < plan->narrays; i++) {
		free(plan->arrays[i].tasks);
		free(plan->arrays[i].spec);
		free(plan->arrays[i].indices);
	}
	free(plan->arrays);
	free(plan->tasks);
	resubmit_plan_init(plan);
}

bool resubmit_active(const struct task_outcome *o)
{
	switch (o->state) {
	case TS_PENDING:
	case TS_HELD:
	case TS_RUNNING:
	case TS_SUSPENDED:
	case TS_REQUEUED:
		return true;
	default:
		return false;
	}
}

bool resubmit_wanted(const struct task_outcome *o)
{
	switch (o->state) {
	case TS_MISSING:
	case TS_FAILED:
	case TS_TIMEOUT:
	case TS_OUT_OF_MEMORY:
	case TS_CANCELLED:
	case TS_NODE_FAIL:
	case TS_PREEMPTED:
	case TS_BOOT_FAIL:
	case TS_DEADLINE:
		return true;
	case TS_COMPLETED:
		/* Slurm calls a non-zero exit FAILED; another runner might not. */
		return o->exit_code != 0 || o->signal != 0;
	default:
		return false;
	}
}

/*
 * The request a task keeps: its latest run's, when that is more than the
 * script's (an earlier resubmission raised it) or when the script's is
 * unknown and the task was resubmitted before; else the script's (0).
 */
static uint64_t kept(uint64_t latest, uint64_t script, unsigned attempts)
{
	if (!latest)
		return 0;
	if (script)
		return latest > script ? latest : 0;
	return attempts > 1 ? latest : 0;
}

static void request(struct resubmit_task *t, const struct task_outcome *o,
                    const struct resubmit_policy *p)
{
	uint64_t had;
	uint64_t limit_min =
	    o->timelimit_s == ACCT_NO_VALUE ? 0 : rightsize_clean_time_min(o->timelimit_s);
	uint64_t req_mem = o->req_mem_mb == UINT64_MAX ? 0 : o->req_mem_mb;

	had = rightsize_out_of_memory(o) ? rightsize_mem_bound_mb(o) : 0;
	if (had) {
		t->mem_raised = true;
		t->mem_mb = rightsize_clean_mem_mb(rightsize_raise(had, p->mem_factor));
	} else {
		t->mem_mb = kept(req_mem, p->script_mem_mb, o->attempts);
	}
	had = rightsize_out_of_time(o) ? rightsize_time_bound_s(o) : 0;
	if (had) {
		t->time_raised = true;
		t->time_min = rightsize_clean_time_min(rightsize_raise(had, p->time_factor));
	} else {
		t->time_min = kept(limit_min, p->script_time_min, o->attempts);
	}
}

/* One selected task as the grouping sees it. */
struct slot {
	uint64_t mem_mb, time_min;
	uint32_t offset, task;
};

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int cmp_slot(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;
	int c;

	if ((c = cmp_u64(x->mem_mb, y->mem_mb)) || (c = cmp_u64(x->time_min, y->time_min)) ||
	    (c = cmp_u64(x->offset, y->offset)))
		return c;
	return cmp_u64(x->task, y->task);
}

static bool same_array(const struct slot *a, const struct slot *b)
{
	return a->mem_mb == b->mem_mb && a->time_min == b->time_min && a->offset == b->offset;
}

static void group(struct resubmit_plan *out, struct slot *slots, size_t n, unsigned throttle)
{
	size_t alloc = 0;

	qsort(slots, n, sizeof(*slots), cmp_slot);
	for (size_t i = 0; i < n;) {
		struct resubmit_array *arr;
		struct strbuf spec = STRBUF_INIT;
		size_t j = i;

		while (j < n && same_array(&slots[i], &slots[j]))
			j++;
		ALLOC_GROW(out->arrays, out->narrays + 1, alloc);
		arr = &out->arrays[out->narrays++];
		memset(arr, 0, sizeof(*arr));
		arr->mem_mb = slots[i].mem_mb;
		arr->time_min = slots[i].time_min;
		arr->offset = slots[i].offset;
		arr->ntasks = j - i;
		arr->tasks = xcalloc(arr->ntasks, sizeof(*arr->tasks));
		for (size_t k = i; k < j; k++)
			arr->tasks[k - i] = slots[k].task;
		array_spec_of_ids(&spec, arr->tasks, arr->ntasks, throttle);
		arr->spec = strbuf_detach(&spec, NULL);
		i = j;
	}
}

/* Packed: slots hold sweep indices (in task) by overrides; pack of them per array task. */
static void group_packed(struct resubmit_plan *out, struct slot *slots, size_t n,
                         const struct resubmit_policy *p)
{
	uint64_t per_array = (uint64_t)(p->max_array ? p->max_array : UINT32_MAX) * p->pack;
	size_t alloc = 0;

	qsort(slots, n, sizeof(*slots), cmp_slot);
	for (size_t i = 0; i < n;) {
		struct resubmit_array *arr;
		struct strbuf list = STRBUF_INIT, spec = STRBUF_INIT;
		size_t j = i;

		while (j < n && j - i < per_array && slots[j].mem_mb == slots[i].mem_mb &&
		       slots[j].time_min == slots[i].time_min)
			j++;
		ALLOC_GROW(out->arrays, out->narrays + 1, alloc);
		arr = &out->arrays[out->narrays++];
		memset(arr, 0, sizeof(*arr));
		arr->mem_mb = slots[i].mem_mb;
		arr->time_min = slots[i].time_min;
		arr->ntasks = (j - i + p->pack - 1) / p->pack;
		arr->tasks = xcalloc(arr->ntasks, sizeof(*arr->tasks));
		for (size_t k = 0; k < arr->ntasks; k++)
			arr->tasks[k] = (uint32_t)k;
		for (size_t k = i; k < j; k++)
			strbuf_addf(&list, "%s%" PRIu32, k > i ? "," : "", slots[k].task);
		array_spec_of_ids(&spec, arr->tasks, arr->ntasks, p->throttle);
		arr->spec = strbuf_detach(&spec, NULL);
		arr->indices = strbuf_detach(&list, NULL);
		i = j;
	}
}

int resubmit_plan_build(struct resubmit_plan *out, const struct task_outcome *outcomes,
                        size_t ntasks, const struct resubmit_policy *p, const char **why)
{
	size_t alloc = 0;
	struct slot *slots;

	if (ntasks > (size_t)UINT32_MAX + 1) {
		*why = "the sweep has more tasks than Slurm can index";
		return -1;
	}
	for (size_t i = 0; i < ntasks; i++) {
		const struct task_outcome *o = &outcomes[i];
		struct resubmit_task *t;

		if (resubmit_active(o)) {
			out->nactive++;
			continue;
		}
		if (o->state == TS_MISSING && p->missing_unsettled) {
			out->nunsettled++;
			continue;
		}
		if (p->only && !p->only[i]) {
			if (resubmit_wanted(o))
				out->nleft++;
			else
				out->ncompleted++;
			continue;
		}
		if (!p->only && !resubmit_wanted(o)) {
			out->ncompleted++;
			continue;
		}
		ALLOC_GROW(out->tasks, out->ntasks + 1, alloc);
		t = &out->tasks[out->ntasks++];
		memset(t, 0, sizeof(*t));
		t->index = i;
		request(t, o, p);
	}
	slots = xcalloc(out->ntasks ? out->ntasks : 1, sizeof(*slots));
	if (p->pack > 1) {
		for (size_t k = 0; k < out->ntasks; k++) {
			slots[k].mem_mb = out->tasks[k].mem_mb;
			slots[k].time_min = out->tasks[k].time_min;
			slots[k].task = (uint32_t)out->tasks[k].index;
		}
		group_packed(out, slots, out->ntasks, p);
		free(slots);
		return 0;
	}
	for (size_t k = 0; k < out->ntasks; k++) {
		slots[k].mem_mb = out->tasks[k].mem_mb;
		slots[k].time_min = out->tasks[k].time_min;
		array_chunk_of(&slots[k].offset, &slots[k].task, out->tasks[k].index, p->max_array);
	}
	group(out, slots, out->ntasks, p->throttle);
	free(slots);
	return 0;
}

void resubmit_reason(struct strbuf *out, const struct task_outcome *o)
{
	char had[64], used[64];

	if (o->state == TS_MISSING) {
		strbuf_addstr(out, "no record in Slurm");
	} else if (rightsize_out_of_memory(o)) {
		units_format_mem(had, sizeof(had), o->req_mem_mb);
		strbuf_addstr(out, "out of memory (");
		if (o->req_mem_mb && o->req_mem_mb != UINT64_MAX)
			strbuf_addf(out, "had %s", had);
		else
			strbuf_addstr(out, "request unknown");
		if (o->maxrss_bytes != ACCT_NO_VALUE) {
			units_format_bytes(used, sizeof(used), o->maxrss_bytes);
			strbuf_addf(out, ", MaxRSS %s", used);
			if (o->tasks_per_node > 1)
				strbuf_addf(out, " x %u tasks per node",
				            (unsigned)o->tasks_per_node);
		}
		strbuf_addch(out, ')');
	} else if (rightsize_out_of_time(o)) {
		units_format_time(used, sizeof(used), o->elapsed_s);
		strbuf_addstr(out, "time limit (");
		if (o->timelimit_s != ACCT_NO_VALUE) {
			units_format_time(had, sizeof(had), o->timelimit_s);
			strbuf_addf(out, "had %s, ", had);
		}
		strbuf_addf(out, "ran %s%s)", used,
		            o->by_warning_signal ? ", ended by the warning signal" : "");
	} else {
		gate_run_failed(out, o);
	}
}

uint64_t resubmit_script_mem_mb(const struct resubmit_script *s)
{
	switch (s->mem_kind) {
	case RESUBMIT_MEM_NODE:
		return s->mem_mb;
	case RESUBMIT_MEM_PER_CPU:
		return s->mem_mb > UINT64_MAX / s->cpus ? UINT64_MAX : s->mem_mb * s->cpus;
	case RESUBMIT_MEM_NONE:
	case RESUBMIT_MEM_PER_GPU:
		break;
	}
	return 0;
}

int resubmit_mem_option(struct strbuf *out, const struct resubmit_script *s, uint64_t total_mb,
                        const char **why)
{
	char buf[64];

	switch (s->mem_kind) {
	case RESUBMIT_MEM_PER_GPU:
		*why = "the script asks --mem-per-gpu, which resubmit cannot raise (sbatch refuses "
		       "--mem with it): raise it in the sweep file and submit again";
		return -1;
	case RESUBMIT_MEM_PER_CPU:
		units_format_mem(
		    buf, sizeof(buf),
		    rightsize_clean_mem_mb(total_mb / s->cpus + (total_mb % s->cpus != 0)));
		strbuf_addf(out, "--mem-per-cpu=%s", buf);
		return 0;
	case RESUBMIT_MEM_NODE:
	case RESUBMIT_MEM_NONE:
		break;
	}
	units_format_mem(buf, sizeof(buf), total_mb);
	strbuf_addf(out, "--mem=%s", buf);
	return 0;
}
