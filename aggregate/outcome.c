/*
 * From accounting rows to one outcome per task index. A sweep index can
 * have been covered by several array jobs (chunks carry an offset, each
 * resubmission is one more array job) and, within one array job, run
 * several times (requeues show up as extra rows with JOBCOND_FLAG_DUP).
 * The array job submitted last that covers an index decides; within it,
 * the latest run does, and the earlier ones are restarts.
 */
#include "outcome.h"

#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "array.h"
#include "strbuf.h"

#include "banned.h"

/* The signals sweep lets a user choose (cfg.c), by name. */
static int signal_number(const char *name, size_t len)
{
	static const struct {
		const char *name;
		int sig;
	} sigs[] = {
	    {"USR1", SIGUSR1}, {"USR2", SIGUSR2}, {"TERM", SIGTERM}, {"INT", SIGINT},
	    {"HUP", SIGHUP},   {"QUIT", SIGQUIT}, {"ALRM", SIGALRM},
	};

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (strlen(sigs[i].name) == len && !strncmp(sigs[i].name, name, len))
			return sigs[i].sig;
	return 0;
}

bool outcome_apply_signal_note(struct acct_rec *rec, const char *note)
{
	char *end;
	unsigned long job;
	size_t len;
	int sig;

	if (rec->state != TS_FAILED || rec->array_task_id == ACCT_NO_TASK)
		return false;
	job = strtoul(note, &end, 10);
	if (end == note || *end != ' ' || job != rec->job_id)
		return false;
	note = end + 1;
	len = strcspn(note, " \n");
	sig = signal_number(note, len);
	/*
	 * The script exits 128 + N for a command killed by N; Slurm's accounting
	 * (22.05) records that as exit code N (sacct: "10:0" for SIGUSR1).
	 */
	if (!sig || (rec->exit_code != 128 + sig && rec->exit_code != sig && rec->signal != sig))
		return false;
	rec->state = TS_TIMEOUT;
	rec->by_warning_signal = true;
	return true;
}

uint64_t outcome_task_mem_mb(const struct acct_rec *rec)
{
	if (!rec->req_mem_per_cpu)
		return rec->req_mem_mb;
	if (rec->ncpus && rec->req_mem_mb > UINT64_MAX / rec->ncpus)
		return UINT64_MAX;
	/* A per-CPU request always means at least one CPU. */
	return rec->req_mem_mb * (rec->ncpus ? rec->ncpus : 1);
}

/* Per index while building: the latest attempt covering it and its latest run so far. */
struct slot {
	const struct acct_rec *rec; /* the latest run, NULL while none */
	uint32_t task;              /* its array task id */
	uint32_t rank;              /* of the latest array job covering it (1 = first), 0 if none */
	unsigned runs;              /* rows of this index in that array job */
	uint32_t earlier;           /* 1 << state of each of its runs but the latest */
	bool from_bitmap;           /* rec is a pending record, not a row of this task */
	int state;                  /* the state to show instead of rec's, or -1 */
	uint32_t pack;              /* rec is a packed task's step: the array task's limit / pack */
};

/* Submit times order runs; when they are equal, the rest of the record decides. */
static bool is_later_run(const struct acct_rec *a, bool a_bitmap, const struct acct_rec *b,
                         bool b_bitmap)
{
	/* A task's own row is newer than the pending record it was split from. */
	if (a_bitmap != b_bitmap)
		return !a_bitmap;
	if (a->submit_time != b->submit_time)
		return a->submit_time > b->submit_time;
	if ((a->state == TS_REQUEUED) != (b->state == TS_REQUEUED))
		return b->state == TS_REQUEUED;
	/* A run that has not started (or ended) yet is the newer one. */
	if (a->start_time != b->start_time)
		return !a->start_time || (b->start_time && a->start_time > b->start_time);
	if (a->end_time != b->end_time)
		return !a->end_time || (b->end_time && a->end_time > b->end_time);
	return true;
}

/*
 * Takes one run of an index into account. Only the latest array job that
 * covers the index counts; one whose --array value is unknown covers what
 * its records name.
 */
