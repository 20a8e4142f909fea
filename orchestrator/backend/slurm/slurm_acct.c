/*
 * Accounting records from slurmdbd through libslurm's slurmdb API: one
 * slurmdb_jobs_get query per command, whatever the number of array jobs
 * (up to three when array jobs are partly kept: see read_parts and
 * fetch_parts_with_steps), so that watching a sweep never adds up to a
 * sacct loop on the cluster's database, and a refresh of a big sweep asks
 * for the records of its tasks not kept only. Decodes them into the
 * backend-neutral acct_set (acct.h).
 */
#include "slurm_acct.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>

#include "array.h"
#include "error.h"
#include "slurm_conn.h"
#include "strbuf.h"

#include "banned.h"

#define TRES_CPU 1
#define TRES_MEM 2

static enum task_state decode_state(uint32_t state)
{
	/* Flag bits first: a requeued run's row has base state PENDING. */
	if (state & (JOB_REQUEUE | JOB_REQUEUE_FED))
		return TS_REQUEUED;
	switch (state & JOB_STATE_BASE) {
	case JOB_PENDING:
		return TS_PENDING;
	case JOB_RUNNING:
		return TS_RUNNING;
	case JOB_SUSPENDED:
		return TS_SUSPENDED;
	case JOB_COMPLETE:
		return TS_COMPLETED;
	case JOB_CANCELLED:
		return TS_CANCELLED;
	case JOB_FAILED:
		return TS_FAILED;
	case JOB_TIMEOUT:
		return TS_TIMEOUT;
	case JOB_NODE_FAIL:
		return TS_NODE_FAIL;
	case JOB_PREEMPTED:
		return TS_PREEMPTED;
	case JOB_BOOT_FAIL:
		return TS_BOOT_FAIL;
	case JOB_DEADLINE:
		return TS_DEADLINE;
	case JOB_OOM:
		return TS_OUT_OF_MEMORY;
	}
	/* A state newer than this build: nothing safe to say but "it failed". */
	return TS_FAILED;
}

/*
 * Finds TRES id in Slurm's "id=count,id=count..." text. False when the
 * text is NULL or empty (running steps have no statistics yet), when the
 * id is absent or the value is one of Slurm's "no value" markers.
 */
static bool tres_value(uint64_t *out, const char *tres, uint32_t id)
{
	const char *p = tres;

	while (p && *p) {
		char *end;
		unsigned long long key, value;

		key = strtoull(p, &end, 10);
		if (end == p || *end != '=')
			return false;
		p = end + 1;
		value = strtoull(p, &end, 10);
		if (end == p)
			return false;
		if (key == id) {
			if (value == NO_VAL64 || value == INFINITE64)
				return false;
			*out = value;
			return true;
		}
		p = strchr(end, ',');
		if (p)
			p++;
	}
	return false;
}

/* The job's MaxRSS and per-node need (acct_node_need): the maximum over its steps. */
static void step_memory(struct acct_rec *rec, slb_list_t steps)
{
	slurmdb_step_rec_t *step;
	slb_list_itr_t it;

	if (!steps)
		return;
	it = slurm_list_iterator_create(steps);
	while ((step = slurm_list_next(it))) {
		uint64_t rss, need;
		uint32_t per;

		if (!tres_value(&rss, step->stats.tres_usage_in_max, TRES_MEM))
			continue;
		if (rec->maxrss_bytes == ACCT_NO_VALUE || rss > rec->maxrss_bytes)
			rec->maxrss_bytes = rss;
		need = acct_node_need(rss, step->ntasks, step->nnodes, &per);
		if (rec->node_mem_bytes == ACCT_NO_VALUE || need > rec->node_mem_bytes) {
			rec->node_mem_bytes = need;
			rec->tasks_per_node = per;
		}
	}
	slurm_list_iterator_destroy(it);
}

/* The peak of TRES id over the steps' tres_usage_in_max; ACCT_NO_VALUE when none has it. */
static uint64_t max_tres(slb_list_t steps, uint32_t id)
{
	uint64_t best = ACCT_NO_VALUE;
	slurmdb_step_rec_t *step;
	slb_list_itr_t it;

	if (!steps || !id)
		return best;
	it = slurm_list_iterator_create(steps);
	while ((step = slurm_list_next(it))) {
		uint64_t v;

		if (tres_value(&v, step->stats.tres_usage_in_max, id) &&
		    (best == ACCT_NO_VALUE || v > best))
			best = v;
	}
	slurm_list_iterator_destroy(it);
	return best;
}

