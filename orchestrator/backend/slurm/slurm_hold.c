/*
 * Held tasks: the controller's pending reason laid over slurmdbd's PENDING
 * records (slurm_hold.h). Accounting keeps no reliable reason for a
 * pending job: a task held after it was split from its array keeps the
 * reason it had then ("JobArrayTaskLimit") and only a priority of 0, and
 * its begin time is not recorded at all.
 */
#include "slurm_hold.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "error.h"
#include "slurm_acct.h"
#include "slurm_conn.h"
#include "strbuf.h"

#include "banned.h"

enum acct_hold slb_hold_of(const slurm_job_info_t *job)
{
	if ((job->job_state & JOB_STATE_BASE) != JOB_PENDING)
		return ACCT_HOLD_NONE;
	switch (job->state_reason) {
	case WAIT_HELD_USER:
		return ACCT_HOLD_USER;
	case WAIT_HELD:
		return ACCT_HOLD_ADMIN;
	case WAIT_DEPENDENCY:
		return ACCT_HOLD_DEPENDENCY;
	case WAIT_DEP_INVALID:
		return ACCT_HOLD_DEP_NEVER;
	case WAIT_TIME:
		return ACCT_HOLD_BEGIN;
	default:
		break;
	}
	/* Slurm holds a job by setting its priority to 0; the reason follows. */
	if (job->priority == 0)
		return ACCT_HOLD_ADMIN;
	/*
	 * Just submitted, before the scheduler's first look, a job has no
	 * reason yet (seen on 26.05 right after sbatch --begin): a begin time
	 * ahead says what it waits for.
	 */
	if (job->state_reason == WAIT_NO_REASON && job->eligible_time > time(NULL))
		return ACCT_HOLD_BEGIN;
	/* The same for a dependency not yet looked at. */
	if (job->state_reason == WAIT_NO_REASON && job->dependency && *job->dependency &&
	    strcmp(job->dependency, "(null)") != 0)
		return ACCT_HOLD_DEPENDENCY;
	return ACCT_HOLD_NONE;
}

static bool has_text(const char *s)
{
	return s && *s && strcmp(s, "(null)") != 0;
}

char *slb_hold_reason(const slurm_job_info_t *job, enum acct_hold hold)
{
	char when[32];
	time_t t;
	struct tm tm;

	switch (hold) {
	case ACCT_HOLD_USER:
		return xstrdup("held by the user");
	case ACCT_HOLD_ADMIN:
		if (has_text(job->state_desc))
			return xstrfmt("held by an administrator: %s", job->state_desc);
		return xstrdup("held by an administrator");
	case ACCT_HOLD_DEPENDENCY:
		if (has_text(job->dependency))
			return xstrfmt("waiting for dependency %s", job->dependency);
		return xstrdup("waiting for a dependency");
	case ACCT_HOLD_DEP_NEVER:
		if (has_text(job->dependency))
			return xstrfmt("waiting for a dependency that can never be met: %s",
			               job->dependency);
		return xstrdup("waiting for a dependency that can never be met");
	case ACCT_HOLD_BEGIN:
		t = job->start_time;
		if (t <= 0 || t == (time_t)NO_VAL || t == (time_t)INFINITE ||
		    !localtime_r(&t, &tm) ||
		    !strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm))
			return xstrdup("waiting for its begin time");
		return xstrfmt("begins at %s", when);
	case ACCT_HOLD_NONE:
	case ACCT_NHOLDS:
		break;
	}
	return NULL;
}

/* The controller's record of rec's task: by array task id, or the array's pending record. */
static const slurm_job_info_t *find_job(const job_info_msg_t *msg, const struct acct_rec *rec)
{
	for (uint32_t i = 0; i < msg->record_count; i++) {
		const slurm_job_info_t *job = &msg->job_array[i];

		if (job->array_job_id != rec->array_job_id)
			continue;
		if (rec->array_task_id == ACCT_NO_TASK ? job->array_task_id == NO_VAL
		                                       : job->array_task_id == rec->array_task_id)
			return job;
	}
	return NULL;
}