static void consider_as(struct slot *slot, struct task_outcome *out, const struct array_rec *arr,
                        uint32_t rank, const struct acct_rec *rec, uint32_t task, bool from_bitmap,
                        int state)
{
	if (slot->rank != rank) {
		if (slot->rank > rank || (arr->spec && *arr->spec))
			return;
		slot->rank = rank;
		slot->rec = NULL;
		slot->runs = 0;
		slot->earlier = 0;
		out->attempts++;
	}
	if (!from_bitmap)
		slot->runs++;
	if (!slot->rec || is_later_run(rec, from_bitmap, slot->rec, slot->from_bitmap)) {
		if (slot->rec && !slot->from_bitmap)
			slot->earlier |= UINT32_C(1) << slot->rec->state;
		slot->rec = rec;
		slot->task = task;
		slot->from_bitmap = from_bitmap;
		slot->state = state;
		slot->pack = rec->step_index != ACCT_NO_STEP && arr->pack > 1 ? arr->pack : 0;
	} else if (!from_bitmap) {
		slot->earlier |= UINT32_C(1) << rec->state;
	}
}

static void consider(struct slot *slot, struct task_outcome *out, const struct array_rec *arr,
                     uint32_t rank, const struct acct_rec *rec, uint32_t task, bool from_bitmap)
{
	consider_as(slot, out, arr, rank, rec, task, from_bitmap, -1);
}

/* An array job's rank among the sweep's: by attempt, then in the order given. */
struct array_rank {
	uint32_t job_id;
	uint32_t rank; /* 1 for the first submitted */
	const struct array_rec *arr;
};

static int cmp_submission(const void *a, const void *b)
{
	const struct array_rank *x = a, *y = b;

	if (x->arr->attempt != y->arr->attempt)
		return x->arr->attempt < y->arr->attempt ? -1 : 1;
	return x->arr < y->arr ? -1 : x->arr > y->arr;
}

static int cmp_job_id(const void *a, const void *b)
{
	const struct array_rank *x = a, *y = b;

	return x->job_id < y->job_id ? -1 : x->job_id > y->job_id;
}

static uint32_t limit_after(size_t ntasks, uint32_t offset)
{
	size_t left = offset < ntasks ? ntasks - offset : 0;

	return left > UINT32_MAX ? UINT32_MAX : (uint32_t)left;
}

/*
 * A packed array's sweep indices: array task a runs pack of them, from
 * offset + a × pack on, or entries a × pack... of its index list.
 */
struct packing {
	uint32_t pack;
	uint32_t offset;
	uint32_t *list; /* parsed arr->indices, or NULL */
	size_t nlist;
};

static int packing_init(struct packing *pk, const struct array_rec *arr)
{
	const char *why;

	memset(pk, 0, sizeof(*pk));
	pk->pack = arr->pack > 1 ? arr->pack : 1;
	pk->offset = arr->offset;
	if (arr->indices &&
	    array_parse_tasks(&pk->list, &pk->nlist, arr->indices, UINT32_MAX, &why) < 0)
		return error("cannot read the task list of array job %u: %s", arr->job_id, why);
	return 0;
}

/* Sweep index j of array task a, or SIZE_MAX when there is none below ntasks. */
static size_t packing_index(const struct packing *pk, uint32_t a, uint32_t j, size_t ntasks)
{
	uint64_t k = (uint64_t)a * pk->pack + j, i;

	if (j >= pk->pack)
		return SIZE_MAX;
	if (pk->list) {
		if (k >= pk->nlist)
			return SIZE_MAX;
		i = pk->list[k];
	} else {
		i = pk->offset + k;
	}
	return i < ntasks ? (size_t)i : SIZE_MAX;
}

/* Array tasks a packed array may have: enough to cover ntasks from its offset. */
static uint32_t packing_limit(const struct packing *pk, size_t ntasks)
{
	uint64_t n = pk->list ? pk->nlist : (pk->offset < ntasks ? ntasks - pk->offset : 0);
	uint64_t tasks = (n + pk->pack - 1) / pk->pack;

	return tasks > UINT32_MAX ? UINT32_MAX : (uint32_t)tasks;
}

