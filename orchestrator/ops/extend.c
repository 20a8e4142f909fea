/*
 * Reusing what earlier sweeps ran. The identity check is pure (reuse.c);
 * here the chain of sweeps is walked, each sweep's latest runs are read
 * through its side of the seam, and the gate says which passed.
 */
#include "extend.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "acct.h"
#include "backend.h"
#include "error.h"
#include "gate.h"
#include "plan.h"
#include "outcome.h"
#include "path.h"
#include "result.h"
#include "reuse.h"
#include "store.h"
#include "taskdir.h"
#include "verdict.h"

#include "banned.h"

/* A chain longer than this is a loop in the store. */
#define MAX_CHAIN 1000

void extend_init(struct extend *x)
{
	memset(x, 0, sizeof(*x));
	strbuf_init(&x->why, 0);
	plan_init(&x->base_plan);
}

void extend_release(struct extend *x)
{
	free(x->from_sweep);
	free(x->from_index);
	free(x->matched_in);
	free(x->matched_index);
	strbuf_release(&x->why);
	plan_release(&x->base_plan);
	extend_init(x);
}

/*
 * Which tasks of rec passed the gate on their latest run: passed[i], by
 * the one verdict report gives (its results: sources and outcome rules).
 */
static int passed_tasks(unsigned char **out, struct store *st, const struct sweep_rec *rec,
                        const struct plan *plan)
{
	struct task_outcome *oc = xcalloc(plan->ntasks ? plan->ntasks : 1, sizeof(*oc));
	struct array_rec *arrays = NULL;
	struct acct_set set;
	struct verdict v;
	struct backend_read rd = {0}; /* states only: no MaxRSS needed */
	size_t narrays = 0;
	int ret;

	acct_set_init(&set);
	verdict_init(&v);
	*out = NULL;
	ret = backend_load_outcomes(oc, &set, &arrays, &narrays, &rd, st, rec);
	if (ret == 0)
		ret = verdict_check(&v, st, rec, plan, oc, NULL, 0);
	if (ret == 0) {
		*out = v.gate.passed;
		v.gate.passed = NULL;
	}
	verdict_release(&v);
	array_recs_free(arrays, narrays);
	acct_set_release(&set);
	free(oc);
	return ret;
}

/* One sweep of the chain: match the tasks not decided yet. */
static int match_in(struct extend *x, struct store *st, const struct sweep_rec *rec,
                    const struct plan *want)
{
	struct plan have;
	struct reused_rec *reused = NULL;
	unsigned char *passed = NULL;
	size_t *match = NULL, nreused = 0, n = 0, nfailed = 0;
	int ret;

	plan_init(&have);
	ret = store_load_plan(st, &have, rec->id);
	if (ret == 0)
		ret = store_load_reused(st, &reused, &nreused, rec->id);
	if (ret == 0)
		ret = passed_tasks(&passed, st, rec, &have);
	if (ret < 0)
		goto out;
	match = xcalloc(want->ntasks ? want->ntasks : 1, sizeof(*match));
	reuse_match(match, want, &have);
	for (size_t j = 0; j < want->ntasks; j++) {
		size_t i = match[j];

		if (x->matched_in[j] || i == REUSE_NONE)
			continue;
		x->matched_in[j] = rec->id;
		x->matched_index[j] = i;
		if (!passed[i]) {
			nfailed++;
			continue;
		}
		/* The sweep that really ran it: rec itself, or the one rec took it from. */
		x->from_sweep[j] = rec->id;
		x->from_index[j] = i;
		for (size_t k = 0; k < nreused; k++)
			if (reused[k].index == i) {
				x->from_sweep[j] = reused[k].from_sweep;
				x->from_index[j] = reused[k].from_index;
			}
		x->nreused++;
		n++;
	}
	if (nfailed)
		strbuf_addf(&x->why,
		            "%zu task%s of sweep %" PRId64 " did not pass the gate on their latest "
		            "run: they run again\n",
		            nfailed, nfailed == 1 ? "" : "s", rec->id);
out:
	free(match);
	free(passed);
	free(reused);
	plan_release(&have);
	return ret;
}

