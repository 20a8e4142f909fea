/*
 * The Slurm side of submission. Limits come from the controller through
 * libslurm; jobs are submitted by running sbatch from an argv array, which
 * keeps #SBATCH parsing, job_submit plugins and site wrappers exactly as a
 * user's own sbatch has them.
 */
#include "cluster.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "acct.h"
#include "error.h"
#include "store.h"
#include "proc.h"
#include "strbuf.h"

#include "banned.h"

/* Exported by libslurm, filled by slurm_init(), but not declared in its headers. */
extern slurm_conf_t slurm_conf;

static int initialised;

int cluster_init(void)
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

const char *cluster_name(void)
{
	if (cluster_init() < 0)
		return NULL;
	return slurm_conf.cluster_name;
}

int cluster_max_array_size(uint32_t *out)
{
	slurm_conf_t *conf = NULL;

	if (cluster_init() < 0)
		return SWEEP_ERR;
	if (slurm_load_ctl_conf((time_t)0, &conf) != SLURM_SUCCESS)
		return error("cannot reach slurmctld to read MaxArraySize: %s (is the controller "
		             "running? 'scontrol ping' tells)",
		             slurm_strerror(slurm_get_errno()));
	*out = conf->max_array_sz;
	slurm_free_ctl_conf(conf);
	return 0;
}

/* sbatch's stderr as one line for a message: its last non-empty lines joined. */
static void squeeze(struct strbuf *out, const struct strbuf *text)
{
	const char *p = text->buf;

	while (*p) {
		size_t len = strcspn(p, "\n");

		if (len) {
			if (out->len)
				strbuf_addstr(out, "; ");
			strbuf_add(out, p, len);
		}
		p += len;
		if (*p)
			p++;
	}
	if (!out->len)
		strbuf_addstr(out, "(no message)");
}

int cluster_submit(uint32_t *job_id, const struct backend_submit *req)
{
	const char **argv;
	char *array = xstrfmt("--array=%s", req->array);
	/*
	 * The offset goes to the script as its argument. Not through --export:
	 * any value but ALL or NONE there makes slurmd load the user's login
	 * environment (su - user) for every task, which is slow and changes
	 * what the task sees.
	 */
	char *offset = xstrfmt("%u", req->offset);
	struct proc_result res;
	struct strbuf msg = STRBUF_INIT;
	size_t n = 0, nextra = 0;
	unsigned long id;
	char *end;
	int ret = 0;

	while (req->extra_args && req->extra_args[nextra])
		nextra++;
	argv = xcalloc(nextra + 6, sizeof(char *));
	argv[n++] = "sbatch";
	argv[n++] = "--parsable";
	argv[n++] = array;
	for (size_t i = 0; i < nextra; i++)
		argv[n++] = req->extra_args[i];
	argv[n++] = req->script;
	argv[n++] = offset;
	argv[n] = NULL;

	proc_result_init(&res);
	if (proc_run(&res, argv, NULL, req->timeout_s ? req->timeout_s : 60) < 0) {
		ret = SWEEP_ERR;
		goto out;
	}
	squeeze(&msg, &res.err);
	if (res.timed_out) {
		ret = error("sbatch did not answer within %u s (is slurmctld running? 'scontrol "
		            "ping' tells): %s",
		            req->timeout_s ? req->timeout_s : 60, msg.buf);
		goto out;
	}
	if (!res.exited || res.status != 0) {
		ret = error("sbatch refused the job (%s %d): %s",
		            res.exited ? "exit status" : "signal", res.status, msg.buf);
		goto out;
	}
	/* --parsable prints "jobid" or "jobid;cluster". */
	errno = 0;
	id = strtoul(res.out.buf, &end, 10);
	if (errno || end == res.out.buf || (*end && *end != ';' && *end != '\n') || !id ||
	    id > UINT32_MAX) {
		strbuf_trim_trailing_newlines(&res.out);
		ret = error("sbatch printed '%s' where a job id was expected", res.out.buf);
		goto out;
	}
	*job_id = (uint32_t)id;
out:
	strbuf_release(&msg);
	proc_result_release(&res);
	free(argv);
	free(array);
	free(offset);
	return ret;
}

int cluster_cancel(const uint32_t *job_ids, size_t n)
{
	int ret = 0;

	if (cluster_init() < 0)
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

static int cluster_records(struct acct_set *out, struct store *st, const struct sweep_rec *rec,
                           const struct array_rec *arrays, size_t narrays)
{
	uint32_t *ids = array_recs_job_ids(arrays, narrays);
	int ret;

	(void)st;
	(void)rec;
	ret = acct_fetch(out, ids, narrays);
	free(ids);
	return ret;
}

static int cluster_cancel_arrays(struct store *st, const struct sweep_rec *rec,
                                 const struct array_rec *arrays, size_t narrays)
{
	uint32_t *ids = array_recs_job_ids(arrays, narrays);
	int ret;

	(void)st;
	(void)rec;
	ret = cluster_cancel(ids, narrays);
	free(ids);
	return ret;
}

/*
 * The controller still knows jobs for a while after they end (MinJobAge), and
 * always while they pend or run: look for this sweep's script among them.
 * sbatch records the script and its argument (the index offset) as the
 * job's command.
 */
static int cluster_find(struct array_rec **out, size_t *n, const struct sweep_rec *rec)
{
	job_info_msg_t *msg = NULL;
	struct array_rec *found = NULL;
	size_t nfound = 0, alloc = 0, len = strlen(rec->script);

	*out = NULL;
	*n = 0;
	if (cluster_init() < 0)
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

const struct backend_ops cluster_backend = {
    .name = "slurm",
    .max_array_size = cluster_max_array_size,
    .submit = cluster_submit,
    .records = cluster_records,
    .cancel = cluster_cancel_arrays,
    .find = cluster_find,
};