/* Marks the indices each array job's --array value covers; ranks is in submission order. */
static int cover_specs(struct slot *slots, struct task_outcome *out, size_t ntasks,
                       const struct array_rank *ranks, size_t narrays)
{
	for (size_t r = 0; r < narrays; r++) {
		const struct array_rec *arr = ranks[r].arr;
		uint32_t *tasks;
		size_t n;
		const char *why;

		struct packing pk;

		if (!arr->spec || !*arr->spec)
			continue;
		if (packing_init(&pk, arr) < 0)
			return SWEEP_ERR;
		if (array_parse_tasks(&tasks, &n, arr->spec,
		                      arr->pack > 1 ? packing_limit(&pk, ntasks)
		                                    : limit_after(ntasks, arr->offset),
		                      &why) < 0) {
			free(pk.list);
			return error("cannot read the --array value '%s' of array job %u: %s",
			             arr->spec, arr->job_id, why);
		}
		for (size_t k = 0; k < n; k++) {
			for (uint32_t j = 0; j < pk.pack; j++) {
				size_t i = arr->pack > 1 ? packing_index(&pk, tasks[k], j, ntasks)
				                         : (size_t)arr->offset + tasks[k];

				if (i == SIZE_MAX || slots[i].rank == ranks[r].rank)
					continue;
				slots[i].rank = ranks[r].rank;
				out[i].attempts++;
			}
		}
		free(pk.list);
		free(tasks);
	}
	return 0;
}

/*
 * A packed array task's own record stands for those of its sweep tasks
 * whose step has no record: not started yet while it runs, or never
 * started when it ended early (time limit, cancelled, node failure). When
 * it completed or failed on its own, a step with no record is missing.
 */
static int packed_job_state(enum task_state s)
{
	switch (s) {
	case TS_RUNNING:
	case TS_SUSPENDED:
		return TS_PENDING;
	case TS_COMPLETED:
	case TS_FAILED:
		return TS_MISSING;
	default:
		return (int)s;
	}
}

static int add_packed(struct slot *slots, struct task_outcome *out, size_t ntasks,
                      const struct array_rec *arr, uint32_t rank, const struct acct_rec *rec)
{
	struct packing pk;
	uint32_t *tasks = NULL;
	size_t n = 0;
	const char *why;

	if (rec->step_index != ACCT_NO_STEP) {
		if (rec->step_index < ntasks)
			consider(&slots[rec->step_index], &out[rec->step_index], arr, rank, rec,
			         rec->array_task_id, false);
		return 0;
	}
	if (packing_init(&pk, arr) < 0)
		return SWEEP_ERR;
	if (rec->array_task_id != ACCT_NO_TASK) {
		int state = packed_job_state(rec->state);

		for (uint32_t j = 0; state != TS_MISSING && j < pk.pack; j++) {
			size_t i = packing_index(&pk, rec->array_task_id, j, ntasks);

			if (i != SIZE_MAX)
				consider_as(&slots[i], &out[i], arr, rank, rec, rec->array_task_id,
				            true, state);
		}
	} else if (rec->pending_tasks) {
		if (array_parse_tasks(&tasks, &n, rec->pending_tasks, packing_limit(&pk, ntasks),
		                      &why) < 0) {
			free(pk.list);
			return error("cannot read the pending tasks of array job %u: %s",
			             rec->array_job_id, why);
		}
		for (size_t k = 0; k < n; k++)
			for (uint32_t j = 0; j < pk.pack; j++) {
				size_t i = packing_index(&pk, tasks[k], j, ntasks);

				if (i != SIZE_MAX)
					consider(&slots[i], &out[i], arr, rank, rec, tasks[k],
					         true);
			}
	}
	free(tasks);
	free(pk.list);
	return 0;
}