int extend_find(struct extend *x, struct store *st, const char *which, const struct plan *plan,
                const char *recipe)
{
	struct sweep_rec rec;
	struct sweep_policy p;
	int64_t next = 0;
	int ret;

	sweep_rec_init(&rec);
	memset(&p, 0, sizeof(p));
	x->ntasks = plan->ntasks;
	x->from_sweep = xcalloc(plan->ntasks ? plan->ntasks : 1, sizeof(*x->from_sweep));
	x->from_index = xcalloc(plan->ntasks ? plan->ntasks : 1, sizeof(*x->from_index));
	x->matched_in = xcalloc(plan->ntasks ? plan->ntasks : 1, sizeof(*x->matched_in));
	x->matched_index = xcalloc(plan->ntasks ? plan->ntasks : 1, sizeof(*x->matched_index));
	ret = store_find_sweep(st, &rec, which);
	if (ret < 0)
		goto out;
	x->base = rec.id;
	ret = store_load_plan(st, &x->base_plan, rec.id);
	if (ret < 0)
		goto out;
	for (unsigned depth = 0; depth < MAX_CHAIN; depth++) {
		const char *diff;

		ret = store_load_policy(st, &p, rec.id);
		if (ret < 0)
			goto out;
		diff = reuse_recipe_diff(recipe, p.recipe);
		if (!p.recipe)
			strbuf_addf(&x->why,
			            "sweep %" PRId64
			            " '%s' recorded no recipe (submitted by an older "
			            "sweep): nothing of it is reused\n",
			            rec.id, rec.name);
		else if (diff)
			strbuf_addf(&x->why,
			            "sweep %" PRId64
			            " '%s' ran with different %s: nothing of it is "
			            "reused\n",
			            rec.id, rec.name, diff + strlen("the "));
		else if ((ret = match_in(x, st, &rec, plan)) < 0)
			goto out;
		next = p.extends;
		sweep_policy_release(&p);
		sweep_rec_release(&rec);
		if (!next)
			break;
		{
			char id[32];

			snprintf(id, sizeof(id), "%" PRId64, next);
			ret = store_find_sweep(st, &rec, id);
			if (ret < 0)
				goto out;
		}
	}
out:
	sweep_policy_release(&p);
	sweep_rec_release(&rec);
	return ret;
}

static int copy_file(const char *from, const char *to)
{
	struct strbuf text = STRBUF_INIT;
	int fd, ret = 0;

	if (strbuf_read_file(&text, from) < 0) {
		/* A result that vanished: the gate of the new sweep will say so. */
		warning("cannot read '%s': %s", from, strerror(errno));
		strbuf_release(&text);
		return 0;
	}
	fd = path_open_private(to, O_WRONLY | O_TRUNC, PATH_PRIVATE_FILE);
	if (fd < 0 || write(fd, text.buf, text.len) != (ssize_t)text.len)
		ret = error("cannot write '%s': %s", to, strerror(errno));
	if (fd >= 0 && close(fd) < 0 && ret == 0)
		ret = error("cannot write '%s': %s", to, strerror(errno));
	strbuf_release(&text);
	return ret;
}

int extend_copy_results(const struct extend *x, struct store *st, const struct sweep_rec *to_rec)
{
	int ret = 0;

	for (size_t j = 0; ret == 0 && j < x->ntasks; j++) {
		struct sweep_rec rec;
		char id[32], *from, *to;

		if (!x->from_sweep[j])
			continue;
		sweep_rec_init(&rec);
		/* The copy in the sweep it matched in is the same file, one hop away. */
		snprintf(id, sizeof(id), "%" PRId64, x->matched_in[j]);
		ret = store_find_sweep(st, &rec, id);
		if (ret == 0) {
			from = result_path(rec.dir, rec.task_layout, x->matched_index[j]);
			to = result_path(to_rec->dir, to_rec->task_layout, j);
			/* Made private, as the task script makes them. */
			ret = taskdir_make(to_rec->dir, to_rec->task_layout, j);
			if (ret == 0)
				ret = copy_file(from, to);
			free(from);
			free(to);
		}
		sweep_rec_release(&rec);
	}
	return ret;
}

