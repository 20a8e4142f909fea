/*
 * The Slurm backend: limits read from the controller, cancellation, finding
 * the jobs of a submission that died, and the backend_ops table.
 * Submission is in slurm_submit.c, accounting in slurm_acct.c, libslurm set
 * up once in slurm_conn.c.
 */
#define _GNU_SOURCE /* dladdr */
#include "slurm_backend.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "acct_cache.h"
#include "array.h"
#include "slurm_acct.h"
#include "slurm_compat.h"
#include "slurm_conn.h"
#include "slurm_hold.h"
#include "slurm_pack.h"
#include "error.h"
#include "store.h"
#include "proc.h"
#include "quota.h"
#include "strbuf.h"

#include "banned.h"

/* Set by the build (cmake/slurm.cmake) from the library it linked. */
#ifndef SWEEP_SLURM_SONAME
#define SWEEP_SLURM_SONAME ""
#endif
#ifndef SWEEP_SLURM_API
#define SWEEP_SLURM_API 0
#endif

void slb_versions(struct backend_versions *out)
{
	long api = slurm_api_version();
	Dl_info info;
	char real[PATH_MAX];

	memset(out, 0, sizeof(*out));
	snprintf(out->built_release, sizeof(out->built_release), "%d.%02d.%d",
	         (int)SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER),
	         (int)SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER),
	         (int)SLURM_VERSION_MICRO(SLURM_VERSION_NUMBER));
	out->built_soname = SWEEP_SLURM_SONAME;
	out->built_api = SWEEP_SLURM_API;
	/* Not SLURM_VERSION_*: these are libtool's current.revision.age. */
	out->running_api_major = (unsigned)SLURM_VERSION_MAJOR(api);
	snprintf(out->running_api, sizeof(out->running_api), "%u.%u.%u", out->running_api_major,
	         (unsigned)SLURM_VERSION_MINOR(api), (unsigned)SLURM_VERSION_MICRO(api));
	if (dladdr((void *)slurm_api_version, &info) && info.dli_fname)
		snprintf(out->running_path, sizeof(out->running_path), "%s",
		         realpath(info.dli_fname, real) ? real : info.dli_fname);
}

int slb_max_array_size(uint32_t *out)
{
	slurm_conf_t *conf = NULL;

	if (slb_conn_init() < 0)
		return SWEEP_ERR;
	if (slurm_load_ctl_conf((time_t)0, &conf) != SLURM_SUCCESS)
		return error("cannot reach slurmctld to read MaxArraySize: %s (is the controller "
		             "running? 'scontrol ping' tells)",
		             slurm_strerror(slb_errno()));
	*out = conf->max_array_sz;
	slb_free_ctl_conf(conf);
	return 0;
}

int slb_cancel(const uint32_t *job_ids, size_t n)
{
	int ret = 0;

	if (slb_conn_init() < 0)
		return SWEEP_ERR;
	for (size_t i = 0; i < n; i++) {
		int err;

		if (slb_kill_job(job_ids[i], SIGKILL, 0) == SLURM_SUCCESS)
			continue;
		err = slb_errno();
		if (err == ESLURM_ALREADY_DONE || err == ESLURM_INVALID_JOB_ID)
			continue; /* finished, or long gone from the controller */
		ret = error("cannot cancel job %u: %s", job_ids[i], slurm_strerror(err));
	}
	return ret;
}

/* Moves one record from src to the end of dst (src's strings are dst's now). */
static void move_record(struct acct_set *dst, struct acct_rec *rec)
{
	*acct_set_add(dst) = *rec;
	rec->pending_tasks = NULL;
	rec->nodes = NULL;
	rec->reason = NULL;
}

/*
 * Moves the records of array job job_id (all when job_id is 0) from src
 * to the end of dst; of the tasks of k kept one by one (k not NULL), only
 * theirs.
 */
static void move_records(struct acct_set *dst, struct acct_set *src, uint32_t job_id,
                         const struct acct_cache_entry *k)
{
	for (size_t r = 0; r < src->n; r++) {
		struct acct_rec *rec = &src->recs[r];

		if (job_id && rec->array_job_id != job_id)
			continue;
		if (k && !acct_cache_task_kept(k, rec->array_task_id))
			continue;
		move_record(dst, rec);
	}
}

