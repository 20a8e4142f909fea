/*
 * The Slurm backend's submission: jobs are submitted by running sbatch from
 * an argv array, which keeps #SBATCH parsing, job_submit plugins and site
 * wrappers exactly as a user's own sbatch has them.
 */
#include "slurm_backend.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fault.h"
#include "proc.h"
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
	/* sbatch holds the submission lock too while it runs: see backend_submit.hold_fd. */
	if (req->hold_fd > 0)
		fcntl(req->hold_fd, F_SETFD, 0);
	ret = proc_run(&res, argv, NULL, req->timeout_s ? req->timeout_s : 60);
	if (req->hold_fd > 0)
		fcntl(req->hold_fd, F_SETFD, FD_CLOEXEC);
	if (ret < 0)
		goto out;
	fault_point("after-sbatch");
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