void extend_describe(struct strbuf *out, const int64_t *from_sweep, size_t ntasks)
{
	bool *done = xcalloc(ntasks ? ntasks : 1, sizeof(*done));

	for (size_t j = 0; j < ntasks; j++) {
		int64_t s = from_sweep[j];
		size_t count = 0;
		struct strbuf ids = STRBUF_INIT;

		if (!s || done[j])
			continue;
		for (size_t k = j; k < ntasks;) {
			size_t e = k;

			if (from_sweep[k] != s) {
				k++;
				continue;
			}
			while (e + 1 < ntasks && from_sweep[e + 1] == s)
				e++;
			for (size_t m = k; m <= e; m++)
				done[m] = true;
			count += e - k + 1;
			if (e > k)
				strbuf_addf(&ids, "%s%zu-%zu", ids.len ? "," : "", k, e);
			else
				strbuf_addf(&ids, "%s%zu", ids.len ? "," : "", k);
			k = e + 1;
		}
		strbuf_addf(out, "%zu task%s reused from sweep %" PRId64 " (indices %s)\n", count,
		            count == 1 ? "" : "s", s, ids.buf);
		strbuf_release(&ids);
	}
	free(done);
}

/* Setting s's line: what of it runs and why. */
static void describe_setting(struct strbuf *out, const struct extend *x, const struct plan *want,
                             size_t s, size_t changed_from, size_t param)
{
	size_t reused = 0, again = 0, fresh = 0;
	char *label = plan_setting_label(want, s);

	for (size_t k = 0; k < want->nseeds; k++) {
		size_t j = s * want->nseeds + k;

		if (x->from_sweep[j])
			reused++;
		else if (x->matched_in[j])
			again++;
		else
			fresh++;
	}
	strbuf_addf(out, "  %s: ", label);
	if (reused == want->nseeds) {
		strbuf_addf(out, "reused (%zu seed%s)\n", reused, reused == 1 ? "" : "s");
	} else if (!reused && !again && changed_from != REUSE_NONE) {
		size_t q = 0;

		while (q < x->base_plan.nparams &&
		       strcmp(x->base_plan.params[q], want->params[param]))
			q++;
		strbuf_addf(out, "changed (%s: %s -> %s): %zu to run\n", want->params[param],
		            plan_value(&x->base_plan, changed_from, q), plan_value(want, s, param),
		            fresh);
	} else if (!reused && !again) {
		strbuf_addf(out, "new: %zu to run\n", fresh);
	} else {
		strbuf_addf(out, "%zu reused", reused);
		if (again)
			strbuf_addf(out, ", %zu run%s again (did not pass)", again,
			            again == 1 ? "s" : "");
		if (fresh)
			strbuf_addf(out, ", %zu new seed%s to run", fresh, fresh == 1 ? "" : "s");
		strbuf_addch(out, '\n');
	}
	free(label);
}

void extend_describe_settings(struct strbuf *out, const struct extend *x, const struct plan *want)
{
	size_t *from = xcalloc(want->nsettings ? want->nsettings : 1, sizeof(*from));
	size_t *param = xcalloc(want->nsettings ? want->nsettings : 1, sizeof(*param));

	reuse_changed_settings(from, param, want, &x->base_plan);
	strbuf_addf(out, "per setting, against sweep %" PRId64 ":\n", x->base);
	for (size_t s = 0; s < want->nsettings; s++)
		describe_setting(out, x, want, s, from[s], param[s]);
	free(from);
	free(param);
}