static int add_record(struct slot *slots, struct task_outcome *out, size_t ntasks,
                      const struct array_rec *arr, uint32_t rank, const struct acct_rec *rec)
{
	uint32_t limit = limit_after(ntasks, arr->offset);
	uint32_t *tasks;
	size_t n;
	const char *why;

	if (arr->pack > 1)
		return add_packed(slots, out, ntasks, arr, rank, rec);
	if (rec->step_index != ACCT_NO_STEP)
		return 0; /* a step of a task that is not packed is part of that task */
	if (rec->array_task_id != ACCT_NO_TASK) {
		if (rec->array_task_id < limit) {
			size_t i = (size_t)arr->offset + rec->array_task_id;

			consider(&slots[i], &out[i], arr, rank, rec, rec->array_task_id, false);
		}
		return 0;
	}
	if (!rec->pending_tasks)
		return 0;
	if (array_parse_tasks(&tasks, &n, rec->pending_tasks, limit, &why) < 0) {
		/* A bitmap can be thousands of digits long: show its start. */
		bool cut = strlen(rec->pending_tasks) > 40;

		return error("cannot read the pending tasks '%.*s%s' of array job %u: %s", 40,
		             rec->pending_tasks, cut ? "..." : "", rec->array_job_id, why);
	}
	for (size_t k = 0; k < n; k++) {
		size_t i = (size_t)arr->offset + tasks[k];

		consider(&slots[i], &out[i], arr, rank, rec, tasks[k], true);
	}
	free(tasks);
	return 0;
}

static void fill(struct task_outcome *out, const struct slot *slot)
{
	const struct acct_rec *rec = slot->rec;

	if (!rec)
		return;
	out->state = slot->state >= 0 ? (enum task_state)slot->state : rec->state;
	out->exit_code = rec->exit_code;
	out->signal = rec->signal;
	out->elapsed_s = rec->elapsed_s;
	out->timelimit_s = rec->timelimit_s;
	if (slot->pack && rec->timelimit_s != ACCT_NO_VALUE)
		out->timelimit_s = rec->timelimit_s / slot->pack; /* the step's share */
	out->req_mem_mb = outcome_task_mem_mb(rec);
	out->maxrss_bytes = rec->maxrss_bytes;
	out->ncpus = rec->ncpus;
	out->total_cpu_us = rec->total_cpu_us;
	out->gpu_util = rec->gpu_util;
	out->gpu_mem_bytes = rec->gpu_mem_bytes;
	out->node_mem_bytes =
	    rec->node_mem_bytes != ACCT_NO_VALUE ? rec->node_mem_bytes : rec->maxrss_bytes;
	out->tasks_per_node = rec->tasks_per_node ? rec->tasks_per_node : 1;
	out->req_mem_per_cpu = rec->req_mem_per_cpu;
	out->cpus_per_node = rec->nnodes ? rec->ncpus / rec->nnodes : rec->ncpus;
	out->array_job_id = rec->array_job_id;
	out->array_task_id = slot->task;
	/* A task still inside the pending record gets its own job id only when it starts. */
	out->job_id = slot->from_bitmap ? 0 : rec->job_id;
	out->end_time = slot->from_bitmap ? 0 : rec->end_time;
	out->restarts = slot->runs ? slot->runs - 1 : 0;
	out->restart_states = out->restarts ? slot->earlier : 0;
	out->nodes = rec->nodes;
	out->pending_reason = rec->reason;
	out->hold = out->state == TS_HELD ? rec->hold : ACCT_HOLD_NONE;
	out->by_warning_signal = rec->by_warning_signal;
}