/* A record of the held job, for an array job accounting has no record of. */
static void add_held(struct acct_set *set, const slurm_job_info_t *job, enum acct_hold hold,
                     const char *spec)
{
	struct acct_rec *rec = acct_set_add(set);

	rec->array_job_id = job->array_job_id;
	rec->job_id = job->job_id;
	if (job->array_task_id == NO_VAL) {
		/* No task of it started: its pending record holds every task it was submitted with.
		 */
		rec->array_task_id = ACCT_NO_TASK;
		rec->pending_tasks = xstrdup(spec);
	} else {
		rec->array_task_id = job->array_task_id;
	}
	rec->state = TS_HELD;
	rec->hold = hold;
	rec->reason = slb_hold_reason(job, hold);
	if (job->submit_time > 0)
		rec->submit_time = (int64_t)job->submit_time;
}

size_t slb_hold_apply(struct acct_set *set, const job_info_msg_t *msg, uint32_t array_job_id,
                      const char *spec)
{
	size_t n = 0, nrecs = set->n;
	bool known = false;

	for (size_t r = 0; msg && r < nrecs; r++) {
		struct acct_rec *rec = &set->recs[r];
		const slurm_job_info_t *job;
		enum acct_hold hold;

		if (rec->array_job_id != array_job_id)
			continue;
		known = true;
		if (rec->state != TS_PENDING || rec->step_index != ACCT_NO_STEP)
			continue;
		job = find_job(msg, rec);
		if (!job || (hold = slb_hold_of(job)) == ACCT_HOLD_NONE)
			continue;
		rec->state = TS_HELD;
		rec->hold = hold;
		free(rec->reason);
		rec->reason = slb_hold_reason(job, hold);
		n++;
	}
	if (known || !msg || !spec || !*spec)
		return n;
	for (uint32_t i = 0; i < msg->record_count; i++) {
		const slurm_job_info_t *job = &msg->job_array[i];
		enum acct_hold hold = slb_hold_of(job);

		if (job->array_job_id == array_job_id && hold != ACCT_HOLD_NONE) {
			add_held(set, job, hold, spec);
			n++;
		}
	}
	return n;
}

/* Whether sorted ids[0..n-1] has id. */
static bool has_id(const uint32_t *ids, size_t n, uint32_t id)
{
	return n && bsearch(&id, ids, n, sizeof(*ids), slb_cmp_u32);
}

void slb_hold_mark(struct acct_set *set, const struct array_rec *arrays, size_t narrays)
{
	uint32_t *known = xcalloc(set->n ? set->n : 1, sizeof(*known));
	uint32_t *pending = xcalloc(set->n ? set->n : 1, sizeof(*pending));
	size_t nknown = 0, npending = 0;
	bool ready = false;

	for (size_t r = 0; r < set->n; r++) {
		known[nknown++] = set->recs[r].array_job_id;
		if (set->recs[r].state == TS_PENDING && set->recs[r].step_index == ACCT_NO_STEP &&
		    set->recs[r].maybe_held)
			pending[npending++] = set->recs[r].array_job_id;
	}
	qsort(known, nknown, sizeof(*known), slb_cmp_u32);
	qsort(pending, npending, sizeof(*pending), slb_cmp_u32);
	for (size_t a = 0; a < narrays; a++) {
		uint32_t id = arrays[a].job_id;
		job_info_msg_t *msg = NULL;
		int err;

		if (has_id(known, nknown, id) && !has_id(pending, npending, id))
			continue;
		if (!ready && slb_conn_init() < 0)
			break;
		ready = true;
		if (slb_load_job(&msg, id, SHOW_ALL) == SLURM_SUCCESS) {
			slb_hold_apply(set, msg, id, arrays[a].spec);
			slurm_free_job_info_msg(msg);
			continue;
		}
		err = slb_errno();
		if (err == ESLURM_INVALID_JOB_ID)
			continue; /* ended, or gone from the controller since accounting was read */
		warning("cannot ask slurmctld which pending tasks are held: %s; held tasks show as "
		        "PENDING",
		        slurm_strerror(err));
		break;
	}
	free(known);
	free(pending);
}