/*
 * TotalCPU: the job record's tot_cpu_sec + tot_cpu_usec, which slurmdbd
 * sums over the steps; their own sum where the job's is zero. Not recorded
 * while the job has no step with statistics (pending, running, or queried
 * without steps). A step that ended with CPU time but no statistics (a run
 * of a second, which the gatherer never sampled) counts: its CPU time
 * comes from the step's end, as sacct shows it.
 */
static uint64_t total_cpu_us(const slurmdb_job_rec_t *job)
{
	uint64_t sum = 0;
	bool any = false;
	slurmdb_step_rec_t *step;
	slb_list_itr_t it;

	if (!job->steps)
		return ACCT_NO_VALUE;
	it = slurm_list_iterator_create(job->steps);
	while ((step = slurm_list_next(it))) {
		if ((!step->stats.tres_usage_in_max || !*step->stats.tres_usage_in_max) &&
		    !(step->end && (step->tot_cpu_sec || step->tot_cpu_usec)))
			continue;
		any = true;
		sum += step->tot_cpu_sec * 1000000u + step->tot_cpu_usec;
	}
	slurm_list_iterator_destroy(it);
	if (!any)
		return ACCT_NO_VALUE;
	if (job->tot_cpu_sec || job->tot_cpu_usec)
		return job->tot_cpu_sec * 1000000u + job->tot_cpu_usec;
	return sum;
}

/* Every step ended: its statistics are the last slurmdbd will have. */
static bool steps_ended(slb_list_t steps)
{
	slurmdb_step_rec_t *step;
	slb_list_itr_t it;
	bool ended = true;

	if (!steps || !slurm_list_count(steps))
		return false;
	it = slurm_list_iterator_create(steps);
	while ((step = slurm_list_next(it)))
		if (step->end <= 0 || step->end == (time_t)NO_VAL || step->end == (time_t)INFINITE)
			ended = false;
	slurm_list_iterator_destroy(it);
	return ended;
}

/* slurmdbd reports the start of an array cancelled while pending as NO_VAL. */
static int64_t unix_time(time_t t)
{
	if (t <= 0 || t == (time_t)NO_VAL || t == (time_t)INFINITE)
		return 0;
	return (int64_t)t;
}

/* The sweep index a packed task's step is named after ("sweep-<index>"), or ACCT_NO_STEP. */
static uint32_t step_sweep_index(const char *name)
{
	char *end;
	unsigned long v;

	if (!name || strncmp(name, ACCT_STEP_PREFIX, strlen(ACCT_STEP_PREFIX)))
		return ACCT_NO_STEP;
	name += strlen(ACCT_STEP_PREFIX);
	if (*name < '0' || *name > '9')
		return ACCT_NO_STEP;
	errno = 0;
	v = strtoul(name, &end, 10);
	if (errno || *end || v >= ACCT_NO_STEP)
		return ACCT_NO_STEP;
	return (uint32_t)v;
}

/*
 * One record per step of a packed array task: the step is the sweep task.
 * Requested memory and CPUs are the job's (each step has the whole
 * allocation); the time limit is the array task's, which outcome_build
 * divides by the pack.
 */
static void decode_steps(struct acct_set *out, const slurmdb_job_rec_t *job,
                         const struct acct_rec *job_rec)
{
	/* A copy: adding records may move the set's array. */
	const struct acct_rec copy = *job_rec, *jrec = &copy;
	slurmdb_step_rec_t *step;
	slb_list_itr_t it;

	if (!job->steps)
		return;
	it = slurm_list_iterator_create(job->steps);
	while ((step = slurm_list_next(it))) {
		uint32_t index = step_sweep_index(step->stepname);
		struct acct_rec *rec;
		uint64_t rss;
		int status;

		if (index == ACCT_NO_STEP)
			continue;
		rec = acct_set_add(out);
		rec->job_id = jrec->job_id;
		rec->array_job_id = jrec->array_job_id;
		rec->array_task_id = jrec->array_task_id;
		rec->step_index = index;
		rec->state = decode_state(step->state);
		status = step->exitcode == (int32_t)NO_VAL ? 0 : (int)step->exitcode;
		rec->exit_code = WEXITSTATUS(status);
		rec->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
		rec->elapsed_s = step->elapsed;
		rec->timelimit_s = jrec->timelimit_s;
		rec->req_mem_mb = jrec->req_mem_mb;
		rec->req_mem_per_cpu = jrec->req_mem_per_cpu;
		rec->ncpus = jrec->ncpus;
		if (tres_value(&rss, step->stats.tres_usage_in_max, TRES_MEM))
			rec->maxrss_bytes = rss;
		if (step->nodes && *step->nodes)
			rec->nodes = xstrdup(step->nodes);
		rec->submit_time = jrec->submit_time;
		rec->start_time = unix_time(step->start);
		rec->end_time = unix_time(step->end);
	}
	slurm_list_iterator_destroy(it);
}

