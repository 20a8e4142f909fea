/*
 * The Slurm backend: libslurm set up once, limits read from the controller,
 * cancellation, finding the jobs of a submission that died, and the
 * backend_ops table. Submission is in slurm_submit.c, accounting in
 * slurm_acct.c.
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
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <slurm/slurm_version.h>

#include "slurm_acct.h"
#include "error.h"
#include "store.h"
#include "proc.h"
#include "strbuf.h"

#include "banned.h"

/* Exported by libslurm, filled by slurm_init(), but not declared in its headers. */
extern slurm_conf_t slurm_conf;

static int initialised;

int slb_init(void)
{
	const char *conf = getenv("SLURM_CONF");

	if (initialised)
		return 0;
	if (!conf || !*conf)
		conf = "/etc/slurm/slurm.conf";
	/* libslurm would retry for a minute and then exit the process. */
	if (access(conf, R_OK) < 0)
		return error("cannot read Slurm's configuration '%s': %s (is this a Slurm "
		             "cluster? set SLURM_CONF if it lives elsewhere)",
		             conf, strerror(errno));
	slurm_init(NULL);
	initialised = 1;
	return 0;
}

const char *slb_name(void)
{
	if (slb_init() < 0)
		return NULL;
	return slurm_conf.cluster_name;
}

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

	if (slb_init() < 0)
		return SWEEP_ERR;
	if (slurm_load_ctl_conf((time_t)0, &conf) != SLURM_SUCCESS)
		return error("cannot reach slurmctld to read MaxArraySize: %s (is the controller "
		             "running? 'scontrol ping' tells)",
		             slurm_strerror(slurm_get_errno()));
	*out = conf->max_array_sz;
	slurm_free_ctl_conf(conf);
	return 0;
}

int slb_cancel(const uint32_t *job_ids, size_t n)
{
	int ret = 0;

	if (slb_init() < 0)
		return SWEEP_ERR;
	for (size_t i = 0; i < n; i++) {
		int err;

		if (slurm_kill_job(job_ids[i], SIGKILL, 0) == SLURM_SUCCESS)
			continue;
		err = slurm_get_errno();
		if (err == ESLURM_ALREADY_DONE || err == ESLURM_INVALID_JOB_ID)
			continue; /* finished, or long gone from the controller */
		ret = error("cannot cancel job %u: %s", job_ids[i], slurm_strerror(err));
	}
	return ret;
}

static int slb_records(struct acct_set *out, struct store *st, const struct sweep_rec *rec,
                       const struct array_rec *arrays, size_t narrays)
{
	uint32_t *ids = array_recs_job_ids(arrays, narrays);
	int ret;

	(void)st;
	(void)rec;
	ret = slb_acct_fetch(out, ids, narrays);
	free(ids);
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
	if (slb_init() < 0)
		return SWEEP_ERR;
	if (slurm_load_jobs((time_t)0, &msg, SHOW_ALL) != SLURM_SUCCESS)
		return error("cannot reach slurmctld to look for the jobs of sweep '%s': %s",
		             rec->name, slurm_strerror(slurm_get_errno()));
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

const struct backend_ops slurm_backend_ops = {
    .name = "slurm",
    .submitter = "sbatch",
    .submit_command = "sbatch --parsable",
    .no_record_yet = "slurmdbd has no record yet: it hears of new array jobs a moment after "
                     "sbatch returns",
    .no_record = "slurmdbd has no record of these array jobs: purged from accounting, or "
                 "submitted to another cluster?",
    .max_array_size = slb_max_array_size,
    .submit = slb_submit,
    .records = slb_records,
    .cancel = slb_cancel_arrays,
    .find = slb_find,
};
