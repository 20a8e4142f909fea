/*
 * Rolling submission, the acting half: what a follow-up does while a sweep
 * still has chunks to submit. The planning is rollout.c (pure); the limits
 * come from quota.c; each chunk goes in through submission.c's protocol.
 */
#include "rolling.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "error.h"
#include "followup.h"
#include "quota.h"
#include "rollout.h"
#include "array.h"
#include "sbopt.h"
#include "store.h"
#include "strbuf.h"
#include "submission.h"

#include "banned.h"

/* How long a follow-up waits before trying again when nothing could be submitted. */
#define ROLLING_BACKOFF_S 60

/* How long a follow-up waits for the submission lock (a resubmit) before backing off. */
#define ROLLING_LOCK_WAIT_S 60

size_t rolling_next_index(const struct sweep_rec *rec, const struct array_rec *arrays, size_t n)
{
	size_t next = 0, pack = rec->pack > 1 ? rec->pack : 1;

	for (size_t i = 0; i < n; i++) {
		size_t end;

		if (arrays[i].attempt != 1 || !arrays[i].spec)
			continue;
		end = arrays[i].offset + (size_t)quota_count_tasks(arrays[i].spec) * pack;
		if (end > next)
			next = end;
	}
	return next < rec->ntasks ? next : rec->ntasks;
}

/* The script's --account and --qos (the last of each), for reading the limits that apply. */
struct script_assoc {
	char *account, *qos;
};

static int remember_assoc(void *data, const char *name, const char *value)
{
	struct script_assoc *a = data;
	char **slot = !strcmp(name, "account") ? &a->account : &a->qos;

	free(*slot);
	*slot = value ? xstrdup(value) : NULL;
	return 0;
}

static void read_assoc(struct script_assoc *out, const char *script)
{
	static const struct sbopt_name names[] = {{"account", 'A'}, {"qos", 'q'}};
	struct strbuf text = STRBUF_INIT;

	if (strbuf_read_file(&text, script) == 0)
		sbopt_read_script(text.buf, names, 2, remember_assoc, out);
	strbuf_release(&text);
}

/* submission_opts_fn: with a throttle, a chunk starts after the one before it ends. */
static int after_previous(void *data, size_t i, struct strbuf *opt1, struct strbuf *opt2)
{
	const uint32_t *prev = data;

	(void)i;
	(void)opt2;
	if (*prev)
		strbuf_addf(opt1, "--dependency=afterany:%" PRIu32, *prev);
	return 0;
}

/* The array job submitted last of the first submission (the throttle's chain), or 0. */
static uint32_t last_chunk(const struct array_rec *arrays, size_t n)
{
	uint32_t job = 0, best = 0;

	for (size_t i = 0; i < n; i++)
		if (arrays[i].attempt == 1 && (!job || arrays[i].offset >= best)) {
			job = arrays[i].job_id;
			best = arrays[i].offset;
		}
	return job;
}

static int arrange_next(uint32_t *job, struct strbuf *note, struct store *st,
                        const struct sweep_rec *rec, const struct sweep_policy *p, unsigned seq,
                        size_t next, uint32_t first_job)
{
	struct array_rec *arrays = NULL;
	size_t narrays = 0;
	uint32_t *ids = NULL;
	char *purpose;
	int ret;

	*job = 0;
	if (next < rec->ntasks) {
		purpose = xstrfmt("submit the next chunks (%zu of %zu tasks submitted)", next,
		                  rec->ntasks);
		ret = followup_arrange_for(job, st, rec, p, seq + 1, &first_job, first_job ? 1 : 0,
		                           false, purpose, first_job ? 0 : ROLLING_BACKOFF_S);
		free(purpose);
		if (ret == 0)
			strbuf_addf(note, "; follow-up %u (job %" PRIu32 ") %s", seq + 1, *job,
			            first_job ? "when the first of these ends"
			                      : "after a back-off");
		return ret;
	}
	if (!followup_wanted(p))
		return 0;
	/* Everything is in: the retry and notification follow-up waits for all of it. */
	ret = store_load_arrays(st, &arrays, &narrays, rec->id);
	if (ret < 0)
		return ret;
	ids = array_recs_job_ids(arrays, narrays);
	ret = followup_arrange(job, st, rec, p, seq + 1, ids, narrays, p->mail && !p->retries);
	if (ret == 0)
		strbuf_addf(note,
		            "; every task is submitted: follow-up %u (job %" PRIu32
		            ") when all array jobs end",
		            seq + 1, *job);
	free(ids);
	array_recs_free(arrays, narrays);
	return ret;
}

int rolling_continue(struct strbuf *note, struct store *st, const struct sweep_rec *rec,
                     const struct sweep_policy *p, const struct array_rec *arrays, size_t narrays,
                     unsigned seq)
{
	const struct backend_ops *ops = backend_get(rec->backend);

	if (!ops)
		return SWEEP_ERR;
	return rolling_continue_on(ops, note, st, rec, p, arrays, narrays, seq);
}

