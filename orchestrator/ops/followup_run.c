/*
 * Follow-ups, the running side: `sweep __followup` and the local runner's
 * end hook. The decisions are pure (aggregate/finish.c); this file does the
 * I/O around them: the wait for final records, the retry round (the
 * resubmission code itself, rerun.c), the report and the one notification.
 * Arranging the next follow-up is followup.c.
 */
#include "followup_run.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "cfg.h"
#include "causes.h"
#include "error.h"
#include "finish.h"
#include "followup.h"
#include "loaded.h"
#include "outcome.h"
#include "path.h"
#include "proc.h"
#include "result.h"
#include "rerun.h"
#include "rightsize.h"
#include "rolling.h"
#include "store.h"
#include "verdict.h"
#include "strbuf.h"
#include "submission.h"

#include "banned.h"

/* Seconds between two looks at accounting while records are on their way. */
#define SETTLE_POLL_S 3
/* The report and the notify command get this long each. */
#define REPORT_TIMEOUT_S 300
#define NOTIFY_TIMEOUT_S 600

static void ids_text(struct strbuf *out, const uint32_t *ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		strbuf_addf(out, "%s%" PRIu32, i ? "," : "", ids[i]);
}

/* Tasks whose final record may still be on its way to accounting. */
static size_t unsettled(const struct rerun *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->l->plan.ntasks; i++)
		if (r->l->outcomes[i].state == TS_MISSING || resubmit_active(&r->l->outcomes[i]))
			n++;
	return n;
}

/*
 * The jobs this follow-up waited for have ended, but accounting hears of a
 * task's end a moment later: look again, a bounded number of times.
 */
static int wait_for_records(struct rerun *r)
{
	time_t deadline = time(NULL) + FOLLOWUP_SETTLE_S;
	size_t n;

	while ((n = unsettled(r)) && time(NULL) < deadline) {
		sleep(SETTLE_POLL_S);
		if (loaded_outcomes(r->l) < 0)
			return SWEEP_ERR;
	}
	if (n)
		printf("%zu task%s still without a final record after %d s: taken as they are\n", n,
		       n == 1 ? "" : "s", FOLLOWUP_SETTLE_S);
	return 0;
}

static const char *program_path(const struct sweep_policy *p, char *buf, size_t size)
{
	ssize_t n;

	if (p->program)
		return p->program;
	n = readlink("/proc/self/exe", buf, size - 1);
	if (n <= 0)
		return "sweep";
	buf[n] = '\0';
	return buf;
}

/* <dir>/report.txt from `sweep report --allow-incomplete`, complete or not. */
static int write_report(char **path_out, struct store *st, const struct sweep_rec *rec,
                        const struct sweep_policy *p)
{
	char exe[PATH_MAX], id[32];
	const char *argv[] = {program_path(p, exe, sizeof(exe)),
	                      "report",
	                      "--state-dir",
	                      store_dir(st),
	                      id,
	                      "--allow-incomplete",
	                      NULL};
	struct proc_result res;
	char *path = xstrfmt("%s/%s", rec->dir, FOLLOWUP_REPORT);
	int ret;

	snprintf(id, sizeof(id), "%" PRId64, rec->id);
	proc_result_init(&res);
	ret = proc_run(&res, argv, NULL, REPORT_TIMEOUT_S);
	if (ret == 0) {
		if (res.err.len)
			strbuf_addf(&res.out, "%s%s", res.out.len ? "\n" : "", res.err.buf);
		ret = path_write_file(path, res.out.buf, res.out.len, PATH_PRIVATE_FILE);
	}
	proc_result_release(&res);
	*path_out = path;
	return ret;
}