int slb_acct_decode_job(struct acct_set *out, const slurmdb_job_rec_t *job, bool with_steps)
{
	struct acct_rec *rec;
	uint64_t cpus;
	int status;

	/*
	 * REVOKED and RESIZING rows are bookkeeping, not runs. A job that is no
	 * array cannot be a sweep's: the query matches job ids too, and after
	 * the ids wrap around an old job can carry an array's id.
	 */
	if ((job->state & (JOB_REVOKED | JOB_RESIZING)) || !job->array_job_id)
		return 0;

	rec = acct_set_add(out);
	rec->job_id = job->jobid;
	rec->array_job_id = job->array_job_id;
	rec->array_task_id = job->array_task_id == NO_VAL ? ACCT_NO_TASK : job->array_task_id;
	if (rec->array_task_id == ACCT_NO_TASK && job->array_task_str && *job->array_task_str)
		rec->pending_tasks = xstrdup(job->array_task_str);
	rec->state = decode_state(job->state);
	if (rec->state == TS_PENDING)
		rec->maybe_held = job->priority == 0 || job->eligible <= 0 ||
		                  job->eligible == (time_t)NO_VAL || job->eligible == (time_t)INFINITE ||
		                  job->eligible > time(NULL);

	/* A wait status, as sacct's ExitCode "code:signal" shows it. */
	status = job->exitcode == NO_VAL ? 0 : (int)job->exitcode;
	rec->exit_code = WEXITSTATUS(status);
	rec->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;

	rec->elapsed_s = job->elapsed;
	if (job->timelimit != INFINITE && job->timelimit != NO_VAL)
		rec->timelimit_s = (uint64_t)job->timelimit * 60;

	if (job->req_mem != NO_VAL64 && job->req_mem != INFINITE64) {
		rec->req_mem_per_cpu = (job->req_mem & MEM_PER_CPU) != 0;
		rec->req_mem_mb = job->req_mem & ~MEM_PER_CPU;
	}
	/* Allocated CPUs once the task started, requested ones before. */
	if (tres_value(&cpus, job->tres_alloc_str, TRES_CPU) && cpus > 0 && cpus < UINT32_MAX)
		rec->ncpus = (uint32_t)cpus;
	else if (job->req_cpus != NO_VAL && job->req_cpus != INFINITE)
		rec->ncpus = job->req_cpus;

	rec->total_cpu_us = total_cpu_us(job);
	rec->gpu_util = max_tres(job->steps, out->tres_gpuutil);
	rec->gpu_mem_bytes = max_tres(job->steps, out->tres_gpumem);
	step_memory(rec, job->steps);
	if (job->alloc_nodes && job->alloc_nodes != NO_VAL)
		rec->nnodes = job->alloc_nodes;
	/* Pending jobs carry "None assigned" in the node list. */
	if (job->nodes && *job->nodes && strcmp(job->nodes, "None assigned") != 0)
		rec->nodes = xstrdup(job->nodes);
	rec->submit_time = unix_time(job->submit);
	rec->start_time = unix_time(job->start);
	rec->end_time = unix_time(job->end);
	/* A run that never started has no steps to wait for. */
	rec->steps_final = with_steps && (!rec->start_time || steps_ended(job->steps));
	decode_steps(out, job, &out->recs[out->n - 1]);
	return 1;
}

static void add_selected(slb_list_t list, uint32_t job_id, uint32_t task, uint32_t step)
{
	slurm_selected_step_t *sel = xcalloc(1, sizeof(*sel));

	sel->array_task_id = task;
	sel->het_job_offset = NO_VAL;
	sel->step_id.job_id = job_id;
	sel->step_id.step_id = step;
	sel->step_id.step_het_comp = NO_VAL;
	slurm_list_append(list, sel);
}