/* The records of one array job, borrowed from set (free only .recs). */
static void records_of(struct acct_set *out, const struct acct_set *set, uint32_t job_id)
{
	acct_set_init(out);
	for (size_t r = 0; r < set->n; r++)
		if (set->recs[r].array_job_id == job_id) {
			ALLOC_GROW(out->recs, out->n + 1, out->alloc);
			out->recs[out->n++] = set->recs[r];
		}
}

/* One array job asked about, and its entry when only its tasks not kept are (a part). */
struct ask {
	const struct array_rec *arr;
	const struct acct_cache_entry *part;
};

static const struct acct_rec *sort_rows;

/* By array task, then in the order of the query (stable groups). */
static int by_task(const void *a, const void *b)
{
	const struct acct_rec *x = &sort_rows[*(const size_t *)a],
	                      *y = &sort_rows[*(const size_t *)b];

	if (x->array_task_id != y->array_task_id)
		return x->array_task_id < y->array_task_id ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/*
 * The tasks of rows (one array job's, not keepable whole) that may be kept
 * one by one now, added to those old keeps: e->tasks, ascending. False
 * when none is new.
 */
static bool keep_tasks(struct acct_cache_entry *e, const struct array_rec *arr,
                       const struct acct_set *rows, const struct acct_cache_entry *old, int64_t now)
{
	size_t *idx = xcalloc(rows->n ? rows->n : 1, sizeof(*idx));
	size_t n = 0, nnew = 0, alloc = 0;
	uint32_t *tasks = NULL;

	for (size_t r = 0; r < rows->n; r++)
		if (rows->recs[r].array_task_id != ACCT_NO_TASK &&
		    !acct_cache_task_kept(old, rows->recs[r].array_task_id))
			idx[n++] = r;
	sort_rows = rows->recs;
	qsort(idx, n, sizeof(*idx), by_task);
	for (size_t i = 0; i < n;) {
		struct acct_set one;
		size_t j = i;

		acct_set_init(&one);
		while (j < n &&
		       rows->recs[idx[j]].array_task_id == rows->recs[idx[i]].array_task_id) {
			ALLOC_GROW(one.recs, one.n + 1, one.alloc);
			one.recs[one.n++] = rows->recs[idx[j++]];
		}
		if (acct_cache_task_keepable(arr, &one, e->with_steps, now, NULL)) {
			ALLOC_GROW(tasks, nnew + 1, alloc);
			tasks[nnew++] = rows->recs[idx[i]].array_task_id;
		}
		free(one.recs);
		i = j;
	}
	free(idx);
	if (!nnew)
		return false;
	for (size_t t = 0; old && old->tasks && t < old->ntasks; t++) {
		ALLOC_GROW(tasks, nnew + 1, alloc);
		tasks[nnew++] = old->tasks[t];
	}
	qsort(tasks, nnew, sizeof(*tasks), slb_cmp_u32);
	e->tasks = tasks;
	e->ntasks = nnew;
	return true;
}

/*
 * The since of e, a part kept from rows (every row of its array job this
 * read has, kept ones included) read at read_at: the earliest end of a
 * row of a task e does not keep, or of the pending record, and at most
 * read_at less the margin (slurm_acct.h), since rows that had not ended
 * end later.
 */
static int64_t since_of(const struct acct_cache_entry *e, const struct acct_set *rows,
                        int64_t read_at)
{
	int64_t since = read_at - SLB_ACCT_SINCE_MARGIN_S;

	for (size_t r = 0; r < rows->n; r++) {
		const struct acct_rec *rec = &rows->recs[r];

		if (rec->end_time > 0 && rec->end_time < since &&
		    (rec->array_task_id == ACCT_NO_TASK ||
		     !acct_cache_task_kept(e, rec->array_task_id)))
			since = rec->end_time;
	}
	return since > 0 ? since : 0;
}

/*
 * After a query sent at read_at: keeps the array jobs asked about whose
 * tasks all finished, else the tasks of theirs that did (not of packed
 * arrays) with the time since which the others have rows, and forgets
 * what was kept of the others. all holds the records of this read, kept
 * ones included. A store that cannot be written (a read-only state folder)
 * costs a query next time, nothing else.
 */
static void keep_finished(struct store *st, const struct sweep_rec *rec, const struct ask *asked,
                          size_t nasked, const struct acct_set *all,
                          const struct acct_cache_entry *kept, size_t nkept, bool with_steps,
                          int64_t read_at)
{
	struct acct_cache_entry *keep = xcalloc(nasked ? nasked : 1, sizeof(*keep));
	uint32_t *drop = xcalloc(nasked ? nasked : 1, sizeof(*drop));
	size_t nkeep = 0, ndrop = 0;
	int64_t now = (int64_t)time(NULL);

	for (size_t a = 0; a < nasked; a++) {
		const struct array_rec *arr = asked[a].arr;
		struct acct_cache_entry *e = &keep[nkeep];
		struct acct_set rows;
		int64_t since;

		records_of(&rows, all, arr->job_id);
		e->job_id = arr->job_id;
		e->submitted_at = arr->submitted_at;
		/* A part's kept tasks have steps when it was asked with steps (acct_cache_partial).
		 */
		e->with_steps = with_steps && (!asked[a].part || asked[a].part->with_steps);
		if (acct_cache_keepable(arr, rec->ntasks, &rows, e->with_steps, now, NULL)) {
			nkeep++;
		} else if (keep_tasks(e, arr, &rows, asked[a].part, now)) {
			e->since = since_of(e, &rows, read_at);
			/*
			 * Read whole (--refresh, or nothing kept was usable): what the
			 * store kept goes, and every row is kept anew, not only new tasks'.
			 */
			if (!asked[a].part)
				drop[ndrop++] = arr->job_id;
			nkeep++;
		} else if (asked[a].part && asked[a].part->tasks &&
		           (since = since_of(asked[a].part, &rows, read_at)) > asked[a].part->since) {
			/*
			 * Nothing new kept: the same tasks again, with this read's
			 * since, so that the next read asks only for what changed
			 * after it (the store writes no row: it has them all).
			 */
			const struct acct_cache_entry *old = asked[a].part;

			*e = *old;
			e->tasks = xcalloc(old->ntasks ? old->ntasks : 1, sizeof(*e->tasks));
			memcpy(e->tasks, old->tasks, old->ntasks * sizeof(*e->tasks));
			e->since = since;
			nkeep++;
		} else if (!asked[a].part && acct_cache_find(kept, nkept, arr->job_id))
			drop[ndrop++] = arr->job_id;
		free(rows.recs);
	}
	if (store_acct_update(st, rec->id, keep, nkeep, all, drop, ndrop) < 0)
		warning("the finished records were not kept: the next command asks slurmdbd again");
	for (size_t k = 0; k < nkeep; k++)
		free(keep[k].tasks);
	free(keep);
	free(drop);
}

/* The array tasks of arr not kept in k; NULL with *n 0 when none, or when unknown (*ok false). */
static uint32_t *tasks_not_kept(const struct array_rec *arr, size_t ntasks,
                                const struct acct_cache_entry *k, size_t *n, bool *ok)
{
	uint32_t *all = NULL;
	size_t nall = 0, m = 0;
	const char *why;

	*n = 0;
	*ok =
	    arr->spec && arr->offset < ntasks &&
	    array_parse_tasks(&all, &nall, arr->spec, (uint32_t)(ntasks - arr->offset), &why) == 0;
	if (!*ok)
		return NULL;
	for (size_t i = 0; i < nall; i++)
		if (!acct_cache_task_kept(k, all[i]))
			all[m++] = all[i];
	*n = m;
	return all;
}

/* What one read asks: whole array jobs (ids) and parts, and the tasks answered from the store. */
struct plan_read {
	struct ask *asked;
	uint32_t *ids;
	struct slb_acct_part *parts;
	uint32_t **part_tasks;
	size_t nasked, nids, nparts, tasks_kept;
};

static void plan_read_init(struct plan_read *p, size_t narrays)
{
	size_t n = narrays ? narrays : 1;

	memset(p, 0, sizeof(*p));
	p->asked = xcalloc(n, sizeof(*p->asked));
	p->ids = xcalloc(n, sizeof(*p->ids));
	p->parts = xcalloc(n, sizeof(*p->parts));
	p->part_tasks = xcalloc(n, sizeof(*p->part_tasks));
}

static void plan_read_release(struct plan_read *p)
{
	for (size_t i = 0; i < p->nparts; i++)
		free(p->part_tasks[i]);
	free(p->part_tasks);
	free(p->parts);
	free(p->ids);
	free(p->asked);
}

/* Adds arr to the read: from the store, as a part, or whole; its kept records go to out. */
static void plan_array(struct plan_read *p, struct acct_set *out, struct acct_set *stored,
                       const struct array_rec *arr, size_t ntasks, const struct acct_cache_entry *k,
                       bool steps, bool refresh)
{
	bool ok = false;
	size_t n = 0;
	uint32_t *tasks = NULL;

	if (!acct_cache_must_query(arr, k, steps, refresh)) {
		move_records(out, stored, arr->job_id, NULL);
		return;
	}
	if (acct_cache_partial(arr, k, steps, refresh))
		tasks = tasks_not_kept(arr, ntasks, k, &n, &ok);
	p->asked[p->nasked].arr = arr;
	if (!ok) {
		free(tasks);
		p->ids[p->nids++] = arr->job_id;
		p->nasked++;
		return;
	}
	p->asked[p->nasked++].part = k;
	p->part_tasks[p->nparts] = tasks;
	p->parts[p->nparts].job_id = arr->job_id;
	p->parts[p->nparts].tasks = tasks;
	p->parts[p->nparts].since = k->since;
	p->parts[p->nparts++].ntasks = n;
	p->tasks_kept += k->ntasks;
	move_records(out, stored, arr->job_id, k);
}

/* Moves fresh records to out, but not those of tasks a part has kept (out has the kept ones). */
static void add_fresh(struct acct_set *out, struct acct_set *fresh, const struct plan_read *p)
{
	for (size_t r = 0; r < fresh->n; r++) {
		struct acct_rec *rec = &fresh->recs[r];
		bool kept = false;

		for (size_t a = 0; a < p->nasked && !kept; a++)
			kept = p->asked[a].part && p->asked[a].arr->job_id == rec->array_job_id &&
			       acct_cache_task_kept(p->asked[a].part, rec->array_task_id);
		if (!kept)
			move_record(out, rec);
	}
}

static int slb_records(struct acct_set *out, struct backend_read *rd, struct store *st,
                       const struct sweep_rec *rec, const struct array_rec *arrays, size_t narrays)
{
	struct acct_cache_entry *kept = NULL;
	size_t nkept = 0;
	struct acct_set stored, fresh;
	struct plan_read p;
	unsigned before = slb_acct_queries();
	unsigned long steps_before = slb_acct_step_records(), records_before = slb_acct_records();
	int64_t read_at = (int64_t)time(NULL);
	bool steps = rd->steps;
	int ret = 0;

	acct_set_init(&stored);
	acct_set_init(&fresh);
	plan_read_init(&p, narrays);
	/* The kept records are an optimisation: when they cannot be read, ask. */
	if (!rd->refresh && store_acct_load(st, &kept, &nkept, &stored, rec->id) < 0)
		warning("reading every record from slurmdbd instead");
	/* A packed task's record is its job step: packed arrays are always read with steps. */
	for (size_t a = 0; a < narrays; a++)
		if (arrays[a].pack > 1)
			steps = true;
	for (size_t a = 0; a < narrays; a++)
		plan_array(&p, out, &stored, &arrays[a], rec->ntasks,
		           acct_cache_find(kept, nkept, arrays[a].job_id), steps, rd->refresh);
	rd->kept = narrays - p.nasked;
	rd->asked = p.nasked;
	rd->tasks_kept = p.tasks_kept;
	if (p.nasked) {
		ret = slb_acct_fetch_parts(&fresh, p.ids, p.nids, p.parts, p.nparts, steps);
		if (ret < 0)
			goto out;
		/* Packed tasks recorded by sweep itself, beside their array tasks' records. */
		slb_pack_add(&fresh, 0, rec->dir, arrays, narrays, (int64_t)time(NULL));
		add_fresh(out, &fresh, &p);
		keep_finished(st, rec, p.asked, p.nasked, out, kept, nkept, steps, read_at);
		/* After keeping: a held task is pending, and accounting's record is what is kept. */
		slb_hold_mark(out, arrays, narrays);
	}
out:
	rd->queries = slb_acct_queries() - before;
	rd->step_records = slb_acct_step_records() - steps_before;
	rd->records = slb_acct_records() - records_before;
	acct_set_release(&stored);
	acct_set_release(&fresh);
	acct_cache_entries_free(kept, nkept);
	plan_read_release(&p);
	return ret;
}

static int slb_cancel_arrays(struct store *st, const struct sweep_rec *rec,
                             const struct array_rec *arrays, size_t narrays)
{
	uint32_t *ids = array_recs_job_ids(arrays, narrays);
	int ret;

	(void)st;
	(void)rec;
	ret = slb_cancel(ids, narrays);
	free(ids);
	return ret;
}

/*
 * The controller still knows jobs for a while after they end (MinJobAge), and
 * always while they pend or run: look for this sweep's script among them.
 * sbatch records the script and its argument (the index offset) as the
 * job's command.
 */
static int slb_find(struct array_rec **out, size_t *n, const struct sweep_rec *rec)
{
	job_info_msg_t *msg = NULL;
	struct array_rec *found = NULL;
	size_t nfound = 0, alloc = 0, len = strlen(rec->script);

	*out = NULL;
	*n = 0;
	if (slb_conn_init() < 0)
		return SWEEP_ERR;
	if (slurm_load_jobs((time_t)0, &msg, SHOW_ALL) != SLURM_SUCCESS)
		return error("cannot reach slurmctld to look for the jobs of sweep '%s': %s",
		             rec->name, slurm_strerror(slb_errno()));
	for (uint32_t i = 0; i < msg->record_count; i++) {
		const slurm_job_info_t *job = &msg->job_array[i];
		const char *cmd = job->command, *arg;
		size_t k;

		/* Same name and script, submitted after the sweep was recorded: a
		 * sweep of an earlier, deleted state folder may have had the same path. */
		if (!job->array_job_id || !job->name || strcmp(job->name, rec->name) || !cmd ||
		    strncmp(cmd, rec->script, len) || (cmd[len] && cmd[len] != ' ') ||
		    (int64_t)job->submit_time < rec->created_at)
			continue;
		for (k = 0; k < nfound; k++)
			if (found[k].job_id == job->array_job_id)
				break;
		if (k < nfound)
			continue;
		ALLOC_GROW(found, nfound + 1, alloc);
		memset(&found[nfound], 0, sizeof(found[nfound]));
		found[nfound].job_id = job->array_job_id;
		arg = cmd[len] ? cmd + len + 1 : "0";
		found[nfound].offset = (uint32_t)strtoul(arg, NULL, 10);
		found[nfound].attempt = 1;
		found[nfound].submitted_at = (int64_t)job->submit_time;
		nfound++;
	}
	slurm_free_job_info_msg(msg);
	*out = found;
	*n = nfound;
	return 0;
}

const struct backend_ops slb_backend = {
    .name = "slurm",
    .submitter = "sbatch",
    .submit_command = "sbatch --parsable",
    .taker = "Slurm",
    .found_by = "found by job name and script",
    .no_record_yet = "slurmdbd has no record yet: it hears of new array jobs a moment after "
                     "sbatch returns",
    .no_record = "slurmdbd has no record of these array jobs: purged from accounting, or "
                 "submitted to another cluster?",
    .max_array_size = slb_max_array_size,
    .submit = slb_submit,
    .records = slb_records,
    .cancel = slb_cancel_arrays,
    .find = slb_find,
    .limits = slb_quota_read,
    .followup = slb_followup,
    .mail_at_end = slb_mail_at_end,
};
