#include "backend.h"

#include <errno.h>
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
 * SWEEP_DEBUG_RECORDS=FILE: every record read, one line each, every field,
 * appended to FILE. Tests compare a read from the state store with a fresh
 * one field by field this way.
 */
static void debug_records(const struct acct_set *set)
{
	const char *path = getenv("SWEEP_DEBUG_RECORDS");
	FILE *f;

	if (!path || !*path)
		return;
	f = fopen(path, "a");
	if (!f) {
		warning("cannot write '%s': %s", path, strerror(errno));
		return;
	}
	for (size_t i = 0; i < set->n; i++) {
		const struct acct_rec *r = &set->recs[i];

		fprintf(f,
		        "%" PRIu32 "\t%" PRIu32 "\t%" PRIu32 "\t%s\t%s\t%d\t%d\t%" PRIu64
		        "\t%" PRIu64 "\t%" PRIu64 "\t%d\t%" PRIu32 "\t%" PRIu64 "\t%s\t%" PRId64
		        "\t%" PRId64 "\t%" PRId64 "\t%d\n",
		        r->array_job_id, r->array_task_id, r->job_id,
		        r->pending_tasks ? r->pending_tasks : "-", task_state_name(r->state),
		        r->exit_code, r->signal, r->elapsed_s, r->timelimit_s, r->req_mem_mb,
		        r->req_mem_per_cpu, r->ncpus, r->maxrss_bytes, r->nodes ? r->nodes : "-",
		        r->submit_time, r->start_time, r->end_time, r->steps_final);
	}
	fclose(f);
}

int backend_load_outcomes(struct task_outcome *out, struct acct_set *set, struct array_rec **arrays,
                          size_t *narrays, struct backend_read *rd, struct store *st,
                          const struct sweep_rec *rec)
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
		ret = ops->records(set, rd, st, rec, *arrays, *narrays);
		if (ret < 0)
			return ret;
		debug_records(set);
	}
	return outcome_build(out, rec->ntasks, *arrays, *narrays, set);
}

int backend_records(struct acct_set *out, struct backend_read *rd, struct store *st,
                    const struct sweep_rec *rec, const struct array_rec *arrays, size_t narrays)
{
	const struct backend_ops *ops = backend_get(rec->backend);
	int ret;

	if (!ops)
		return SWEEP_ERR;
	ret = ops->records(out, rd, st, rec, arrays, narrays);
	if (ret >= 0)
		debug_records(out);
	return ret;
}

void backend_read_note(const struct backend_read *rd, size_t narrays)
{
	const char *debug = getenv("SWEEP_DEBUG_QUERIES");

	if (debug && *debug && strcmp(debug, "0") != 0)
		fprintf(stderr,
		        "sweep: accounting queries: %u (%zu array job%s asked, %zu from the "
		        "state store)\n",
		        rd->queries, rd->asked, rd->asked == 1 ? "" : "s", rd->kept);
	if (!rd->kept)
		return;
	if (rd->kept == narrays)
		fprintf(stderr, "sweep: records from the state store (all tasks finished; "
		                "--refresh to re-read)\n");
	else
		fprintf(stderr,
		        "sweep: records of %zu of %zu array jobs from the state store "
		        "(finished; --refresh to re-read)\n",
		        rd->kept, narrays);
}

int backend_helper_main(int argc, char **argv)
{
	return local_runner_main(argc, argv);
}