void slb_acct_build_cond(slurmdb_job_cond_t *cond, const uint32_t *ids, size_t n,
                         const struct slb_acct_part *parts, size_t nparts, const char *cluster,
                         bool with_steps, int64_t since)
{
	memset(cond, 0, sizeof(*cond));
	/* 0 would mean "db flags = 0" in the SQL and match almost nothing. */
	cond->db_flags = SLURMDB_JOB_FLAG_NOTSET;
	/* NO_TRUNC: times not clipped to the window; DUP: earlier runs of requeued tasks. */
	cond->flags = JOBCOND_FLAG_NO_TRUNC | JOBCOND_FLAG_DUP;
	if (!with_steps)
		cond->flags |= JOBCOND_FLAG_NO_STEP;
	/*
	 * With a step list slurmdbd keeps the rows submitted before usage_end
	 * that ended at usage_start or later, or have not ended.
	 */
	cond->usage_start = (time_t)since;
	cond->usage_end = time(NULL) + 1;

	/* Built by hand: slurm_addto_step_list() calls fatal() on input it dislikes. */
	cond->step_list = slurm_list_create(free);
	for (size_t i = 0; i < n; i++)
		add_selected(cond->step_list, ids[i], NO_VAL, NO_VAL);
	for (size_t p = 0; p < nparts; p++)
		for (size_t t = 0; t < parts[p].ntasks; t++)
			add_selected(cond->step_list, parts[p].job_id, parts[p].tasks[t], NO_VAL);
	/* Without it every cluster in the database is searched. */
	if (cluster && *cluster) {
		cond->cluster_list = slurm_list_create(free);
		slurm_list_append(cond->cluster_list, xstrdup(cluster));
	}
}

void slb_acct_cond_release(slurmdb_job_cond_t *cond)
{
	if (cond->step_list)
		slurm_list_destroy(cond->step_list);
	if (cond->cluster_list)
		slurm_list_destroy(cond->cluster_list);
	memset(cond, 0, sizeof(*cond));
}

/*
 * The ids of the TRES gres/gpuutil and gres/gpumem, which a cluster has
 * only when it gathers them. A failed query leaves them unknown: the GPU
 * figures are then "not recorded", never an error of the whole command.
 */
static void find_gpu_tres(struct acct_set *out, void *conn)
{
	/* Asked once per process: a --watch refresh sends one query, not two. */
	static bool known;
	static uint32_t gpuutil, gpumem;
	slurmdb_tres_cond_t cond;
	slurmdb_tres_rec_t *tres;
	slb_list_t list;
	slb_list_itr_t it;

	if (known) {
		out->tres_gpuutil = gpuutil;
		out->tres_gpumem = gpumem;
		out->gpu_recorded = gpuutil || gpumem;
		return;
	}
	memset(&cond, 0, sizeof(cond));
	cond.type_list = slurm_list_create(free);
	slurm_list_append(cond.type_list, xstrdup("gres"));
	list = slurmdb_tres_get(conn, &cond);
	slurm_list_destroy(cond.type_list);
	if (!list)
		return;
	it = slurm_list_iterator_create(list);
	while ((tres = slurm_list_next(it))) {
		if (!tres->type || strcasecmp(tres->type, "gres") || !tres->name)
			continue;
		if (!strcasecmp(tres->name, "gpuutil"))
			out->tres_gpuutil = tres->id;
		else if (!strcasecmp(tres->name, "gpumem"))
			out->tres_gpumem = tres->id;
	}
	slurm_list_iterator_destroy(it);
	slurm_list_destroy(list);
	out->gpu_recorded = out->tres_gpuutil || out->tres_gpumem;
	known = true;
	gpuutil = out->tres_gpuutil;
	gpumem = out->tres_gpumem;
}

static unsigned queries;
static unsigned long step_records, records;

unsigned slb_acct_queries(void)
{
	return queries;
}

unsigned long slb_acct_step_records(void)
{
	return step_records;
}

unsigned long slb_acct_records(void)
{
	return records;
}

int slb_acct_fetch(struct acct_set *out, const uint32_t *array_job_ids, size_t n, bool with_steps)
{
	return slb_acct_fetch_parts(out, array_job_ids, n, NULL, 0, with_steps);
}

/*
 * One slurmdb_jobs_get query (slb_acct_build_cond, rows ended before since
 * left out); its records appended to out, whose GPU TRES ids are looked up
 * when read with steps or gpu_tres.
 */
