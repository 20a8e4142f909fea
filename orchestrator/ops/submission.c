/*
 * What submit and resubmit share around handing array jobs to a backend.
 */
#include "submission.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "backend.h"
#include "cli.h"
#include "error.h"
#include "fault.h"
#include "store.h"
#include "strbuf.h"

#include "banned.h"

int submission_max_array_size(const struct backend_ops *ops, uint32_t *out, bool dry_run,
                              const char *unknown_says)
{
	int ret;

	if (!dry_run)
		return ops->max_array_size(out);
	error_set_handler(error_as_warning);
	ret = ops->max_array_size(out);
	error_set_handler(NULL);
	if (ret < 0) {
		warning("%s", unknown_says);
		*out = 0;
	}
	return 0;
}

void submission_cancel(const struct backend_ops *ops, struct store *st, const struct sweep_rec *rec,
                       struct submission_job *jobs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct array_rec arr = {.job_id = jobs[i].job_id};

		if (arr.job_id && ops->cancel(st, rec, &arr, 1) < 0)
			jobs[i].job_id = 0;
	}
}

static void fault_at(const char *who, const char *step)
{
	char name[64];

	snprintf(name, sizeof(name), "%s-%s", who, step);
	fault_point(name);
}

/* Submits job i and records it. */
static int submit_one(const struct backend_ops *ops, struct store *st, const struct sweep_rec *rec,
                      struct submission_job *jobs, size_t i, unsigned attempt,
                      submission_opts_fn opts, void *data, int lock_fd, const char *who)
{
	struct strbuf opt1 = STRBUF_INIT, opt2 = STRBUF_INIT;
	const char *extra[4] = {NULL, NULL, NULL, NULL};
	struct backend_submit req = {0};
	struct array_rec arr = {0};
	char dep[64];
	char *list = NULL, *minutes = NULL;
	const char *args[3] = {NULL, NULL, NULL};
	size_t n = 0;
	int ret = opts ? opts(data, i, &opt1, &opt2) : 0;

	if (ret == 0) {
		/* With a throttle, one array job at a time keeps it. */
		if (i > 0 && rec->max_concurrent) {
			snprintf(dep, sizeof(dep), "--dependency=afterany:%" PRIu32,
			         jobs[i - 1].job_id);
			extra[n++] = dep;
		}
		if (opt1.len)
			extra[n++] = opt1.buf;
		if (opt2.len)
			extra[n++] = opt2.buf;
		req.script = rec->script;
		req.array = jobs[i].array;
		req.offset = jobs[i].offset;
		req.extra_args = extra;
		req.quota = jobs[i].quota;
		if (jobs[i].indices) {
			/* Packed, by list: the indices, and the minutes each task's step gets. */
			list = xstrfmt("@%s", jobs[i].indices);
			minutes = jobs[i].step_min ? xstrfmt("%" PRIu64, jobs[i].step_min) : NULL;
			args[0] = list;
			args[1] = minutes;
			req.script_args = args;
		}
		req.hold_fd = lock_fd;
		ret = cli_reserve_space(rec->dir);
	}
	if (ret == 0) {
		fault_at(who, "before-sbatch");
		ret = ops->submit(&jobs[i].job_id, &req);
		if (ret == 0)
			fault_at(who, "after-sbatch");
		/* Freed for the writes that record the answer. */
		cli_release_space(rec->dir);
	}
	free(list);
	free(minutes);
	strbuf_release(&opt1);
	strbuf_release(&opt2);
	if (ret < 0)
		return ret;
	arr.job_id = jobs[i].job_id;
	arr.offset = jobs[i].offset;
	arr.spec = jobs[i].array;
	arr.attempt = attempt;
	arr.pack = rec->pack;
	arr.indices = jobs[i].indices;
	if (store_add_array(st, rec->id, &arr) < 0) {
		/* The backend has it but we could not record it: do not leave it running. */
		submission_cancel(ops, st, rec, jobs + i, 1);
		return SWEEP_ERR;
	}
	fault_at(who, "after-add-array");
	return 0;
}

/* What recovery needs to record a job it finds: see cli_write_intent. */
static int write_intent(const struct sweep_rec *rec, const struct submission_job *jobs, size_t n,
                        unsigned attempt)
{
	struct array_rec *arrs = xcalloc(n ? n : 1, sizeof(*arrs));
	int ret;

	for (size_t i = 0; i < n; i++) {
		arrs[i].offset = jobs[i].offset;
		arrs[i].spec = jobs[i].array;
		arrs[i].attempt = attempt;
		arrs[i].pack = rec->pack;
		arrs[i].indices = jobs[i].indices;
	}
	ret = cli_write_intent(rec->dir, arrs, n);
	free(arrs);
	return ret;
}

int submission_run(const struct backend_ops *ops, struct store *st, const struct sweep_rec *rec,
                   struct submission_job *jobs, size_t n, unsigned attempt, submission_opts_fn opts,
                   void *data, int lock_fd, const char *who)
{
	if (write_intent(rec, jobs, n, attempt) < 0)
		return SWEEP_ERR;
	for (size_t i = 0; i < n; i++) {
		if (submit_one(ops, st, rec, jobs, i, attempt, opts, data, lock_fd, who) < 0)
			return SWEEP_ERR;
	}
	return 0;
}
