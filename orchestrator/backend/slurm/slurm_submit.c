/*
 * The Slurm backend's submission: jobs are submitted by running sbatch from
 * an argv array, which keeps #SBATCH parsing, job_submit plugins and site
 * wrappers exactly as a user's own sbatch has them.
 */
#include "slurm_backend.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "path.h"
#include "fault.h"
#include "proc.h"
#include "quota.h"
#include "strbuf.h"

#include "banned.h"

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

/*
 * slurmstepd creates the job's log files, and starts its script, with the
 * umask in SLURM_UMASK (sbatch sets it from its own when it is not set):
 * ours, but never letting group or others write, so a log is at most 0644.
 * SWEEP_UMASK carries the caller's own to the script, which runs the
 * setup and the command with it and makes its own files private.
 */
static void umask_env(char **env)
{
	unsigned mask = (unsigned)path_umask();

	env[0] = xstrfmt("SLURM_UMASK=%04o", mask | 022);
	env[1] = xstrfmt("SWEEP_UMASK=%04o", mask);
	env[2] = NULL;
}

/*
 * Runs sbatch --parsable with argv (argv[0] is "sbatch") and reads the job
 * id it prints; sbatch inherits hold_fd when it is above 0.
 */
static int run_sbatch(uint32_t *job_id, const char *const *argv, unsigned timeout_s,
                      const struct quota *quota, int hold_fd)
{
	struct proc_result res;
	struct strbuf msg = STRBUF_INIT;
	char *env[3] = {NULL};
	unsigned long id;
	char *end, *limit = NULL;
	int ret = 0;

	proc_result_init(&res);
	umask_env(env);
	/* sbatch holds the submission lock too while it runs: see backend_submit.hold_fd. */
	if (hold_fd > 0)
		fcntl(hold_fd, F_SETFD, 0);
	ret = proc_run(&res, argv, (const char *const *)env, timeout_s ? timeout_s : 60);
	free(env[0]);
	free(env[1]);
	if (hold_fd > 0)
		fcntl(hold_fd, F_SETFD, FD_CLOEXEC);
	if (ret < 0)
		goto out;
	fault_point("after-sbatch");
	squeeze(&msg, &res.err);
	/* A controller that is up but at a limit must not be blamed for being down. */
	limit = quota_explain_refusal(msg.buf, quota);
	if (res.timed_out && limit) {
		ret = error("slurmctld refused new jobs for %u s: the limit reached is %s; wait "
		            "until jobs end, or pack several tasks into one array task (pack: K): "
		            "%s",
		            timeout_s ? timeout_s : 60, limit, msg.buf);
		goto out;
	}
	if (res.timed_out) {
		ret = error("sbatch did not answer within %u s (is slurmctld running? 'scontrol "
		            "ping' tells): %s",
		            timeout_s ? timeout_s : 60, msg.buf);
		goto out;
	}
	if ((!res.exited || res.status != 0) && limit) {
		ret = error("sbatch refused the job: the limit reached is %s: %s", limit, msg.buf);
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
	free(limit);
	strbuf_release(&msg);
	proc_result_release(&res);
	return ret;
}

/*
 * The sweep's folder (the script's) lists its array jobs in SLB_JOBS_FILE,
 * one id a line, appended with O_APPEND: a task that stops the sweep
 * (fail_fast) cancels them with scancel. A job missing from it (the write
 * failed) is only not cancelled by the task: warn, go on.
 */
static void note_job(const char *script, uint32_t job_id)
{
	const char *slash = strrchr(script, '/');
	char *dir = slash ? xstrndup(script, (size_t)(slash - script)) : xstrdup(".");
	char *path = xstrfmt("%s/%s", dir, SLB_JOBS_FILE);
	char line[16];
	int fd, len = snprintf(line, sizeof(line), "%u\n", job_id);

	fd = path_open_private(path, O_WRONLY | O_APPEND, PATH_PRIVATE_FILE);
	if (fd < 0 || write(fd, line, (size_t)len) != len)
		warning("cannot note array job %u in '%s': %s (fail_fast cannot cancel it)", job_id,
		        path, strerror(errno));
	if (fd >= 0)
		close(fd);
	free(path);
	free(dir);
}

int slb_submit(uint32_t *job_id, const struct backend_submit *req)
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
	size_t n = 0, nextra = 0, nargs = 0;
	int ret;

	while (req->extra_args && req->extra_args[nextra])
		nextra++;
	while (req->script_args && req->script_args[nargs])
		nargs++;
	argv = xcalloc(nextra + nargs + 6, sizeof(char *));
	argv[n++] = "sbatch";
	argv[n++] = "--parsable";
	argv[n++] = array;
	for (size_t i = 0; i < nextra; i++)
		argv[n++] = req->extra_args[i];
	argv[n++] = req->script;
	if (req->script_args)
		for (size_t i = 0; i < nargs; i++)
			argv[n++] = req->script_args[i];
	else
		argv[n++] = offset;
	argv[n] = NULL;

	ret = run_sbatch(job_id, argv, req->timeout_s, req->quota, req->hold_fd);
	if (ret == 0)
		note_job(req->script, *job_id);
	free(argv);
	free(array);
	free(offset);
	return ret;
}

/*
 * A follow-up job: sbatch --dependency=afterany:A:B... of the follow-up
 * script. afterany is satisfied however the jobs end (cancelled too), and
 * at once for jobs that have already ended.
 */
int slb_followup(uint32_t *job_id, const struct backend_followup *req)
{
	struct strbuf dep = STRBUF_INIT;
	char *mail_user = NULL, *begin = NULL;
	const char *argv[9];
	size_t n = 0;
	int ret;

	strbuf_addstr(&dep, "--dependency=afterany");
	for (size_t i = 0; i < req->nafter; i++)
		strbuf_addf(&dep, ":%u", req->after[i]);
	argv[n++] = "sbatch";
	argv[n++] = "--parsable";
	if (req->nafter)
		argv[n++] = dep.buf;
	if (req->mail) {
		mail_user = xstrfmt("--mail-user=%s", req->mail);
		argv[n++] = "--mail-type=END";
		argv[n++] = mail_user;
	}
	if (req->begin_s) {
		begin = xstrfmt("--begin=now+%u", req->begin_s);
		argv[n++] = begin;
	}
	argv[n++] = req->script;
	argv[n++] = req->arg;
	argv[n] = NULL;
	ret = run_sbatch(job_id, argv, 0, NULL, 0);
	free(mail_user);
	free(begin);
	strbuf_release(&dep);
	return ret;
}

/* The mail of a running job can still be changed: scontrol update. */
int slb_mail_at_end(uint32_t job_id, const char *addr)
{
	char *id = xstrfmt("JobId=%u", job_id), *user = xstrfmt("MailUser=%s", addr);
	const char *argv[] = {"scontrol", "update", id, "MailType=END", user, NULL};
	struct proc_result res;
	int ret = 0;

	proc_result_init(&res);
	if (proc_run(&res, argv, NULL, 60) < 0) {
		ret = SWEEP_ERR;
	} else if (!res.exited || res.status != 0) {
		strbuf_trim_trailing_newlines(&res.err);
		ret =
		    error("scontrol could not set the end mail of job %u: %s", job_id, res.err.buf);
	}
	proc_result_release(&res);
	free(id);
	free(user);
	return ret;
}
