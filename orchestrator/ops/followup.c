/*
 * Follow-ups, the arranging side: the policy a sweep finishes itself by,
 * the follow-up job submitted (or recorded for the local runners) to run
 * when array jobs end, what status says of them, and cancelling them.
 * Running one is followup_run.c; its script is script/script_followup.c.
 */
#include "followup.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"
#include "cfg.h"
#include "error.h"
#include "finish.h"
#include "outcome.h"
#include "store.h"
#include "strbuf.h"

#include "banned.h"

bool followup_wanted(const struct sweep_policy *p)
{
	return p->retries || p->mail || p->command;
}

int followup_policy_from_cfg(struct sweep_policy *out, const struct cfg *cfg)
{
	memset(out, 0, sizeof(*out));
	out->retries = cfg->retries;
	out->retry_on_exit = cfg->retry_on_exit;
	out->fail_fast = cfg->fail_fast;
	out->mail = cfg->notify.mail ? xstrdup(cfg->notify.mail) : NULL;
	out->command = cfg->notify.command ? xstrdup(cfg->notify.command) : NULL;
	if (!followup_wanted(out))
		return 0;
	return followup_set_program(out);
}

int followup_set_program(struct sweep_policy *out)
{
	char exe[PATH_MAX];
	struct stat sb;
	ssize_t n;

	if (out->program)
		return 0;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return error("cannot find the sweep binary that follow-up jobs would run: %s",
		             strerror(errno));
	exe[n] = '\0';
	/* A binary replaced while running reads as "PATH (deleted)". */
	if (stat(exe, &sb) < 0 || !S_ISREG(sb.st_mode) || access(exe, X_OK) < 0)
		return error("the sweep binary '%s' is gone or not executable: follow-up jobs "
		             "(retries, notify) run it by this path",
		             exe);
	out->program = xstrdup(exe);
	return 0;
}

/* What follow-up seq is for, in words, with retries_done rounds used so far. */
static char *purpose_text(const struct sweep_policy *p, unsigned retries_done)
{
	const char *end = p->mail || p->command ? "the report and the notification" : "the report";

	if (retries_done < p->retries)
		return xstrfmt("retry round %u of %u if tasks failed, else %s", retries_done + 1,
		               p->retries, end);
	return xstrdup(end);
}

static void ids_text(struct strbuf *out, const uint32_t *ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		strbuf_addf(out, "%s%" PRIu32, i ? "," : "", ids[i]);
}

int followup_arrange(uint32_t *job_id, struct store *st, const struct sweep_rec *rec,
                     const struct sweep_policy *p, unsigned seq, const uint32_t *after,
                     size_t nafter, bool mail)
{
	return followup_arrange_for(job_id, st, rec, p, seq, after, nafter, mail, NULL, 0);
}

int followup_arrange_for(uint32_t *job_id, struct store *st, const struct sweep_rec *rec,
                         const struct sweep_policy *p, unsigned seq, const uint32_t *after,
                         size_t nafter, bool mail, const char *purpose, unsigned begin_s)
{
	const struct backend_ops *ops = backend_get(rec->backend);
	struct strbuf afters = STRBUF_INIT;
	struct followup_rec f = {0};
	unsigned last = 0;
	char *script = NULL, arg[16];
	int ret;

	*job_id = 0;
	if (!ops)
		return SWEEP_ERR;
	ret = store_last_attempt(st, &last, rec->id);
	if (ret < 0)
		return ret;
	ids_text(&afters, after, nafter);
	if (ops->followup) {
		struct backend_followup req = {0};

		script = xstrfmt("%s/%s", rec->dir, FOLLOWUP_SCRIPT);
		snprintf(arg, sizeof(arg), "%u", seq);
		req.script = script;
		req.arg = arg;
		req.after = after;
		req.nafter = nafter;
		req.mail = mail ? p->mail : NULL;
		req.begin_s = begin_s;
		ret = ops->followup(job_id, &req);
		if (ret < 0)
			goto out;
	}
	f.seq = seq;
	f.job_id = *job_id;
	f.after = afters.buf;
	f.purpose = purpose ? xstrdup(purpose) : purpose_text(p, last ? last - 1 : 0);
	f.mail = mail && ops->followup; /* the local side has no mail */
	ret = store_add_followup(st, rec->id, &f);
	free(f.purpose);
	if (ret < 0 && *job_id) {
		/* Not recorded: it must not run behind the store's back. */
		struct array_rec arr = {.job_id = *job_id};

		ops->cancel(st, rec, &arr, 1);
	}
out:
	free(script);
	strbuf_release(&afters);
	return ret;
}