static int run_notify_command(const struct sweep_rec *rec, const struct sweep_policy *p,
                              const char *report)
{
	const char *argv[] = {"bash", "-c", p->command, NULL};
	char *env[4];
	struct proc_result res;
	int ret = 0;

	env[0] = xstrfmt("SWEEP_ID=%" PRId64, rec->id);
	env[1] = xstrfmt("SWEEP_NAME=%s", rec->name);
	env[2] = xstrfmt("SWEEP_REPORT=%s", report);
	env[3] = NULL;
	proc_result_init(&res);
	printf("notify: running the command: %s\n", p->command);
	if (proc_run(&res, argv, (const char *const *)env, NOTIFY_TIMEOUT_S) < 0) {
		ret = SWEEP_ERR;
	} else {
		fputs(res.out.buf, stdout);
		fputs(res.err.buf, stdout);
		if (res.timed_out)
			ret = error("the notify command did not finish within %d s",
			            NOTIFY_TIMEOUT_S);
		else if (!res.exited || res.status != 0)
			ret = error("the notify command failed (%s %d)",
			            res.exited ? "exit status" : "signal", res.status);
	}
	proc_result_release(&res);
	for (size_t i = 0; i < 3; i++)
		free(env[i]);
	return ret;
}

/* The last follow-up: the report, then the one notification. Appends what it did to note. */
static int finish_last(struct strbuf *note, struct store *st, const struct sweep_rec *rec,
                       const struct sweep_policy *p, const struct followup_rec *self,
                       const struct backend_ops *ops, uint32_t self_job)
{
	char *report = NULL;
	bool claimed = false;
	int ret = 0;

	if (write_report(&report, st, rec, p) < 0)
		ret = SWEEP_ERR;
	strbuf_addf(note, "; report %s%s", report, ret < 0 ? " (could not be written)" : "");
	if (!p->mail && !p->command)
		goto out;
	if (store_claim_notification(st, &claimed, rec->id) < 0) {
		ret = SWEEP_ERR;
		goto out;
	}
	if (!claimed) {
		strbuf_addstr(note, "; already notified");
		goto out;
	}
	if (p->mail) {
		if (self->mail)
			strbuf_addf(note, "; mail to %s at this job's end", p->mail);
		else if (ops->mail_at_end && self_job && ops->mail_at_end(self_job, p->mail) == 0)
			strbuf_addf(note, "; mail to %s at this job's end", p->mail);
		else
			strbuf_addf(note, "; no mail to %s (%s)", p->mail,
			            ops->mail_at_end ? "the scheduler refused it"
			                             : "no scheduler here");
	}
	if (p->command) {
		if (run_notify_command(rec, p, report) < 0) {
			strbuf_addstr(note, "; the notify command failed");
			ret = SWEEP_ERR;
		} else {
			strbuf_addstr(note, "; notify command run");
		}
	}
out:
	free(report);
	return ret;
}

static size_t count_completed(const struct rerun *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->l->plan.ntasks; i++)
		n += gate_passed(&r->l->outcomes[i], NULL);
	return n;
}

/* A retry round: the selected tasks as the next attempt, and the follow-up after them. */
static int retry_round(struct strbuf *note, struct rerun *r, const struct sweep_policy *p,
                       const unsigned char *only, unsigned seq, bool next_is_last)
{
	struct resubmit_policy rp = {0};
	uint32_t next_job = 0, *ids;

	rp.mem_factor = RIGHTSIZE_MEM_FACTOR;
	rp.time_factor = RIGHTSIZE_TIME_FACTOR;
	rp.only = only;
	if (rerun_plan(r, &rp, false, true) < 0)
		return SWEEP_ERR;
	if (!r->rp.ntasks)
		return 0;
	if (rerun_submit(r) < 0)
		return SWEEP_ERR;
	ids = xcalloc(r->rp.narrays ? r->rp.narrays : 1, sizeof(*ids));
	for (size_t a = 0; a < r->rp.narrays; a++)
		ids[a] = r->jobs[a].job_id;
	if (followup_arrange(&next_job, r->l->st, &r->l->rec, p, seq + 1, ids, r->rp.narrays,
	                     next_is_last && p->mail) < 0) {
		/* Without a follow-up nobody would finish the sweep: do not leave the round
		 * running. */
		for (size_t a = 0; a < r->rp.narrays; a++) {
			struct array_rec arr = {.job_id = ids[a]};

			r->ops->cancel(r->l->st, &r->l->rec, &arr, 1);
		}
		strbuf_addstr(note, "retry round cancelled: its follow-up could not be arranged");
		free(ids);
		return SWEEP_ERR;
	}
	strbuf_addf(note, "retry round %u: %zu task%s resubmitted as attempt %u (array job%s ",
	            r->attempt - 1, r->rp.ntasks, r->rp.ntasks == 1 ? "" : "s", r->attempt,
	            r->rp.narrays == 1 ? "" : "s");
	ids_text(note, ids, r->rp.narrays);
	free(ids);
	strbuf_addf(note, ")");
	if (next_job)
		strbuf_addf(note, "; follow-up %u is job %" PRIu32, seq + 1, next_job);
	return 1;
}