static int query(struct acct_set *out, const uint32_t *array_job_ids, size_t n,
                 const struct slb_acct_part *parts, size_t nparts, bool with_steps, int64_t since,
                 bool gpu_tres)
{
	slurmdb_job_cond_t cond;
	void *conn = NULL;
	slb_list_t jobs = NULL;
	slb_list_itr_t it;
	slurmdb_job_rec_t *job;
	int ret;

	if (!n && !nparts)
		return 0;
	ret = slb_conn_init();
	if (ret < 0)
		return ret;
	slb_acct_build_cond(&cond, array_job_ids, n, parts, nparts, slb_conn_name(), with_steps,
	                    since);

	/* It returns a handle even when slurmdbd is down; errno tells. */
	errno = 0;
	conn = slurmdb_connection_get(NULL);
	if (!conn || errno) {
		ret = error("cannot reach slurmdbd: %s (is it running? 'sacct' tells)",
		            slurm_strerror(errno ? errno : ESLURM_DB_CONNECTION));
		goto out;
	}

	errno = 0;
	if (with_steps || gpu_tres)
		find_gpu_tres(out, conn);
	errno = 0;
	queries++;
	jobs = slurmdb_jobs_get(conn, &cond);
	if (!jobs) {
		int e = slb_errno() ? slb_errno() : errno;

		ret =
		    error("slurmdbd did not return the records of %zu array job%s: %s", n + nparts,
		          n + nparts == 1 ? "" : "s", e ? slurm_strerror(e) : "no answer");
		goto out;
	}
	records += (unsigned long)slurm_list_count(jobs);
	it = slurm_list_iterator_create(jobs);
	while ((job = slurm_list_next(it))) {
		if (job->steps && slurm_list_count(job->steps))
			step_records++;
		slb_acct_decode_job(out, job, with_steps);
	}
	slurm_list_iterator_destroy(it);
	ret = 0;
out:
	if (jobs)
		slurm_list_destroy(jobs);
	if (conn)
		slurmdb_connection_close(&conn);
	slb_acct_cond_release(&cond);
	return ret;
}

int slb_cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

size_t slb_acct_ended_tasks(uint32_t *out, const struct acct_set *set,
                            const struct slb_acct_part *part)
{
	uint32_t *wanted = xcalloc(part->ntasks ? part->ntasks : 1, sizeof(*wanted));
	size_t n = 0;

	memcpy(wanted, part->tasks, part->ntasks * sizeof(*wanted));
	qsort(wanted, part->ntasks, sizeof(*wanted), slb_cmp_u32);
	for (size_t r = 0; r < set->n; r++) {
		const struct acct_rec *rec = &set->recs[r];

		if (rec->array_job_id != part->job_id || rec->array_task_id == ACCT_NO_TASK ||
		    (!rec->end_time && !task_state_is_final(rec->state)) ||
		    !bsearch(&rec->array_task_id, wanted, part->ntasks, sizeof(*wanted), slb_cmp_u32))
			continue;
		out[n++] = rec->array_task_id;
	}
	free(wanted);
	/* A task's earlier runs are rows of their own: once each. */
	qsort(out, n, sizeof(*out), slb_cmp_u32);
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (!m || out[m - 1] != out[i])
			out[m++] = out[i];
	return m;
}

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static uint64_t task_key(const struct acct_rec *rec)
{
	return (uint64_t)rec->array_job_id << 32 | rec->array_task_id;
}

/* Moves rec to the end of dst: its strings are dst's now, rec's owner must not free them. */
static void move_rec(struct acct_set *dst, struct acct_rec *rec)
{
	*acct_set_add(dst) = *rec;
	rec->pending_tasks = NULL;
	rec->nodes = NULL;
	rec->reason = NULL;
}

void slb_acct_merge(struct acct_set *out, size_t from, struct acct_set *first)
{
	size_t nkeys = out->n - from;
	uint64_t *keys = xcalloc(nkeys ? nkeys : 1, sizeof(*keys));

	for (size_t r = 0; r < nkeys; r++)
		keys[r] = task_key(&out->recs[from + r]);
	qsort(keys, nkeys, sizeof(*keys), by_u64);
	for (size_t r = 0; r < first->n; r++) {
		struct acct_rec *rec = &first->recs[r];
		uint64_t key = task_key(rec);

		if (rec->array_task_id != ACCT_NO_TASK &&
		    bsearch(&key, keys, nkeys, sizeof(*keys), by_u64))
			continue;
		move_rec(out, rec);
	}
	free(keys);
}

static int by_ntasks(const void *a, const void *b)
{
	const struct slb_acct_part *x = a, *y = b;

	if (x->ntasks != y->ntasks)
		return x->ntasks < y->ntasks ? -1 : 1;
	return (x->job_id > y->job_id) - (x->job_id < y->job_id);
}