int outcome_build(struct task_outcome *out, size_t ntasks, const struct array_rec *arrays,
                  size_t narrays, const struct acct_set *set)
{
	struct slot *slots = NULL;
	struct array_rank *ranks = NULL;
	const struct acct_rec **blank = NULL; /* by rank: a pending record without its list */
	const struct array_rec **blank_arr = NULL;
	int ret = 0;

	for (size_t i = 0; i < ntasks; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		out[i].state = TS_MISSING;
		out[i].timelimit_s = ACCT_NO_VALUE;
		out[i].maxrss_bytes = ACCT_NO_VALUE;
		out[i].total_cpu_us = ACCT_NO_VALUE;
		out[i].gpu_util = ACCT_NO_VALUE;
		out[i].gpu_mem_bytes = ACCT_NO_VALUE;
		out[i].node_mem_bytes = ACCT_NO_VALUE;
	}
	if (!ntasks)
		return 0;
	slots = xcalloc(ntasks, sizeof(*slots));
	for (size_t i = 0; i < ntasks; i++)
		slots[i].state = -1;
	ranks = xcalloc(narrays ? narrays : 1, sizeof(*ranks));
	for (size_t p = 0; p < narrays; p++) {
		ranks[p].job_id = arrays[p].job_id;
		ranks[p].arr = &arrays[p];
	}
	/* The store lists them in submission order already; this keeps outcomes independent of it.
	 */
	qsort(ranks, narrays, sizeof(*ranks), cmp_submission);
	for (size_t r = 0; r < narrays; r++)
		ranks[r].rank = (uint32_t)(r + 1);
	ret = cover_specs(slots, out, ntasks, ranks, narrays);
	if (ret < 0)
		goto out;

	qsort(ranks, narrays, sizeof(*ranks), cmp_job_id);
	blank = xcalloc(narrays + 1, sizeof(*blank));
	blank_arr = xcalloc(narrays + 1, sizeof(*blank_arr));
	for (size_t r = 0; r < set->n; r++) {
		const struct acct_rec *rec = &set->recs[r];
		struct array_rank key = {rec->array_job_id, 0, NULL}, *hit;

		hit = bsearch(&key, ranks, narrays, sizeof(*ranks), cmp_job_id);
		if (!hit)
			continue;
		if (rec->array_task_id == ACCT_NO_TASK && !rec->pending_tasks &&
		    task_state_is_final(rec->state)) {
			blank[hit->rank] = rec;
			blank_arr[hit->rank] = hit->arr;
		}
		ret = add_record(slots, out, ntasks, hit->arr, hit->rank, rec);
		if (ret < 0)
			goto out;
	}
	/*
	 * A pending record cancelled at the moment tasks were split off it may
	 * reach accounting without its task list: its tasks that have no row
	 * of their own ended as it did.
	 */
	for (size_t i = 0; i < ntasks; i++) {
		uint32_t rank = slots[i].rank;

		if (!slots[i].rec && rank && blank[rank] && i >= blank_arr[rank]->offset) {
			slots[i].rec = blank[rank];
			slots[i].task = (uint32_t)(i - blank_arr[rank]->offset);
			slots[i].from_bitmap = true;
		}
	}
	for (size_t i = 0; i < ntasks; i++)
		fill(&out[i], &slots[i]);
out:
	free(blank);
	free(blank_arr);
	free(ranks);
	free(slots);
	return ret;
}

void outcome_restart_reasons(struct strbuf *out, const struct task_outcome *o)
{
	size_t start = out->len;

	for (int s = 0; s < TS_NSTATES; s++) {
		if (!(o->restart_states & (UINT32_C(1) << s)))
			continue;
		if (out->len > start)
			strbuf_addstr(out, ", ");
		if (s == TS_REQUEUED)
			strbuf_addstr(out, "requeued by signal");
		else
			strbuf_addstr(out, task_state_name((enum task_state)s));
	}
}

bool outcome_out_of_memory(const struct task_outcome *o)
{
	if (o->state == TS_OUT_OF_MEMORY)
		return true;
	if (o->state != TS_FAILED)
		return false;
	if (o->signal == 9)
		return true;
	/*
	 * The script, not the step, ended: its command died of SIGKILL (137)
	 * over the request. Slurm 22.05 records that exit status as 9 (FAILED
	 * 9:0, as it records 138 as 10:0) when OverMemoryKill reached the
	 * command before the script, a race seen on the test cluster.
	 */
	return (o->exit_code == 128 + 9 || o->exit_code == 9) && o->req_mem_mb &&
	       o->maxrss_bytes != ACCT_NO_VALUE &&
	       o->maxrss_bytes >= o->req_mem_mb * (1024u * 1024u);
}

char *outcome_log_path(const char *logs, const char *name, enum task_state state,
                       uint32_t array_job_id, uint32_t array_task_id)
{
	if (!logs || !name || !array_job_id || state == TS_MISSING || task_state_is_queued(state))
		return NULL;
	return xstrfmt("%s/%s_%" PRIu32 "_%" PRIu32 ".out", logs, name, array_job_id,
	               array_task_id);
}
