/*
 * The submit pipeline (submit.h): each step below hands on through struct
 * submit, and a failure after the sweep is recorded marks it failed there,
 * where the cause is known.
 */
#include "submit.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array.h"
#include "backend.h"
#include "cfg.h"
#include "error.h"
#include "extend.h"
#include "fault.h"
#include "followup.h"
#include "plan.h"
#include "path.h"
#include "proc.h"
#include "quota.h"
#include "reuse.h"
#include "rollout.h"
#include "script.h"
#include "script_followup.h"
#include "script_stage.h"
#include "sizing.h"
#include "space.h"
#include "store.h"
#include "strbuf.h"
#include "submission.h"

#include "banned.h"

static int check_syntax(const char *path)
{
	const char *argv[] = {"bash", "-n", path, NULL};
	struct proc_result res;
	int ret = 0;

	proc_result_init(&res);
	if (proc_run(&res, argv, NULL, 30) < 0) {
		ret = SWEEP_ERR;
	} else if (!res.exited || res.status != 0) {
		strbuf_trim_trailing_newlines(&res.err);
		ret = error("the generated script is not valid bash (check the command and setup "
		            "in the sweep file):\n%s",
		            res.err.buf);
	}
	proc_result_release(&res);
	return ret;
}

/* A template path is relative to the sweep file's folder, like an include. */
static int load_template(struct strbuf *out, const struct cfg *cfg, const char *source)
{
	char *path, *dir;
	int ret = 0;

	if (!cfg->template_path) {
		strbuf_addstr(out, script_default_template);
		return 0;
	}
	dir = xstrndup(source, (size_t)(strrchr(source, '/') - source));
	path = path_absolute(cfg->template_path, dir);
	free(dir);
	if (strbuf_read_file_max(out, path, SCRIPT_TEMPLATE_MAX_BYTES, STRBUF_READ_PIPE) < 0) {
		if (errno == EFBIG)
			ret = error("cannot read the script template '%s': larger than %u MiB",
			            path, SCRIPT_TEMPLATE_MAX_BYTES >> 20);
		else if (errno == EINVAL)
			ret = error("cannot read the script template '%s': not a regular file or a "
			            "pipe",
			            path);
		else
			ret = error("cannot read the script template '%s': %s", path,
			            strerror(errno));
	}
	free(path);
	return ret;
}

int submit_check_checkpoint_space(const struct cfg *cfg, const struct plan *plan, const char *cwd,
                                  const char *state_dir, FILE *show)
{
	size_t at_once = cfg->slurm.max_concurrent && cfg->slurm.max_concurrent < plan->ntasks
	                     ? cfg->slurm.max_concurrent
	                     : plan->ntasks;
	uint64_t need;
	char *dir;
	int ret;

	if (!cfg->checkpoint.size_mb)
		return 0;
	dir = space_checkpoint_root(cfg->checkpoint.dir, cwd, state_dir);
	if (!dir) {
		if (show)
			printf("# checkpoint space: not checked: 'checkpoint.dir' '%s' is on each "
			       "node's local disk ({stage})\n",
			       cfg->checkpoint.dir);
		return 0;
	}
	need = space_needed_mb(plan->ntasks, cfg->slurm.max_concurrent, cfg->checkpoint.size_mb,
	                       cfg->checkpoint.keep);
	ret = space_check(dir, need, at_once, cfg->checkpoint.size_mb, cfg->checkpoint.keep,
	                  &diskquota_system, show);
	free(dir);
	return ret;
}

/* The rollout plan's chunks as sweep indices: array task a covers pack tasks. */
static struct array_chunk *plan_chunks(const struct rollout_plan *rp, unsigned pack, size_t *n)
{
	struct array_chunk *chunks = xcalloc(rp->nchunks ? rp->nchunks : 1, sizeof(*chunks));

	for (size_t c = 0; c < rp->nchunks; c++) {
		chunks[c].offset = (uint32_t)(rp->chunks[c].first * pack);
		chunks[c].count = rp->chunks[c].count;
	}
	*n = rp->nchunks;
	return chunks;
}