static int find_self(struct followup_rec *out, struct store *st, int64_t sweep_id, unsigned seq)
{
	struct followup_rec *fs = NULL;
	size_t n = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = store_load_followups(st, &fs, &n, sweep_id);
	if (ret < 0)
		return ret;
	for (size_t i = 0; i < n; i++)
		if (fs[i].seq == seq) {
			out->seq = seq;
			out->job_id = fs[i].job_id;
			out->mail = fs[i].mail;
		}
	followup_recs_free(fs, n);
	if (!out->seq)
		return error("sweep %" PRId64 " has no follow-up %u", sweep_id, seq);
	return 0;
}

/*
 * With retry_on_exit, a task that completed without a usable metric runs
 * again too: which did (metric_failed[i]), by the verdict report gives.
 * NULL when the sweep's result sources cannot be told (error() reported).
 */
static unsigned char *metric_failures(const struct rerun *r)
{
	size_t n = r->l->plan.ntasks;
	unsigned char *failed;
	struct verdict v;

	verdict_init(&v);
	if (verdict_check_loaded(&v, r->l, NULL, 0) < 0) {
		verdict_release(&v);
		return NULL;
	}
	failed = xcalloc(n ? n : 1, 1);
	for (size_t k = 0; k < v.gate.nfailures; k++)
		if (gate_failure_of_result(&v.gate.failures[k]))
			failed[v.gate.failures[k].index] = 1;
	verdict_release(&v);
	return failed;
}

/*
 * A retry round that runs tasks which failed for no resource (retry_on_exit)
 * says so in its note; after a round, when every one of them still fails
 * the same such way, the retries stop: the same command fails the same way.
 */
static int check_retry_causes(struct strbuf *note, struct finish_input *in,
                              const struct loaded_sweep *l, unsigned char *only)
{
	struct causes c;
	struct strbuf why = STRBUF_INIT;
	size_t *sel = xcalloc(l->plan.ntasks ? l->plan.ntasks : 1, sizeof(*sel)), n = 0;
	bool same;

	if (causes_load(&c, l->st, &l->rec, l->outcomes, l->plan.ntasks) < 0) {
		free(sel);
		return SWEEP_ERR;
	}
	for (size_t i = 0; i < l->plan.ntasks; i++)
		if (only[i])
			sel[n++] = i;
	same = causes_rerun_check(&why, &c, sel, n);
	strbuf_trim_trailing_newlines(&why);
	if (same && in->retries_done && in->retries_done < in->retries) {
		strbuf_addf(note,
		            "retries stopped: retry round %u failed the same way everywhere:%s",
		            in->retries_done, why.buf + strcspn(why.buf, ":") + 1);
		memset(only, 0, l->plan.ntasks);
		in->nselected = 0;
	} else if (why.len && in->retries_done < in->retries && in->nselected) {
		strbuf_addf(note, "re-running tasks that failed for no resource: %s; ",
		            why.buf + strspn(why.buf, " "));
	}
	causes_release(&c);
	strbuf_release(&why);
	free(sel);
	return 0;
}

