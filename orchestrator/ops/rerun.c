/*
 * Running tasks again, for resubmit and for the follow-up's retry rounds.
 */
#include "rerun.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "error.h"
#include "loaded.h"
#include "rolling.h"
#include "script.h"
#include "store.h"
#include "strbuf.h"
#include "submission.h"
#include "units.h"

#include "banned.h"

void rerun_init(struct rerun *r)
{
	memset(r, 0, sizeof(*r));
	resubmit_plan_init(&r->rp);
}

void rerun_release(struct rerun *r)
{
	resubmit_plan_release(&r->rp);
	free(r->jobs);
	rerun_init(r);
}

int rerun_start(struct rerun *r, struct loaded_sweep *l)
{
	struct strbuf text = STRBUF_INIT;
	const char *why;
	int ret = 0;

	r->l = l;
	r->ops = backend_get(l->rec.backend);
	if (!r->ops)
		return SWEEP_ERR;
	if (strbuf_read_file(&text, l->rec.script) < 0)
		ret = error("cannot read the sweep's script '%s': %s (resubmit runs the same "
		            "script again)",
		            l->rec.script, strerror(errno));
	else if (script_read_resources(&r->script, text.buf, &why) < 0)
		ret = error("cannot read the #SBATCH lines of '%s': %s", l->rec.script, why);
	strbuf_release(&text);
	return ret;
}

int rerun_plan(struct rerun *r, const struct resubmit_policy *base, bool dry_run, bool settled)
{
	struct resubmit_policy p = *base;
	uint32_t max_array = 0;
	const char *why;

	resubmit_plan_release(&r->rp);
	if (r->l->rec.roll_chunk &&
	    rolling_next_index(&r->l->rec, r->l->arrays, r->l->narrays) < r->l->rec.ntasks)
		return error(
		    "sweep %" PRId64 " is still being submitted in chunks (%zu of %zu tasks "
		    "submitted): run it again once every task is in ('sweep status' tells)",
		    r->l->rec.id, rolling_next_index(&r->l->rec, r->l->arrays, r->l->narrays),
		    r->l->rec.ntasks);
	if (submission_max_array_size(r->ops, &max_array, dry_run,
	                              "planning without MaxArraySize: it is unknown") < 0)
		return SWEEP_ERR;
	p.script_mem_mb = resubmit_script_mem_mb(&r->script);
	/* A packed array task's --time is the task's times the pack. */
	p.pack = r->l->rec.pack > 1 ? r->l->rec.pack : 1;
	p.script_time_min = r->script.time_min / p.pack;
	p.max_array = max_array;
	p.throttle = r->l->rec.max_concurrent;
	p.missing_unsettled = !settled && loaded_records_may_lag(r->l->arrays, r->l->narrays);
	if (resubmit_plan_build(&r->rp, r->l->outcomes, r->l->plan.ntasks, &p, &why) < 0)
		return error("cannot plan the resubmission of sweep %" PRId64 ": %s", r->l->rec.id,
		             why);
	return 0;
}

int rerun_override_args(struct strbuf *mem, struct strbuf *time_opt, const struct rerun *r,
                        const struct resubmit_array *arr)
{
	char buf[64];
	const char *why;

	if (arr->mem_mb && resubmit_mem_option(mem, &r->script, arr->mem_mb, &why) < 0)
		return error("%s", why);
	if (arr->time_min) {
		/* A packed array task runs its tasks one after another. */
		units_format_time(buf, sizeof(buf),
		                  arr->time_min * 60 * (r->l->rec.pack > 1 ? r->l->rec.pack : 1));
		strbuf_addf(time_opt, "--time=%s", buf);
	}
	return 0;
}

/* submission_opts_fn: the memory and time overrides of array job i. */
static int array_opts(void *data, size_t i, struct strbuf *mem, struct strbuf *time_opt)
{
	struct rerun *r = data;

	return rerun_override_args(mem, time_opt, r, &r->rp.arrays[i]);
}

static void say_cancelled(const struct submission_job *jobs, size_t n)
{
	struct strbuf ids = STRBUF_INIT;
	size_t count = 0;

	for (size_t a = 0; a < n; a++)
		if (jobs[a].job_id)
			strbuf_addf(&ids, "%s%" PRIu32, count++ ? ", " : "", jobs[a].job_id);
	if (count)
		warning("array job%s %s of this resubmission, already accepted, %s cancelled: "
		        "nothing of it runs",
		        count == 1 ? "" : "s", ids.buf, count == 1 ? "was" : "were");
	strbuf_release(&ids);
}

int rerun_submit(struct rerun *r)
{
	struct loaded_sweep *l = r->l;
	struct submission s = {0};
	unsigned last = 0;
	int ret, lock_fd;

	free(r->jobs);
	r->jobs = xcalloc(r->rp.narrays ? r->rp.narrays : 1, sizeof(*r->jobs));
	/* One submission at a time per sweep, and recovery waits for this one. */
	lock_fd = submission_lock(l->rec.dir);
	if (lock_fd < 0)
		return SWEEP_ERR;
	ret = store_last_attempt(l->st, &last, l->rec.id);
	if (ret < 0)
		goto out;
	for (size_t a = 0; a < r->rp.narrays; a++) {
		r->jobs[a].array = r->rp.arrays[a].spec;
		r->jobs[a].offset = r->rp.arrays[a].offset;
		r->jobs[a].indices = r->rp.arrays[a].indices;
		r->jobs[a].step_min = r->rp.arrays[a].time_min;
	}
	s.ops = r->ops;
	s.st = l->st;
	s.rec = &l->rec;
	s.jobs = r->jobs;
	s.n = r->rp.narrays;
	s.attempt = last + 1;
	s.opts = array_opts;
	s.data = r;
	s.who = "resubmit";
	ret = submission_commit(&s, lock_fd);
	if (ret < 0) {
		/* The cause was reported where it was known; say what became of the rest. */
		say_cancelled(r->jobs, r->rp.narrays);
		goto out;
	}
	r->attempt = last + 1;
out:
	close(lock_fd);
	return ret;
}