int rolling_continue_on(const struct backend_ops *ops, struct strbuf *note, struct store *st,
                        const struct sweep_rec *rec, const struct sweep_policy *p,
                        const struct array_rec *arrays, size_t narrays, unsigned seq)
{
	struct script_assoc assoc = {NULL, NULL};
	struct quota q;
	struct rollout_plan rp = {0};
	size_t pack = rec->pack > 1 ? rec->pack : 1,
	       next = rolling_next_index(rec, arrays, narrays);
	uint64_t units = (rec->ntasks - next + pack - 1) / pack;
	uint32_t prev = last_chunk(arrays, narrays), first_job = 0, followup_job = 0;
	size_t submitted = 0;
	int ret = 0, lock_fd = -1;

	quota_init(&q);
	read_assoc(&assoc, rec->script);
	if (!ops->limits) {
		strbuf_addstr(note, "rolling: this side has no limits to read");
		goto next;
	}
	if (ops->limits(&q, assoc.account, assoc.qos) < 0) {
		strbuf_addf(note, "rolling: cannot read the limits now (%s)", error_last());
		goto next;
	}
	rollout_plan_make(&rp, units, rec->roll_chunk, q.submit, q.nsubmit, ROLLOUT_HEADROOM);
	/* The protocol's lock: a resubmit of the sweep meanwhile waits, or this backs off. */
	if (rp.nnow) {
		lock_fd = submission_lock_wait(rec->dir, ROLLING_LOCK_WAIT_S);
		if (lock_fd < 0) {
			strbuf_addf(note, "rolling: backing off: %s", error_last());
			goto next;
		}
	}
	for (size_t c = 0; c < rp.nnow; c++) {
		struct submission sub = {0};
		struct submission_job job = {0};
		char spec[64];

		/* One chunk per submission: a refusal keeps the chunks already in. */
		array_spec(spec, sizeof(spec), rp.chunks[c].count, rec->max_concurrent);
		job.array = spec;
		job.offset = (uint32_t)(next + rp.chunks[c].first * pack);
		job.quota = &q;
		sub.ops = ops;
		sub.st = st;
		sub.rec = rec;
		sub.jobs = &job;
		sub.n = 1;
		sub.attempt = 1;
		sub.opts = rec->max_concurrent ? after_previous : NULL;
		sub.data = &prev;
		sub.who = "rolling";
		if (submission_commit(&sub, lock_fd) < 0) {
			/* Accepted but not recorded (so cancelled again): a failure. */
			if (sub.accepted || sub.unrecorded) {
				ret = SWEEP_ERR;
				goto out;
			}
			/* A limit after all (others submitted meanwhile): try again later. */
			strbuf_addf(note, "%sbacking off: %s",
			            submitted ? "; " : "rolling: ", error_last());
			break;
		}
		if (!first_job) {
			first_job = job.job_id;
			strbuf_addf(note, "%srolling: submitted array job%s %" PRIu32,
			            note->len ? "; " : "", rp.nnow > 1 ? "s" : "", job.job_id);
		} else {
			strbuf_addf(note, ", %" PRIu32, job.job_id);
		}
		prev = job.job_id;
		submitted += (size_t)rp.chunks[c].count * pack;
	}
	if (!rp.nnow)
		strbuf_addf(note, "rolling: no room now under %s; backing off",
		            rp.bound >= 0 ? q.submit[rp.bound].what : "the limits");
next:
	if (lock_fd >= 0) {
		close(lock_fd);
		lock_fd = -1;
	}
	next = next + submitted < rec->ntasks ? next + submitted : rec->ntasks;
	strbuf_addf(note, " (%zu of %zu tasks submitted)", next, rec->ntasks);
	ret = arrange_next(&followup_job, note, st, rec, p, seq, next, first_job);
out:
	if (lock_fd >= 0)
		close(lock_fd);
	rollout_plan_release(&rp);
	quota_release(&q);
	free(assoc.account);
	free(assoc.qos);
	return ret;
}

int rolling_describe(struct strbuf *out, struct store *st, const struct sweep_rec *rec,
                     const struct array_rec *arrays, size_t narrays)
{
	struct followup_rec *fs = NULL;
	size_t n = 0, next;
	int ret;

	if (!rec->roll_chunk)
		return 0;
	next = rolling_next_index(rec, arrays, narrays);
	if (next >= rec->ntasks)
		return 0;
	ret = store_load_followups(st, &fs, &n, rec->id);
	if (ret < 0)
		return ret;
	strbuf_addf(out, "submitted %zu of %zu tasks", next, rec->ntasks);
	for (size_t i = n; i-- > 0;) {
		if (fs[i].state != FOLLOWUP_PENDING)
			continue;
		if (fs[i].after && *fs[i].after)
			strbuf_addf(out,
			            "; next batch when job %s ends (follow-up job %" PRIu32 ")",
			            fs[i].after, fs[i].job_id);
		else
			strbuf_addf(out,
			            "; next batch after a back-off (follow-up job %" PRIu32 ")",
			            fs[i].job_id);
		break;
	}
	strbuf_addch(out, '\n');
	followup_recs_free(fs, n);
	return 0;
}
