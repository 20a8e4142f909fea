/*
 * What submit and confirm print of a submission (submit.h): the dry run's
 * script, checks, plan and task table, and the summary of what was
 * submitted. Both commands print the same, so it lives here once.
 */
#include "submit.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "array.h"
#include "backend.h"
#include "error.h"
#include "submission.h"
#include "units.h"

#include "banned.h"

/* --dry-run: where checkpoints are pruned and what is staged. */
static void print_storage(const struct cfg *cfg, const struct script_input *in)
{
	char need[32];

	if (cfg->checkpoint.keep_given)
		printf("# checkpoints: each task keeps its newest %u file%s matching '%s' in %s\n",
		       cfg->checkpoint.keep, cfg->checkpoint.keep == 1 ? "" : "s",
		       cfg->checkpoint.pattern ? cfg->checkpoint.pattern : "*",
		       cfg->checkpoint.dir ? cfg->checkpoint.dir : "its task folder");
	if (!cfg->nstage)
		return;
	units_format_bytes(need, sizeof(need), in->stage_need);
	printf("# stage: once per node into %s, up to %s:\n",
	       cfg->slurm.tmp_base ? cfg->slurm.tmp_base : "$TMPDIR (else /tmp)", need);
	for (size_t i = 0; i < cfg->nstage; i++)
		printf("#   %s\n", cfg->stage[i].path);
}

static void print_task_table(const struct plan *plan)
{
	printf("index\tsetting\tseed");
	for (size_t p = 0; p < plan->nparams; p++)
		printf("\t%s", plan->params[p]);
	printf("\n");
	for (size_t i = 0; i < plan->ntasks; i++) {
		size_t s = plan_setting_of(plan, i);

		printf("%zu\t%zu\t%" PRId64, i, s, plan_seed_of(plan, i));
		for (size_t p = 0; p < plan->nparams; p++)
			printf("\t%s", plan_value(plan, s, p));
		printf("\n");
	}
}

/* The last sweep index of a chunk whose array tasks each run pack tasks. */
static size_t chunk_last(const struct array_chunk *c, unsigned pack, size_t ntasks)
{
	size_t last = (size_t)c->offset + (size_t)c->count * pack - 1;

	return last < ntasks ? last : ntasks - 1;
}

static void print_chunks(const struct backend_ops *ops, const struct array_chunk *chunks, size_t n,
                         unsigned k, unsigned pack, size_t ntasks)
{
	char spec[64];

	if (n <= 1)
		return;
	printf("# %zu array jobs%s.\n", n,
	       k ? ", each starting after the previous one ends, so the throttle holds" : "");
	for (size_t c = 0; c < n; c++) {
		array_spec(spec, sizeof(spec), chunks[c].count, k);
		printf("#   %s --array=%s SCRIPT %" PRIu32 "   (tasks %" PRIu32 "-%zu)\n",
		       ops->submitter, spec, chunks[c].offset, chunks[c].offset,
		       chunk_last(&chunks[c], pack, ntasks));
	}
}

static void print_plan(const struct quota *q, const struct rollout_plan *rp, size_t ntasks,
                       unsigned pack, uint64_t units)
{
	printf("# --- limits ---\n");
	if (q->user)
		quota_print(q, "# ");
	else
		printf("# (not read)\n");
	printf("# --- plan ---\n");
	if (pack > 1)
		printf("# pack %u: %zu tasks in %" PRIu64
		       " array tasks, each task a job step of its "
		       "own; each array task's time limit is %u times the task's\n",
		       pack, ntasks, units, pack);
	if (rp->nnow == rp->nchunks) {
		printf("# all %" PRIu64 " array tasks fit now", units);
		if (rp->bound >= 0)
			printf(" (room for %" PRIu64 " under %s, keeping 10%% of it free)",
			       rp->budget, q->submit[rp->bound].what);
		printf("\n");
		return;
	}
	printf("# %" PRIu64 " array tasks do not fit: room for %" PRIu64 " now under %s "
	       "(keeping 10%% of it free), %" PRIu64 " with nothing else queued\n",
	       units, rp->budget, q->submit[rp->bound].what, rp->capacity);
	if (rp->nnow)
		printf("# rolling: %zu chunk%s of up to %" PRIu32 " array tasks now, the other %zu "
		       "submitted by follow-up jobs as earlier chunks end\n",
		       rp->nnow, rp->nnow == 1 ? "" : "s", rp->chunks[0].count,
		       rp->nchunks - rp->nnow);
	else
		printf("# nothing fits now: submit refuses until queued jobs end\n");
	if (rollout_pack_to_fit(ntasks, rp->budget) > pack)
		printf("# pack: %" PRIu64 " would fit the whole sweep now\n",
		       rollout_pack_to_fit(ntasks, rp->budget));
}

/* Prints every line of text with prefix before it. */
static void print_prefixed(const char *text, const char *prefix)
{
	for (const char *p = text; *p;) {
		size_t len = strcspn(p, "\n");

		printf("%s%.*s\n", prefix, (int)len, p);
		p += len + (p[len] != 0);
	}
}

/* "N reused, M to run", from which sweeps, and why the rest runs. */
static void print_extend(const struct extend *x, size_t ntasks, const char *prefix)
{
	struct strbuf sb = STRBUF_INIT;

	printf("%s%zu reused, %zu to run\n", prefix, x->nreused, ntasks - x->nreused);
	extend_describe(&sb, x->from_sweep, ntasks);
	if (x->why.len)
		strbuf_addstr(&sb, x->why.buf);
	print_prefixed(sb.buf, prefix);
	strbuf_release(&sb);
}