/*
 * The limits and the plan they lead to, read before anything is
 * submitted. A dry run works without a cluster: it then says what it could
 * not read.
 */
static int read_limits(struct quota *q, struct rollout_plan *rp, const struct backend_ops *ops,
                       const struct cfg *cfg, uint64_t units, int dry_run)
{
	uint32_t max_array = 0;

	if (ops->limits) {
		if (dry_run)
			error_set_handler(error_as_warning);
		if (ops->limits(q, cfg->slurm.account, cfg->slurm.qos) < 0) {
			error_set_handler(NULL);
			if (!dry_run)
				return SWEEP_ERR;
			warning("showing the sweep without the cluster's limits: they are unknown");
		}
		error_set_handler(NULL);
		max_array = q->max_array;
	} else if (submission_max_array_size(ops, &max_array, dry_run,
	                                     "showing the sweep as one array: MaxArraySize is "
	                                     "unknown") < 0) {
		return SWEEP_ERR;
	}
	q->max_array = max_array;
	return rollout_plan_make(rp, units, max_array, q->submit, q->nsubmit, ROLLOUT_HEADROOM);
}

/*
 * The reused tasks of an extending sweep: recorded, and their result.json
 * copied over when the sweep's metrics are in one (with results: log or
 * another file there is none; report reads them where they ran).
 */
static int record_reused(struct store *st, const struct sweep_rec *rec, const struct extend *x,
                         const struct cfg *cfg)
{
	struct reused_rec *rows = xcalloc(x->nreused ? x->nreused : 1, sizeof(*rows));
	size_t n = 0;
	int ret;

	for (size_t j = 0; j < x->ntasks; j++)
		if (x->from_sweep[j]) {
			rows[n].index = j;
			rows[n].from_sweep = x->from_sweep[j];
			rows[n].from_index = x->from_index[j];
			n++;
		}
	ret = n ? store_add_reused(st, rec->id, rows, n) : 0;
	if (ret == 0 && n && cfg_results_in_sweep_result(&cfg->results))
		ret = extend_copy_results(x, st, rec);
	free(rows);
	return ret;
}

/* The first follow-up: once every array job has ended. Surely the last one without retries. */
static int arrange_followup(uint32_t *job_id, struct store *st, const struct sweep_rec *rec,
                            const struct sweep_policy *policy, const struct submission_job *jobs,
                            size_t n)
{
	uint32_t *ids = xcalloc(n ? n : 1, sizeof(*ids));
	int ret;

	for (size_t c = 0; c < n; c++)
		ids[c] = jobs[c].job_id;
	ret =
	    followup_arrange(job_id, st, rec, policy, 1, ids, n, policy->mail && !policy->retries);
	free(ids);
	return ret;
}

/* Rolling: the first follow-up runs when the first chunk ends, to submit the next ones. */
static int arrange_rolling(uint32_t *job_id, struct store *st, const struct sweep_rec *rec,
                           const struct sweep_policy *policy, const struct submission_job *jobs,
                           size_t n)
{
	size_t next = 0;
	char *purpose;
	int ret;

	for (size_t c = 0; c < n; c++) {
		size_t end = jobs[c].offset + (size_t)quota_count_tasks(jobs[c].array) * rec->pack;

		if (end > next)
			next = end;
	}
	purpose = xstrfmt("submit the next chunks (%zu of %zu tasks submitted)",
	                  next < rec->ntasks ? next : rec->ntasks, rec->ntasks);
	ret =
	    followup_arrange_for(job_id, st, rec, policy, 1, &jobs[0].job_id, 1, false, purpose, 0);
	free(purpose);
	return ret;
}

/* The command's first word and where this host's PATH finds it, for the cause lines of failures. */
static int record_program(struct store *st, int64_t sweep_id, const char *command)
{
	char *name = script_program(command), *path = name ? path_which(name) : NULL;
	int ret = name ? store_set_program(st, sweep_id, name, path) : 0;

	free(name);
	free(path);
	return ret;
}