/* Runs follow-up seq of the sweep: claim, wait for records, decide, act, record. */
static int run_followup(struct loaded_sweep *l, unsigned seq, uint32_t self_job)
{
	struct store *st = l->st;
	const struct sweep_rec *rec = &l->rec;
	struct sweep_policy p;
	struct followup_rec self;
	struct finish_input in = {0};
	struct finish_decision d;
	struct strbuf note = STRBUF_INIT;
	struct rerun r;
	unsigned char *only = NULL, *metric_failed = NULL;
	size_t *failures = NULL, nfailures = 0;
	unsigned last = 0;
	bool claimed;
	int ret;

	memset(&p, 0, sizeof(p));
	rerun_init(&r);
	ret = find_self(&self, st, rec->id, seq);
	if (ret == 0)
		ret = store_claim_followup(st, &claimed, rec->id, seq);
	if (ret < 0)
		goto out;
	if (!claimed) {
		printf("follow-up %u of sweep %" PRId64
		       " was cancelled or has run: nothing to do\n",
		       seq, rec->id);
		goto out;
	}
	printf("follow-up %u of sweep %" PRId64 " '%s': the jobs it waited for have ended\n", seq,
	       rec->id, rec->name);
	ret = store_load_policy(st, &p, rec->id);
	if (ret == 0)
		ret = loaded_plan(l);
	if (ret == 0)
		ret = loaded_outcomes(l);
	if (ret == 0)
		ret = rerun_start(&r, l);
	if (ret == 0)
		ret = finish_read_failures(&failures, &nfailures, rec->dir);
	if (ret < 0)
		goto fail;
	/* Rolling: chunks still to submit come first; the running ones need no wait. */
	if (rec->roll_chunk && rolling_next_index(rec, l->arrays, l->narrays) < rec->ntasks &&
	    !(p.fail_fast && nfailures >= p.fail_fast)) {
		ret = rolling_continue(&note, st, rec, &p, l->arrays, l->narrays, seq);
		printf("%s\n", note.buf);
		if (store_end_followup(st, rec->id, seq, ret < 0 ? FOLLOWUP_FAILED : FOLLOWUP_DONE,
		                       note.buf) < 0)
			ret = SWEEP_ERR;
		goto out;
	}
	free(failures);
	failures = NULL;
	if (ret == 0)
		ret = wait_for_records(&r);
	if (ret == 0)
		ret = store_last_attempt(st, &last, rec->id);
	if (ret == 0)
		ret = finish_read_failures(&failures, &nfailures, rec->dir);
	if (ret < 0)
		goto fail;

	only = xcalloc(l->plan.ntasks ? l->plan.ntasks : 1, 1);
	in.retries = p.retries;
	in.retries_done = last ? last - 1 : 0;
	if (p.retry_on_exit)
		metric_failed = metric_failures(&r);
	in.nselected =
	    finish_select(only, l->outcomes, l->plan.ntasks, p.retry_on_exit, metric_failed);
	in.stopped = p.fail_fast && nfailures >= p.fail_fast;
	if (p.retry_on_exit && in.nselected && check_retry_causes(&note, &in, l, only) < 0)
		goto fail;
	/* Issue 17 (rolling submission) sets in.more_to_submit and acts on FINISH_CONTINUE. */
	finish_decide(&d, &in);
	if (d.action == FINISH_RETRY) {
		ret = retry_round(&note, &r, &p, only, seq, d.next_is_last);
		if (ret > 0) {
			printf("%s\n", note.buf);
			ret = store_end_followup(st, rec->id, seq, FOLLOWUP_DONE, note.buf);
			goto out;
		}
		if (ret < 0)
			strbuf_addf(&note, "%s%s", note.len ? "; " : "", error_last());
		/* Nothing to run again after all, or the round failed: this one is the last. */
	}
	strbuf_addf(&note, "%sfinal: %zu of %zu task%s completed", note.len ? "; " : "",
	            count_completed(&r), l->plan.ntasks, l->plan.ntasks == 1 ? "" : "s");
	if (in.stopped)
		strbuf_addf(&note, ", stopped by fail_fast after %u failures", p.fail_fast);
	else if (in.retries_done)
		strbuf_addf(&note, " after %u retry round%s", in.retries_done,
		            in.retries_done == 1 ? "" : "s");
	if (finish_last(&note, st, rec, &p, &self, r.ops, self_job) < 0)
		ret = SWEEP_ERR;
	printf("%s\n", note.buf);
	if (store_end_followup(st, rec->id, seq, ret < 0 ? FOLLOWUP_FAILED : FOLLOWUP_DONE,
	                       note.buf) < 0)
		ret = SWEEP_ERR;
	goto out;
fail:
	strbuf_addf(&note, "failed: %s", error_last());
	store_end_followup(st, rec->id, seq, FOLLOWUP_FAILED, note.buf);
out:
	free(only);
	free(metric_failed);
	free(failures);
	rerun_release(&r);
	sweep_policy_release(&p);
	strbuf_release(&note);
	return ret;
}