void slb_acct_plan_parts(struct slb_acct_plan *out, const uint32_t *ids, size_t n,
                         const struct slb_acct_part *parts, size_t nparts, size_t budget)
{
	size_t used = 0;

	memset(out, 0, sizeof(*out));
	out->whole = xcalloc(n + nparts ? n + nparts : 1, sizeof(*out->whole));
	out->named = xcalloc(nparts ? nparts : 1, sizeof(*out->named));
	out->windowed = xcalloc(nparts ? nparts : 1, sizeof(*out->windowed));
	for (size_t i = 0; i < n; i++)
		out->whole[out->nwhole++] = ids[i];
	if (nparts)
		memcpy(out->named, parts, nparts * sizeof(*parts));
	/* The smallest parts first: the budget then names the most array jobs. */
	qsort(out->named, nparts, sizeof(*out->named), by_ntasks);
	for (size_t p = 0; p < nparts; p++) {
		const struct slb_acct_part *part = &out->named[p];

		if (part->ntasks && part->ntasks <= budget - used) {
			used += part->ntasks;
			out->named[out->nnamed++] = *part;
		} else if (part->ntasks && part->since > 0) {
			out->windowed[out->nwindowed++] = *part;
		} else {
			out->whole[out->nwhole++] = part->job_id;
		}
	}
}

void slb_acct_plan_release(struct slb_acct_plan *p)
{
	free(p->whole);
	free(p->named);
	free(p->windowed);
	memset(p, 0, sizeof(*p));
}

/* The largest task of part plus one (the limit of its pending record's bitmap). */
static uint32_t part_limit(const struct slb_acct_part *part)
{
	uint32_t max = 0;

	for (size_t t = 0; t < part->ntasks; t++)
		if (part->tasks[t] > max)
			max = part->tasks[t];
	return max == UINT32_MAX ? max : max + 1;
}

size_t slb_acct_uncovered(uint32_t *out, const struct acct_set *set,
                          const struct slb_acct_part *part)
{
	uint32_t *wanted = xcalloc(part->ntasks ? part->ntasks : 1, sizeof(*wanted));
	bool *covered = xcalloc(part->ntasks ? part->ntasks : 1, sizeof(*covered));
	uint32_t limit = part_limit(part);
	size_t n = 0, nwanted = 0;

	if (part->ntasks)
		memcpy(wanted, part->tasks, part->ntasks * sizeof(*wanted));
	qsort(wanted, part->ntasks, sizeof(*wanted), slb_cmp_u32);
	/* Each task once. */
	for (size_t t = 0; t < part->ntasks; t++)
		if (!nwanted || wanted[nwanted - 1] != wanted[t])
			wanted[nwanted++] = wanted[t];
	for (size_t r = 0; r < set->n; r++) {
		const struct acct_rec *rec = &set->recs[r];
		uint32_t *pending = NULL, one = rec->array_task_id, *tasks = &one;
		size_t ntasks = 1;
		const char *why;

		if (rec->array_job_id != part->job_id)
			continue;
		if (rec->array_task_id == ACCT_NO_TASK) {
			/* An unreadable pending record covers nothing: the array is read whole. */
			if (!rec->pending_tasks ||
			    array_parse_tasks(&pending, &ntasks, rec->pending_tasks, limit, &why) <
			        0) {
				free(pending);
				continue;
			}
			tasks = pending;
		}
		for (size_t k = 0; k < ntasks; k++) {
			uint32_t *hit =
			    bsearch(&tasks[k], wanted, nwanted, sizeof(*wanted), slb_cmp_u32);

			if (hit)
				covered[hit - wanted] = true;
		}
		free(pending);
	}
	for (size_t t = 0; t < nwanted; t++)
		if (!covered[t])
			out[n++] = wanted[t];
	free(covered);
	free(wanted);
	return n;
}

bool slb_acct_array_row(const struct acct_set *set, uint32_t array_job_id)
{
	for (size_t r = 0; r < set->n; r++)
		if (set->recs[r].array_job_id == array_job_id &&
		    set->recs[r].job_id == array_job_id)
			return true;
	return false;
}

/* Moves the records of src to the end of dst (src's strings are dst's now). */
static void move_all(struct acct_set *dst, struct acct_set *src)
{
	for (size_t r = 0; r < src->n; r++)
		move_rec(dst, &src->recs[r]);
}

/* Whether job_id is one of ids[0..n-1]. */
static bool has_id(const uint32_t *ids, size_t n, uint32_t job_id)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i] == job_id)
			return true;
	return false;
}