/* For --dry-run: per setting, reused, changed or new. */
static void print_settings(const struct extend *x, const struct plan *plan)
{
	struct strbuf sb = STRBUF_INIT;

	extend_describe_settings(&sb, x, plan);
	print_prefixed(sb.buf, "# ");
	strbuf_release(&sb);
}

static void print_followup(const struct sweep_policy *p, const struct sweep_rec *rec,
                           uint32_t job_id)
{
	printf("finishes itself:");
	if (p->retries)
		printf(" up to %u retry round%s%s", p->retries, p->retries == 1 ? "" : "s",
		       p->retry_on_exit ? " (non-zero exits too)" : "");
	if (p->mail || p->command)
		printf("%s one notification (%s%s%s)", p->retries ? ", then" : "",
		       p->mail ? "mail to " : "", p->mail ? p->mail : "",
		       p->command ? (p->mail ? ", command" : "command") : "");
	printf("\n");
	if (job_id)
		printf("follow-up: job %" PRIu32 " runs '%s' when the array jobs end: it must stay "
		       "there and be visible on the compute nodes (a shared filesystem)\n",
		       job_id, p->program);
	else
		printf("follow-up: the runner of the sweep's last array job does it (see "
		       "%s/runner-*.log)\n",
		       rec->dir);
}

static size_t count_lines(const char *text)
{
	size_t n = 0;

	for (; *text; text++)
		n += *text == '\n';
	return n;
}

/*
 * --dry-run: the checks, the plan and the task table first, what a person
 * reads, then the script (about 300 lines) after a header naming it;
 * nothing is submitted or recorded.
 */
int submit_print_dry_run(const struct submit *s)
{
	size_t ntasks = s->plan.ntasks;

	if (submit_check_checkpoint_space(&s->cfg, &s->plan, s->cwd, s->state_dir, stdout) < 0)
		return SWEEP_ERR;
	printf("# --- %zu tasks ---\n", ntasks);
	if (!s->o.extend_from) {
		print_plan(&s->quota, &s->rp, ntasks, s->cfg.pack, s->units);
		print_chunks(s->ops, s->chunks, s->nchunks, s->cfg.slurm.max_concurrent,
		             s->cfg.pack, ntasks);
	}
	print_storage(&s->cfg, &s->in);
	print_task_table(&s->plan);
	if (s->o.extend_from) {
		print_extend(&s->ext, ntasks, "# ");
		print_settings(&s->ext, &s->plan);
		for (size_t c = 0; c < s->njobs; c++)
			printf("#   %s --array=%s SCRIPT %" PRIu32 "\n", s->ops->submitter,
			       s->jobs[c].array, s->jobs[c].offset);
	}
	printf("\n# --- the script (%zu lines; written to the sweep's folder at submit) ---\n",
	       count_lines(s->script.buf));
	fputs(s->script.buf, stdout);
	return 0;
}

/* What was submitted, and what comes next. */
void submit_print_submitted(const struct submit *s)
{
	const struct sweep_rec *rec = &s->rec;
	const struct plan *plan = &s->plan;
	unsigned pack = s->cfg.pack;

	printf("sweep %" PRId64 " '%s': %zu tasks (%zu setting%s x %zu seed%s)\n", rec->id,
	       rec->name, plan->ntasks, plan->nsettings, plan->nsettings == 1 ? "" : "s",
	       plan->nseeds, plan->nseeds == 1 ? "" : "s");
	if (s->o.extend_from) {
		print_extend(&s->ext, plan->ntasks, "");
		for (size_t c = 0; c < s->njobs; c++)
			printf("array job %" PRIu32 ": --array=%s, offset %" PRIu32 "\n",
			       s->jobs[c].job_id, s->jobs[c].array, s->jobs[c].offset);
	} else {
		for (size_t c = 0; c < s->njobs; c++)
			printf("array job %" PRIu32 ": tasks %" PRIu32 "-%zu\n", s->jobs[c].job_id,
			       s->chunks[c].offset, chunk_last(&s->chunks[c], pack, plan->ntasks));
	}
	if (pack > 1)
		printf("packed: %u tasks per array task, one after another, each recorded by "
		       "%s; each array task's time limit is %u times the task's%s\n",
		       pack, s->in.sweep_bin ? "sweep (packs/)" : "a job step of its own", pack,
		       s->cfg.slurm.time_min ? "" : " (no time limit given)");
	printf("script: %s\nlogs:   %s\nnext:   sweep status %" PRId64 "\n", rec->script, rec->logs,
	       rec->id);
	if (s->o.local)
		printf("runs on this machine in the background: %s/runner-*.log\n", rec->dir);
	if (s->rolling)
		printf("rolling: %zu of %zu tasks submitted now (room for %" PRIu64
		       " array tasks under %s, keeping 10%% of it free); follow-up job %" PRIu32
		       " submits the next chunks when array job %" PRIu32
		       " ends, and so on until all are in ('sweep cancel' stops it)\n",
		       chunk_last(&s->chunks[s->njobs - 1], pack, plan->ntasks) + 1, plan->ntasks,
		       s->rp.budget, s->quota.submit[s->rp.bound].what, s->followup_job,
		       s->jobs[0].job_id);
	else if (followup_wanted(&s->policy) && s->njobs)
		print_followup(&s->policy, rec, s->followup_job);
}
