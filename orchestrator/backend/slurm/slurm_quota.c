/*
 * The limits a submission meets, read the way slurmctld applies them:
 * every array task is one job for MaxJobCount and for the QOS and
 * association MaxSubmitJobs limits, pending or running.
 */
#include "slurm_backend.h"
#include "slurm_compat.h"
#include "slurm_conn.h"

#include <errno.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "quota.h"
#include "strbuf.h"

#include "banned.h"

static int job_is_queued(const slurm_job_info_t *job)
{
	uint32_t base = job->job_state & JOB_STATE_BASE;

	return base == JOB_PENDING || base == JOB_RUNNING || base == JOB_SUSPENDED ||
	       (job->job_state & JOB_COMPLETING);
}

/* One record's jobs: its pending array tasks, or 1. */
static uint64_t jobs_of(const slurm_job_info_t *job)
{
	if (job->array_job_id && job->array_task_id == NO_VAL && job->array_task_str) {
		uint64_t n = quota_count_tasks(job->array_task_str);

		return n ? n : 1;
	}
	return 1;
}

static int same(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

/* Jobs counted against each scope a limit may have. */
struct usage {
	uint64_t records;      /* every record slurmctld holds (MaxJobCount) */
	uint64_t user;         /* the user's, queued */
	uint64_t user_account; /* the user's in the account */
	uint64_t account;      /* everyone's in the account */
	uint64_t user_qos;     /* the user's in the QOS */
	uint64_t account_qos;  /* the account's in the QOS */
	uint64_t qos;          /* everyone's in the QOS */
	uint64_t user_running; /* the user's running */
};

static int count_usage(struct usage *u, uid_t uid, const char *account, const char *qos)
{
	job_info_msg_t *msg = NULL;

	memset(u, 0, sizeof(*u));
	if (slurm_load_jobs((time_t)0, &msg, SHOW_ALL) != SLURM_SUCCESS)
		return error(
		    "cannot reach slurmctld to count the jobs queued: %s (is the controller "
		    "running? 'scontrol ping' tells)",
		    slurm_strerror(slb_errno()));
	for (uint32_t i = 0; i < msg->record_count; i++) {
		const slurm_job_info_t *job = &msg->job_array[i];
		uint64_t n = jobs_of(job);
		int mine = job->user_id == uid, in_acct = same(job->account, account),
		    in_qos = same(job->qos, qos);

		u->records += n;
		if (!job_is_queued(job))
			continue;
		if (mine) {
			u->user += n;
			u->user_account += in_acct ? n : 0;
			u->user_qos += in_qos ? n : 0;
			if ((job->job_state & JOB_STATE_BASE) == JOB_RUNNING)
				u->user_running += n;
		}
		u->account += in_acct ? n : 0;
		u->account_qos += in_acct && in_qos ? n : 0;
		u->qos += in_qos ? n : 0;
	}
	slurm_free_job_info_msg(msg);
	return 0;
}

static void add_limit(struct rollout_limit **arr, size_t *n, uint32_t max, uint64_t used,
                      const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void add_limit(struct rollout_limit **arr, size_t *n, uint32_t max, uint64_t used,
                      const char *fmt, ...)
{
	struct rollout_limit *l;
	va_list ap;

	if (max == INFINITE || max == NO_VAL || max == 0)
		return;
	*arr = xrealloc(*arr, (*n + 1) * sizeof(**arr));
	l = &(*arr)[(*n)++];
	memset(l, 0, sizeof(*l));
	l->max = max;
	l->used = used > UINT32_MAX ? UINT32_MAX : (uint32_t)used;
	va_start(ap, fmt);
	vsnprintf(l->what, sizeof(l->what), fmt, ap);
	va_end(ap);
}

static slb_list_t str_list(const char *s)
{
	slb_list_t l = slurm_list_create(free);

	slurm_list_append(l, xstrdup(s));
	return l;
}

/*
 * The user's association for the account (the default one when account is
 * NULL), with its limits as slurmctld applies them (inherited from the
 * account where unset), and the QOS it names.
 */
static int read_db(struct quota *q, const char *account, const char *qos, void *conn,
                   slurmdb_assoc_rec_t **assoc_out, slb_list_t *assocs_out, slb_list_t *qoses_out)
{
	slurmdb_assoc_cond_t acond;
	slurmdb_qos_cond_t qcond;
	slb_list_t assocs, qoses;
	slb_list_itr_t it;
	slurmdb_assoc_rec_t *a, *pick = NULL;
	const char *cluster = slb_conn_name();

	memset(&acond, 0, sizeof(acond));
	acond.user_list = str_list(q->user);
	if (account)
		acond.acct_list = str_list(account);
	if (cluster && *cluster)
		acond.cluster_list = str_list(cluster);
	assocs = slurmdb_associations_get(conn, &acond);
	slurm_list_destroy(acond.user_list);
	if (acond.acct_list)
		slurm_list_destroy(acond.acct_list);
	if (acond.cluster_list)
		slurm_list_destroy(acond.cluster_list);
	if (!assocs)
		return -1;
	it = slurm_list_iterator_create(assocs);
	while ((a = slurm_list_next(it))) {
		if (a->partition && *a->partition)
			continue; /* a partition's own association: not the one sbatch picks */
		if (account ? same(a->acct, account) : a->is_def) {
			pick = a;
			break;
		}
	}
	slurm_list_iterator_destroy(it);
	*assocs_out = assocs;
	*assoc_out = pick;

	memset(&qcond, 0, sizeof(qcond));
	qoses = slurmdb_qos_get(conn, &qcond);
	*qoses_out = qoses;
	(void)qos;
	return qoses ? 0 : -1;
}

static slurmdb_qos_rec_t *find_qos(slb_list_t qoses, const char *name, uint32_t id)
{
	slb_list_itr_t it = slurm_list_iterator_create(qoses);
	slurmdb_qos_rec_t *r;

	while ((r = slurm_list_next(it)))
		if (name ? same(r->name, name) : r->id == id)
			break;
	slurm_list_iterator_destroy(it);
	return r;
}

int slb_quota_read(struct quota *q, const char *account, const char *qos)
{
	slurm_conf_t *conf = NULL;
	struct passwd *pw;
	struct usage u;
	void *conn = NULL;
	slb_list_t assocs = NULL, qoses = NULL;
	slurmdb_assoc_rec_t *assoc = NULL;
	slurmdb_qos_rec_t *qrec = NULL;
	uint32_t max_jobs;
	int ret = 0;

	quota_release(q);
	if (slb_conn_init() < 0)
		return SWEEP_ERR;
	if (slurm_load_ctl_conf((time_t)0, &conf) != SLURM_SUCCESS)
		return error("cannot reach slurmctld to read its limits: %s (is the controller "
		             "running? 'scontrol ping' tells)",
		             slurm_strerror(slb_errno()));
	q->max_array = conf->max_array_sz;
	max_jobs = conf->max_job_cnt;
	slb_free_ctl_conf(conf);

	pw = getpwuid(getuid());
	q->user = pw ? xstrdup(pw->pw_name) : xstrfmt("%u", (unsigned)getuid());
	q->account = account ? xstrdup(account) : NULL;
	q->qos = qos ? xstrdup(qos) : NULL;

	/* It returns a handle even when slurmdbd is down; errno tells. */
	errno = 0;
	conn = slurmdb_connection_get(NULL);
	if (!conn || errno) {
		q->note =
		    xstrfmt("slurmdbd did not answer (%s): association and QOS limits unknown",
		            slurm_strerror(errno ? errno : ESLURM_DB_CONNECTION));
	} else if (read_db(q, account, qos, conn, &assoc, &assocs, &qoses) < 0) {
		q->note = xstrdup("slurmdbd did not return the association and QOS limits");
	} else if (!assoc) {
		q->note = xstrfmt("no association for user '%s'%s%s%s: sbatch will refuse the job "
		                  "where the cluster enforces associations",
		                  q->user, account ? " and account '" : "", account ? account : "",
		                  account ? "'" : "");
	} else {
		if (!q->account)
			q->account = xstrdup(assoc->acct);
		if (q->qos)
			qrec = find_qos(qoses, q->qos, 0);
		else if (assoc->def_qos_id && assoc->def_qos_id != NO_VAL)
			qrec = find_qos(qoses, NULL, assoc->def_qos_id);
		else
			qrec = find_qos(qoses, "normal", 0);
		if (!q->qos && qrec)
			q->qos = xstrdup(qrec->name);
	}

	if (count_usage(&u, getuid(), q->account, q->qos) < 0) {
		ret = SWEEP_ERR;
		goto out;
	}
	q->queued = u.user > UINT32_MAX ? UINT32_MAX : (uint32_t)u.user;
	add_limit(&q->submit, &q->nsubmit, max_jobs, u.records,
	          "MaxJobCount (slurmctld's job records, everyone's)");
	if (assoc) {
		add_limit(&q->submit, &q->nsubmit, assoc->max_submit_jobs, u.user_account,
		          "association (user '%s', account '%s') MaxSubmitJobs", q->user,
		          q->account);
		add_limit(&q->submit, &q->nsubmit, assoc->grp_submit_jobs, u.account,
		          "account '%s' GrpSubmitJobs", q->account);
		add_limit(&q->run, &q->nrun, assoc->max_jobs, u.user_running,
		          "association (user '%s', account '%s') MaxJobs", q->user, q->account);
	}
	if (qrec) {
		add_limit(&q->submit, &q->nsubmit, qrec->max_submit_jobs_pu, u.user_qos,
		          "QOS '%s' MaxSubmitJobsPerUser", qrec->name);
		add_limit(&q->submit, &q->nsubmit, qrec->max_submit_jobs_pa, u.account_qos,
		          "QOS '%s' MaxSubmitJobsPerAccount", qrec->name);
		add_limit(&q->submit, &q->nsubmit, qrec->grp_submit_jobs, u.qos,
		          "QOS '%s' GrpSubmitJobs", qrec->name);
		add_limit(&q->run, &q->nrun, qrec->max_jobs_pu, u.user_running,
		          "QOS '%s' MaxJobsPerUser", qrec->name);
		add_limit(&q->run, &q->nrun, qrec->max_jobs_pa, u.user_running,
		          "QOS '%s' MaxJobsPerAccount", qrec->name);
	} else if (q->qos && conn && !q->note) {
		q->note = xstrfmt("QOS '%s' is not defined in slurmdbd", q->qos);
	}
out:
	if (assocs)
		slurm_list_destroy(assocs);
	if (qoses)
		slurm_list_destroy(qoses);
	if (conn)
		slurmdb_connection_close(&conn);
	return ret;
}