/* Removes from set the records of the array jobs ids[0..n-1]. */
static void drop_jobs(struct acct_set *set, const uint32_t *ids, size_t n)
{
	size_t m = 0;

	for (size_t r = 0; r < set->n; r++) {
		struct acct_rec *rec = &set->recs[r];

		if (has_id(ids, n, rec->array_job_id)) {
			free(rec->pending_tasks);
			free(rec->nodes);
			free(rec->reason);
			continue;
		}
		set->recs[m++] = *rec;
	}
	set->n = m;
}

/*
 * Whether some task of part has no row in set (nor in its pending record)
 * while the array's own row is not in set either: see slb_acct_array_row.
 */
static bool unaccounted(const struct acct_set *set, const struct slb_acct_part *part)
{
	uint32_t *buf = xcalloc(part->ntasks ? part->ntasks : 1, sizeof(*buf));
	bool left = slb_acct_uncovered(buf, set, part) && !slb_acct_array_row(set, part->job_id);

	free(buf);
	return left;
}

/* Reads the array jobs ids[0..n-1] whole into set, in place of the rows set has of them. */
static int read_whole_instead(struct acct_set *set, const uint32_t *ids, size_t n)
{
	if (!n)
		return 0;
	drop_jobs(set, ids, n);
	return query(set, ids, n, NULL, 0, false, 0, false);
}

/* SLB_ACCT_MAX_NAMED, or SWEEP_DEBUG_NAMED for tests (a sweep of hundreds of tasks costs minutes). */
static size_t max_named(void)
{
	const char *env = getenv("SWEEP_DEBUG_NAMED");
	unsigned long v;
	char *end;

	if (!env || !*env)
		return SLB_ACCT_MAX_NAMED;
	errno = 0;
	v = strtoul(env, &end, 10);
	return errno || *end || v > SLB_ACCT_MAX_NAMED ? SLB_ACCT_MAX_NAMED : (size_t)v;
}

/*
 * The windowed parts of plan, into set (no row of their array jobs yet):
 * one query of their array jobs' rows that have not ended or ended at the
 * earliest since or later. Every row of their tasks not kept is among
 * those (acct_cache_entry.since), so a task left without a row either
 * started a moment ago, while the array's own row (the pending record)
 * is there, or had a row that ended earlier than its since said (a late
 * end time): that array job is read whole instead.
 */
static int read_windowed(struct acct_set *set, const struct slb_acct_plan *plan, bool gpu_tres)
{
	uint32_t *ids = xcalloc(plan->nwindowed ? plan->nwindowed : 1, sizeof(*ids));
	uint32_t *whole = xcalloc(plan->nwindowed ? plan->nwindowed : 1, sizeof(*whole));
	size_t nwhole = 0;
	int64_t since = INT64_MAX;
	int ret;

	for (size_t p = 0; p < plan->nwindowed; p++) {
		ids[p] = plan->windowed[p].job_id;
		if (plan->windowed[p].since < since)
			since = plan->windowed[p].since;
	}
	ret = query(set, ids, plan->nwindowed, NULL, 0, false, since, gpu_tres);
	if (ret < 0)
		goto out;
	for (size_t p = 0; p < plan->nwindowed; p++)
		if (unaccounted(set, &plan->windowed[p]))
			whole[nwhole++] = plan->windowed[p].job_id;
	ret = read_whole_instead(set, whole, nwhole);
out:
	free(whole);
	free(ids);
	return ret;
}

/*
 * The job records (without steps) of the whole array jobs ids[0..n-1] and
 * of the parts' tasks, in set (read_windowed reads the windowed ones). The
 * tasks are named (slb_acct_plan_parts), so slurmdbd returns the rows of
 * the tasks not kept and no other; tasks that have no row of their own
 * yet are pending in the array's pending record, which no (job, task)
 * pair can name (its task id is NO_VAL, which
 * means "every task"): it is read, only then, with the rows of the named
 * parts that have not ended (a second query over their whole array jobs
 * from now on: the pending record and the running tasks). Neither is
 * needed once the array's own row is a task (none is pending). A part
 * whose tasks are still not all covered and whose own row was not seen
 * (its pending record ended: cancelled before they started) is read whole,
 * as before.
 */
