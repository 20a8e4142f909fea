/*
 * Rolling submission, the acting half: what a follow-up does while a sweep
 * still has chunks to submit. The planning is rollout.c (pure); the limits
 * come from quota.c.
 */
#include "rolling.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "error.h"
#include "followup.h"
#include "quota.h"
#include "rollout.h"
#include "array.h"
#include "store.h"
#include "strbuf.h"

#include "banned.h"

/* How long a follow-up waits before trying again when nothing could be submitted. */
#define ROLLING_BACKOFF_S 60

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

/* The value of "#SBATCH --name=value" in the script's text, or NULL; the caller frees. */
static char *sbatch_value(const char *text, const char *name)
{
	char *key = xstrfmt("#SBATCH --%s=", name), *value = NULL;
	const char *p = text;

	while ((p = strstr(p, key))) {
		const char *v = p + strlen(key);
		size_t len = strcspn(v, "\n");

		if (p == text || p[-1] == '\n') {
			free(value);
			value = xstrndup(v, len);
		}
		p = v;
	}
	free(key);
	return value;
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
	struct strbuf text = STRBUF_INIT;
	struct quota q;
	struct rollout_plan rp = {0};
	size_t pack = rec->pack > 1 ? rec->pack : 1,
	       next = rolling_next_index(rec, arrays, narrays);
	uint64_t units = (rec->ntasks - next + pack - 1) / pack;
	uint32_t prev = last_chunk(arrays, narrays), first_job = 0, followup_job = 0;
	char *account = NULL, *qos = NULL;
	size_t submitted = 0;
	int ret = 0;

	quota_init(&q);
	if (!ops)
		return SWEEP_ERR;
	if (strbuf_read_file(&text, rec->script) == 0) {
		account = sbatch_value(text.buf, "account");
		qos = sbatch_value(text.buf, "qos");
	}
	if (!ops->limits) {
		strbuf_addstr(note, "rolling: this side has no limits to read");
		goto next;
	}
	if (ops->limits(&q, account, qos) < 0) {
		strbuf_addf(note, "rolling: cannot read the limits now (%s)", error_last());
		goto next;
	}
	rollout_plan_make(&rp, units, rec->roll_chunk, q.submit, q.nsubmit, ROLLOUT_HEADROOM);
	for (size_t c = 0; c < rp.nnow; c++) {
		struct backend_submit req = {0};
		struct array_rec arr = {0};
		const char *extra[2] = {NULL, NULL};
		char spec[64], dep[64];
		uint32_t job = 0;

		array_spec(spec, sizeof(spec), rp.chunks[c].count, rec->max_concurrent);
		if (rec->max_concurrent && prev) {
			snprintf(dep, sizeof(dep), "--dependency=afterany:%" PRIu32, prev);
			extra[0] = dep;
		}
		req.script = rec->script;
		req.array = spec;
		req.offset = (uint32_t)(next + rp.chunks[c].first * pack);
		req.extra_args = extra;
		req.quota = &q;
		if (ops->submit(&job, &req) < 0) {
			/* A limit after all (others submitted meanwhile): try again later. */
			strbuf_addf(note, "%sbacking off: %s",
			            submitted ? "; " : "rolling: ", error_last());
			break;
		}
		arr.job_id = job;
		arr.offset = req.offset;
		arr.spec = spec;
		arr.attempt = 1;
		arr.pack = (uint32_t)pack;
		if (store_add_array(st, rec->id, &arr) < 0) {
			ops->cancel(st, rec, &arr, 1);
			ret = SWEEP_ERR;
			goto out;
		}
		if (!first_job) {
			first_job = job;
			strbuf_addf(note, "%srolling: submitted array job%s %" PRIu32,
			            note->len ? "; " : "", rp.nnow > 1 ? "s" : "", job);
		} else {
			strbuf_addf(note, ", %" PRIu32, job);
		}
		prev = job;
		submitted += (size_t)rp.chunks[c].count * pack;
	}
	if (!rp.nnow)
		strbuf_addf(note, "rolling: no room now under %s; backing off",
		            rp.bound >= 0 ? q.submit[rp.bound].what : "the limits");
next:
	next = next + submitted < rec->ntasks ? next + submitted : rec->ntasks;
	strbuf_addf(note, " (%zu of %zu tasks submitted)", next, rec->ntasks);
	ret = arrange_next(&followup_job, note, st, rec, p, seq, next, first_job);
out:
	rollout_plan_release(&rp);
	quota_release(&q);
	strbuf_release(&text);
	free(account);
	free(qos);
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