static int parse_uint(unsigned long long *out, const char *s, unsigned long long max)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 10);
	return errno || end == s || *end || *s == '-' || *out == 0 || *out > max ? -1 : 0;
}

int followup_run_main(int argc, char **argv)
{
	unsigned long long id, seq, job = 0;
	struct loaded_sweep l;
	const char *env_job = getenv("SLURM_JOB_ID");
	char idstr[32];
	int ret = EXIT_ERROR;

	if (argc != 5 || strcmp(argv[1], "--state-dir") || parse_uint(&id, argv[3], INT64_MAX) ||
	    parse_uint(&seq, argv[4], UINT32_MAX)) {
		error("usage: sweep %s --state-dir DIR SWEEP_ID SEQ (a follow-up job runs it)",
		      FOLLOWUP_COMMAND);
		return EXIT_USAGE;
	}
	if (env_job && parse_uint(&job, env_job, UINT32_MAX))
		job = 0;
	loaded_init(&l);
	snprintf(idstr, sizeof(idstr), "%llu", id);
	if (loaded_open(&l, argv[2], idstr) == 0 &&
	    run_followup(&l, (unsigned)seq, (uint32_t)job) == 0)
		ret = EXIT_OK;
	loaded_release(&l);
	fflush(stdout);
	return ret;
}

/* Whether the list "12,13" holds id. */
static bool list_has(const char *list, uint32_t id)
{
	for (const char *p = list; *p;) {
		char *end;
		unsigned long v = strtoul(p, &end, 10);

		if (end == p)
			return false;
		if (v == id)
			return true;
		p = *end ? end + 1 : end;
	}
	return false;
}

int followup_run_local_ended(const char *state_dir, int64_t sweep_id, uint32_t job_id)
{
	struct store *st = NULL;
	struct followup_rec *fs = NULL;
	size_t n = 0;
	char idstr[32];
	int ret;

	snprintf(idstr, sizeof(idstr), "%" PRId64, sweep_id);
	ret = store_open(&st, state_dir, 0);
	if (ret == 0)
		ret = store_load_followups(st, &fs, &n, sweep_id);
	for (size_t i = 0; ret == 0 && i < n; i++) {
		const struct followup_rec *f = &fs[i];
		bool all = true;

		if (f->state != FOLLOWUP_PENDING || f->job_id || !list_has(f->after, job_id))
			continue;
		/* The runner of the last of its jobs to end runs it; the claim makes it once. */
		for (const char *p = f->after; ret == 0 && all && *p;) {
			char *end;
			unsigned long v = strtoul(p, &end, 10);

			if (end == p)
				break;
			if (v != job_id)
				ret = backend_local_job_done(&all, st, (uint32_t)v);
			p = *end ? end + 1 : end;
		}
		if (ret == 0 && all) {
			struct loaded_sweep l;

			loaded_init(&l);
			ret = loaded_open(&l, state_dir, idstr);
			if (ret == 0)
				ret = run_followup(&l, f->seq, 0);
			loaded_release(&l);
			break;
		}
	}
	followup_recs_free(fs, n);
	store_close(st);
	return ret;
}