static int read_parts(struct acct_set *set, const uint32_t *ids, size_t n,
                      const struct slb_acct_part *parts, size_t nparts, bool gpu_tres)
{
	struct slb_acct_plan plan;
	struct acct_set more;
	uint32_t *open = xcalloc(nparts ? nparts : 1, sizeof(*open));
	uint32_t *whole = xcalloc(nparts ? nparts : 1, sizeof(*whole));
	size_t nopen = 0, nwhole = 0;
	int ret;

	acct_set_init(&more);
	slb_acct_plan_parts(&plan, ids, n, parts, nparts, max_named());
	ret = query(set, plan.whole, plan.nwhole, plan.named, plan.nnamed, false, 0, gpu_tres);
	if (ret < 0)
		goto out;
	if (plan.nwindowed) {
		ret = read_windowed(set, &plan, gpu_tres && !plan.nwhole && !plan.nnamed);
		if (ret < 0)
			goto out;
	}
	/* Once the pending record became a task (it has the array's own row), none is pending. */
	for (size_t p = 0; p < plan.nnamed; p++)
		if (unaccounted(set, &plan.named[p]))
			open[nopen++] = plan.named[p].job_id;
	if (!nopen)
		goto out;
	ret = query(&more, open, nopen, NULL, 0, false, (int64_t)time(NULL), false);
	if (ret < 0)
		goto out;
	/*
	 * Of the unfinished rows of named parts: their pending records, and
	 * the rows of tasks set has no record of (started since set was read).
	 */
	slb_acct_merge(set, 0, &more);
	/*
	 * Tasks still not covered while the array's own row is there (the
	 * pending record, or the task it became) have no row in slurmdbd yet:
	 * they started a moment ago, and a whole read would not show them
	 * either. Without that row the pending record ended (cancelled before
	 * its tasks started): read whole.
	 */
	for (size_t p = 0; p < plan.nnamed; p++)
		if (has_id(open, nopen, plan.named[p].job_id) && unaccounted(set, &plan.named[p]))
			whole[nwhole++] = plan.named[p].job_id;
	ret = read_whole_instead(set, whole, nwhole);
out:
	acct_set_release(&more);
	slb_acct_plan_release(&plan);
	free(whole);
	free(open);
	return ret;
}

/*
 * A read with steps of parts: their job records without steps
 * (read_parts: what `sacct -X` costs, slurmdbd reads no step per record),
 * then, together with the whole array jobs, the steps of the parts' tasks
 * that ended since they were last kept. A task still running has no step
 * statistics yet, and a kept one has them in the store: asking for theirs
 * is what made a refresh of a big running array cost as much as `sacct
 * -j`, since slurmdbd looks up steps per returned record even when the
 * filter matches none.
 */
static int fetch_parts_with_steps(struct acct_set *out, const uint32_t *ids, size_t n,
                                  const struct slb_acct_part *parts, size_t nparts)
{
	struct acct_set first;
	struct slb_acct_part *ended = xcalloc(nparts, sizeof(*ended));
	uint32_t **bufs = xcalloc(nparts, sizeof(*bufs));
	size_t nended = 0, from = out->n;
	int ret;

	acct_set_init(&first);
	/* The GPU TRES ids too: the second query may have nothing to ask. */
	ret = read_parts(&first, NULL, 0, parts, nparts, true);
	if (ret < 0)
		goto out;
	out->tres_gpuutil = first.tres_gpuutil;
	out->tres_gpumem = first.tres_gpumem;
	out->gpu_recorded = first.gpu_recorded;
	for (size_t p = 0; p < nparts; p++) {
		bufs[p] = xcalloc(parts[p].ntasks ? parts[p].ntasks : 1, sizeof(*bufs[p]));
		ended[nended].job_id = parts[p].job_id;
		ended[nended].tasks = bufs[p];
		ended[nended].ntasks = slb_acct_ended_tasks(bufs[p], &first, &parts[p]);
		if (ended[nended].ntasks)
			nended++;
	}
	ret = query(out, ids, n, ended, nended, true, 0, false);
	if (ret < 0)
		goto out;
	slb_acct_merge(out, from, &first);
out:
	acct_set_release(&first);
	for (size_t p = 0; p < nparts; p++)
		free(bufs[p]);
	free(bufs);
	free(ended);
	return ret;
}

int slb_acct_fetch_parts(struct acct_set *out, const uint32_t *array_job_ids, size_t n,
                         const struct slb_acct_part *parts, size_t nparts, bool with_steps)
{
	struct acct_set set;
	int ret;

	if (!nparts)
		return query(out, array_job_ids, n, NULL, 0, with_steps, 0, false);
	if (with_steps)
		return fetch_parts_with_steps(out, array_job_ids, n, parts, nparts);
	acct_set_init(&set);
	ret = read_parts(&set, array_job_ids, n, parts, nparts, false);
	if (ret == 0)
		move_all(out, &set);
	acct_set_release(&set);
	return ret;
}