void submit_init(struct submit *s)
{
	memset(s, 0, sizeof(*s));
	cfg_init(&s->cfg);
	plan_init(&s->plan);
	strbuf_init(&s->tmpl, 0);
	strbuf_init(&s->script, 0);
	strbuf_init(&s->spec_text, 0);
	sweep_rec_init(&s->rec);
	quota_init(&s->quota);
	extend_init(&s->ext);
	s->lock_fd = -1;
}

void submit_release(struct submit *s)
{
	sweep_policy_release(&s->policy);
	extend_release(&s->ext);
	if (s->lock_fd >= 0)
		close(s->lock_fd);
	submission_jobs_free(s->jobs, s->njobs);
	free(s->chunks);
	quota_release(&s->quota);
	rollout_plan_release(&s->rp);
	free(s->logs);
	free(s->source);
	free(s->bin);
	free(s->dry_dir);
	free(s->dry_script);
	free(s->state_dir);
	strbuf_release(&s->tmpl);
	strbuf_release(&s->script);
	strbuf_release(&s->spec_text);
	sweep_rec_release(&s->rec);
	store_close(s->st);
	plan_release(&s->plan);
	cfg_release(&s->cfg);
}

/* The sweep file, read once (what is checked is what the store keeps: a pipe has no second read).
 */
static int read_sweep_file(struct submit *s)
{
	struct cfg *cfg = &s->cfg;

	if (cfg_read_file(&s->spec_text, s->o.file) < 0 ||
	    cfg_load_string(cfg, s->o.file, s->spec_text.buf, s->spec_text.len) < 0 ||
	    plan_expand(&s->plan, cfg) < 0 || plan_check_sizes(&s->plan, cfg) < 0 ||
	    followup_policy_from_cfg(&s->policy, cfg) < 0)
		return SWEEP_ERR;
	if (cfg->signal_note)
		warning("%s", cfg->signal_note);
	if (s->o.resources_from && sizing_apply(cfg, s->o.state_dir, s->o.resources_from) < 0)
		return SWEEP_ERR;
	if (s->o.gpus) {
		/* The script carries it, so a resubmission asks the same. */
		free(cfg->slurm.gpus_per_task);
		cfg->slurm.gpus_per_task = strtoul(s->o.gpus, NULL, 10) ? xstrdup(s->o.gpus) : NULL;
	}
	if (s->o.local && cfg->pack > 1)
		return error("'pack: %u' packs tasks into Slurm array tasks: it does not work "
		             "with --local; use 'pack: 1'",
		             cfg->pack);
	if (s->plan.ntasks > UINT32_MAX)
		return error("the sweep has %zu tasks, more than Slurm can index", s->plan.ntasks);
	return 0;
}

/* The limits, the chunks under them, and whether the sweep rolls in. */
static int plan_submission(struct submit *s)
{
	unsigned pack = s->cfg.pack;
	uint64_t fit;
	char *how;

	s->units = (s->plan.ntasks + pack - 1) / pack;
	if (read_limits(&s->quota, &s->rp, s->ops, &s->cfg, s->units, s->o.dry_run) < 0)
		return SWEEP_ERR;
	s->chunks = plan_chunks(&s->rp, pack, &s->nchunks);
	s->rolling = s->rp.nnow < s->rp.nchunks;
	/* Rolling needs one chunk in to wait for, and follow-up jobs. */
	if (s->o.dry_run || !s->rolling || (s->rp.nnow && s->ops->followup))
		return 0;
	fit = rollout_pack_to_fit(s->plan.ntasks, s->rp.budget);
	how = fit ? xstrfmt("set 'pack: %" PRIu64 "' in the sweep file to pack that "
	                    "many tasks into each array task (it fits now)",
	                    fit)
	          : xstrdup("wait until your queued jobs end");
	error("the sweep's %" PRIu64 " array tasks do not fit under %s: room for %" PRIu64
	      " now (keeping 10%% of the limit free)%s; %s",
	      s->units, s->quota.submit[s->rp.bound].what, s->rp.budget,
	      s->rp.budget < s->rp.capacity ? ", more once your queued jobs end" : "", how);
	free(how);
	return SWEEP_ERR;
}

