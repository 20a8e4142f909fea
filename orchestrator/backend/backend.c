#include "backend.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct.h"
#include "error.h"
#include "local.h"
#include "slurm_backend.h"
#include "outcome.h"
#include "store.h"
#include "strbuf.h"

#include "banned.h"

static const struct backend_ops *const backends[] = {
    &slurm_backend_ops,
    &local_backend,
};

const struct backend_ops *backend_local(void)
{
	return &local_backend;
}

const struct backend_ops *backend_get(const char *name)
{
	if (!name)
		return backends[0];
	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++)
		if (!strcmp(backends[i]->name, name))
			return backends[i];
	error("sweep ran on '%s', which this sweep does not know; use a newer sweep", name);
	return NULL;
}

/*
 * Tasks an extending sweep reused: their outcomes are those of the sweep
 * that ran them, read through that sweep's own side. Its records join set,
 * since the outcomes borrow from them.
 */
static int add_reused(struct task_outcome *out, struct acct_set *set, struct store *st,
                      const struct sweep_rec *rec)
{
	struct reused_rec *reused = NULL;
	size_t n = 0;
	int ret = store_load_reused(st, &reused, &n, rec->id);

	for (size_t k = 0; ret == 0 && k < n;) {
		int64_t from = reused[k].from_sweep;
		struct sweep_rec origin;
		struct acct_set theirs;
		struct array_rec *arrays = NULL;
		struct task_outcome *oc = NULL;
		size_t narrays = 0;
		char id[32];

		sweep_rec_init(&origin);
		acct_set_init(&theirs);
		snprintf(id, sizeof(id), "%" PRId64, from);
		ret = store_find_sweep(st, &origin, id);
		if (ret == 0) {
			oc = xcalloc(origin.ntasks ? origin.ntasks : 1, sizeof(*oc));
			ret = backend_load_outcomes(oc, &theirs, &arrays, &narrays, st, &origin);
		}
		for (; k < n && reused[k].from_sweep == from; k++)
			if (ret == 0 && reused[k].index < rec->ntasks &&
			    reused[k].from_index < origin.ntasks)
				out[reused[k].index] = oc[reused[k].from_index];
		/* Move their records (shallowly: the outcomes point into them) into set. */
		for (size_t r = 0; ret == 0 && r < theirs.n; r++)
			*acct_set_add(set) = theirs.recs[r];
		if (ret == 0)
			theirs.n = 0;
		acct_set_release(&theirs);
		array_recs_free(arrays, narrays);
		free(oc);
		sweep_rec_release(&origin);
	}
	free(reused);
	return ret;
}

int backend_load_outcomes(struct task_outcome *out, struct acct_set *set, struct array_rec **arrays,
                          size_t *narrays, struct store *st, const struct sweep_rec *rec)
{
	const struct backend_ops *ops = backend_get(rec->backend);
	int ret;

	*arrays = NULL;
	*narrays = 0;
	if (!ops)
		return SWEEP_ERR;
	ret = store_load_arrays(st, arrays, narrays, rec->id);
	if (ret < 0)
		return ret;
	/* A sweep whose submission failed before any array job has nothing to ask about. */
	if (*narrays) {
		ret = ops->records(set, st, rec, *arrays, *narrays);
		if (ret < 0)
			return ret;
	}
	ret = outcome_build(out, rec->ntasks, *arrays, *narrays, set);
	if (ret < 0)
		return ret;
	return add_reused(out, set, st, rec);
}

int backend_helper_main(int argc, char **argv)
{
	return local_runner_main(argc, argv);
}

void backend_set_end_hook(backend_end_hook hook)
{
	local_set_end_hook(hook);
}
