#include "backend.h"

#include <string.h>

#include "acct.h"
#include "error.h"
#include "local.h"
#include "slurm_backend.h"
#include "outcome.h"
#include "store.h"

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
	return outcome_build(out, rec->ntasks, *arrays, *narrays, set);
}

void backend_versions(struct backend_versions *out)
{
	slb_versions(out);
}

int backend_helper_main(int argc, char **argv)
{
	return local_runner_main(argc, argv);
}