int followup_describe(struct strbuf *out, bool *active, struct store *st,
                      const struct sweep_rec *rec, const struct task_outcome *outcomes,
                      size_t ntasks)
{
	struct sweep_policy p;
	struct followup_rec *fs = NULL;
	size_t *failures = NULL, nfailures = 0, n = 0;
	unsigned last = 0;
	int ret;

	*active = false;
	ret = store_load_policy(st, &p, rec->id);
	if (ret == 0)
		ret = store_load_followups(st, &fs, &n, rec->id);
	if (ret == 0)
		ret = store_last_attempt(st, &last, rec->id);
	if (ret == 0)
		ret = finish_read_failures(&failures, &nfailures, rec->dir);
	if (ret < 0)
		goto out;
	if (p.fail_fast && nfailures >= p.fail_fast) {
		strbuf_addf(out, "stopped by fail_fast after %u failures; the first:\n",
		            p.fail_fast);
		for (size_t i = 0; i < nfailures && i < p.fail_fast; i++) {
			const struct task_outcome *o =
			    failures[i] < ntasks ? &outcomes[failures[i]] : NULL;
			char *log = o ? outcome_log_path(rec->logs, rec->name, o->state,
			                                 o->array_job_id, o->array_task_id)
			              : NULL;

			strbuf_addf(out, "  task %zu: %s\n", failures[i], log ? log : "(no log)");
			free(log);
		}
	}
	if (!followup_wanted(&p) && !n)
		goto out;
	strbuf_addstr(out, "finishes itself:");
	if (p.retries)
		strbuf_addf(out, " retries %u (%u used)%s", p.retries, last > 1 ? last - 1 : 0,
		            p.retry_on_exit ? ", exits too" : "");
	if (p.mail)
		strbuf_addf(out, "%s mail to %s", p.retries ? "," : "", p.mail);
	if (p.command)
		strbuf_addf(out, "%s notify command", p.retries || p.mail ? "," : "");
	if (p.notified_at)
		strbuf_addstr(out, " (notified)");
	strbuf_addch(out, '\n');
	for (size_t i = 0; i < n; i++) {
		const struct followup_rec *f = &fs[i];

		if (f->state == FOLLOWUP_PENDING || f->state == FOLLOWUP_RUNNING)
			*active = true;
		strbuf_addf(out, "  follow-up %u", f->seq);
		if (f->job_id)
			strbuf_addf(out, " (job %" PRIu32 ")", f->job_id);
		strbuf_addf(out, " %s", followup_state_name(f->state));
		if (f->state == FOLLOWUP_PENDING)
			strbuf_addf(out, ", when job%s %s end%s: %s%s",
			            strchr(f->after, ',') ? "s" : "", f->after,
			            strchr(f->after, ',') ? "" : "s", f->purpose,
			            f->mail ? " (mail at its end)" : "");
		else if (f->note)
			strbuf_addf(out, ": %s", f->note);
		strbuf_addch(out, '\n');
	}
out:
	free(failures);
	followup_recs_free(fs, n);
	sweep_policy_release(&p);
	return ret;
}

int followup_cancel(size_t *n, struct store *st, const struct sweep_rec *rec)
{
	const struct backend_ops *ops = backend_get(rec->backend);
	struct followup_rec *fs = NULL;
	size_t nf = 0;
	int ret;

	*n = 0;
	if (!ops)
		return SWEEP_ERR;
	ret = store_load_followups(st, &fs, &nf, rec->id);
	/* First in the store, so that one starting now does nothing. */
	if (ret == 0)
		ret = store_cancel_followups(st, rec->id);
	for (size_t i = 0; ret == 0 && i < nf; i++) {
		struct array_rec arr = {.job_id = fs[i].job_id};

		if (fs[i].state != FOLLOWUP_PENDING)
			continue;
		(*n)++;
		if (arr.job_id && ops->cancel(st, rec, &arr, 1) < 0)
			ret = SWEEP_ERR;
	}
	followup_recs_free(fs, nf);
	return ret;
}