/*
 * The template, and the script rendered once before the store is touched
 * (every mistake shows up here); with --extend, what the earlier sweeps
 * already ran and the array jobs of the rest.
 */
static int render_dry(struct submit *s)
{
	struct script_input *in = &s->in;

	s->logs = path_absolute(s->cfg.logs ? s->cfg.logs : "logs", s->cwd);
	s->source = path_absolute(s->o.file, s->cwd);
	if (load_template(&s->tmpl, &s->cfg, s->source) < 0)
		return SWEEP_ERR;
	/* A template copied before fail_fast existed would ignore it silently. */
	if (s->cfg.fail_fast && !strstr(s->tmpl.buf, "SWEEP_FAIL_FAST"))
		return error("'fail_fast' needs the template's \"Fail fast\" section, which reads "
		             "SWEEP_FAIL_FAST; '%s' has none: copy it from templates/array.sbatch",
		             s->cfg.template_path);
	/* What makes a task the same computation, for a later --extend of this sweep. */
	s->policy.recipe = reuse_recipe(&s->cfg, s->tmpl.buf);
	in->cfg = &s->cfg;
	in->plan = &s->plan;
	in->logs = s->logs;
	in->workdir = s->cwd;
	in->source = s->source;
	in->array_limit = s->quota.max_array;
	/* Packed tasks run through this binary where the nodes have it (else srun). */
	if (s->cfg.pack > 1) {
		s->bin = path_self_exe();
		in->sweep_bin = s->bin;
	}
	if (script_stage_measure(&in->stage_need, &s->cfg, s->cwd) < 0 ||
	    script_keep_check(&s->cfg, &s->plan, s->cwd) < 0)
		return SWEEP_ERR;
	s->state_dir = path_absolute(s->o.state_dir, s->cwd);
	s->dry_dir = xstrfmt("%s/sweeps/DRY-RUN", s->state_dir);
	s->dry_script = xstrfmt("%s/%s.sbatch", s->dry_dir, s->cfg.name);
	in->sweep_id = 0;
	in->sweep_dir = s->dry_dir;
	in->script = s->dry_script;
	if (script_render(&s->script, s->tmpl.buf, in) < 0)
		return SWEEP_ERR;
	if (!s->o.extend_from)
		return 0;
	if (store_open(&s->st, s->state_dir, 0) < 0 ||
	    extend_find(&s->ext, s->st, s->o.extend_from, &s->plan, s->policy.recipe) < 0)
		return SWEEP_ERR;
	s->policy.extends = s->ext.base;
	s->jobs = submission_jobs_sparse(s->plan.ntasks, s->ext.from_sweep, s->quota.max_array,
	                                 s->cfg.slurm.max_concurrent, &s->njobs);
	return 0;
}

/*
 * Records the sweep (SUBMITTING) and takes the submission lock, held until
 * it is marked submitted or failed (see submission_recover). A failure
 * after the record marks it failed.
 */
static int record_sweep(struct submit *s)
{
	struct sweep_rec *rec = &s->rec;

	if (submit_check_checkpoint_space(&s->cfg, &s->plan, s->cwd, s->state_dir, NULL) < 0)
		return SWEEP_ERR;
	if (!s->st && store_open(&s->st, s->state_dir, 1) < 0)
		return SWEEP_ERR;
	rec->name = xstrdup(s->cfg.name);
	rec->source = xstrdup(s->source);
	rec->logs = xstrdup(s->logs);
	rec->backend = xstrdup(s->ops->name);
	rec->max_concurrent = s->cfg.slurm.max_concurrent;
	rec->pack = s->cfg.pack;
	rec->task_layout = script_task_layout(s->tmpl.buf);
	if (s->rolling) {
		rec->roll_chunk = s->rp.chunks[0].count;
		if (followup_set_program(&s->policy) < 0)
			return SWEEP_ERR;
	}
	fault_point("submit-before-record");
	if (store_begin_sweep(s->st, rec, &s->plan, s->spec_text.buf) < 0)
		return SWEEP_ERR;
	fault_point("submit-after-record");
	if (store_set_policy(s->st, rec->id, &s->policy) < 0 ||
	    record_reused(s->st, rec, &s->ext, &s->cfg) < 0 ||
	    record_program(s->st, rec->id, s->cfg.command) < 0)
		goto failed;
	s->lock_fd = submission_lock(rec->dir);
	if (s->lock_fd < 0)
		goto failed;
	fault_point("submit-after-lock");
	return 0;
failed:
	store_finish_sweep(s->st, rec->id, SWEEP_FAILED, error_last());
	return SWEEP_ERR;
}

/* The sweep's own script and files, and the follow-up's script; a failure marks the sweep failed.
 */
static int write_scripts(struct submit *s)
{
	struct script_input *in = &s->in;
	struct sweep_rec *rec = &s->rec;
	struct script_followup f;

	strbuf_reset(&s->script);
	in->sweep_id = rec->id;
	in->sweep_dir = rec->dir;
	in->script = rec->script;
	f.sweep_id = rec->id;
	f.name = rec->name;
	f.dir = rec->dir;
	f.program = s->policy.program;
	f.state_dir = s->state_dir;
	f.workdir = s->cwd;
	if (script_render(&s->script, s->tmpl.buf, in) < 0 ||
	    script_write_files(in, s->script.buf) < 0 || check_syntax(rec->script) < 0 ||
	    ((followup_wanted(&s->policy) || s->rolling) && s->ops->followup &&
	     script_followup_write(&f, &s->cfg) < 0)) {
		store_finish_sweep(s->st, rec->id, SWEEP_FAILED, error_last());
		return SWEEP_ERR;
	}
	return 0;
}

/* submission_arrange_fn: the follow-up job, before the sweep is marked submitted. */
static int arrange(void *data, struct submission *sub)
{
	struct submit *s = data;

	if (s->rolling)
		return arrange_rolling(&s->followup_job, sub->st, sub->rec, &s->policy, sub->jobs,
		                       sub->n);
	if (followup_wanted(&s->policy) && sub->n)
		return arrange_followup(&s->followup_job, sub->st, sub->rec, &s->policy, sub->jobs,
		                        sub->n);
	return 0;
}

/* The array jobs through the submission protocol (submission_commit). */
static int submit_jobs(struct submit *s)
{
	struct submission sub = {0};

	if (!s->o.extend_from) {
		/* Rolling: the first chunks now, the rest by follow-ups. */
		s->njobs = s->rolling ? s->rp.nnow : s->nchunks;
		s->jobs = submission_jobs_of_chunks(s->chunks, s->njobs,
		                                    s->cfg.slurm.max_concurrent, &s->quota);
	}
	sub.ops = s->ops;
	sub.st = s->st;
	sub.rec = &s->rec;
	sub.jobs = s->jobs;
	sub.n = s->njobs;
	sub.attempt = 1;
	sub.arrange = arrange;
	sub.data = s;
	sub.first = true;
	sub.who = "submit";
	if (submission_commit(&sub, s->lock_fd) == 0)
		return 0;
	if (sub.unrecorded)
		warning("the array jobs of sweep %" PRId64 " were cancelled: the state store "
		        "could not record them",
		        s->rec.id);
	return SWEEP_ERR;
}

int submit_run(struct submit *s, const struct submit_opts *o)
{
	assert(o->workdir && o->workdir[0] == '/' && o->state_dir);
	s->o = *o;
	if (strlen(o->workdir) >= sizeof(s->cwd))
		return error("the folder '%s' is too long", o->workdir);
	memcpy(s->cwd, o->workdir, strlen(o->workdir) + 1);
	s->ops = o->local ? backend_local() : backend_get(NULL);
	if (read_sweep_file(s) < 0 || plan_submission(s) < 0 || render_dry(s) < 0)
		return SWEEP_ERR;
	if (o->dry_run)
		return 0;
	return record_sweep(s) < 0 || write_scripts(s) < 0 || submit_jobs(s) < 0 ? SWEEP_ERR : 0;
}
