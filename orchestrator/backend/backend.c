#include "backend.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acct.h"
#include "error.h"
#include "local.h"
#include "slurm_backend.h"
#include "slurm_pack.h"
#include "outcome.h"
#include "strbuf.h"
#include "store.h"
#include "taskdir.h"

#include "banned.h"

static const struct backend_ops *const backends[] = {
    &slb_backend,
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
 * Tasks an extending sweep reused (reused[0..n-1], read by the caller):
 * their outcomes are those of the sweep that ran them, read through that
 * sweep's own side. Its records join set, since the outcomes borrow from
 * them.
 */
static int add_reused(struct task_outcome *out, struct acct_set *set, const struct backend_read *rd,
                      struct store *st, const struct sweep_rec *rec,
                      const struct reused_rec *reused, size_t n)
{
	int ret = 0;

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
			struct backend_read their_rd = {.steps = rd->steps, .refresh = rd->refresh};

			ret = backend_load_outcomes(oc, &theirs, &arrays, &narrays, &their_rd, st,
			                            &origin);
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
	return ret;
}

/* The script's note of a forwarded signal in task folder index: at most a line, or "". */
static void read_signal_note(char *buf, size_t size, const struct sweep_rec *rec, size_t index)
{
	char *path = taskdir_file(rec->dir, rec->task_layout, index, ".signalled");
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, size - 1);

	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
	free(path);
}

/*
 * Runs that died of the warning signal are marked as ended by the time
 * limit. Only FAILED runs with a signal's exit status are candidates, so
 * the folders of the other tasks are never looked at.
 */
static void apply_signal_notes(struct acct_set *set, const struct sweep_rec *rec,
                               const struct array_rec *arrays, size_t narrays)
{
	for (size_t r = 0; r < set->n; r++) {
		struct acct_rec *a = &set->recs[r];
		char note[64];
		size_t p, index;

		if (a->state != TS_FAILED || a->array_task_id == ACCT_NO_TASK ||
		    (!a->exit_code && !a->signal))
			continue;
		for (p = 0; p < narrays && arrays[p].job_id != a->array_job_id; p++)
			;
		if (p == narrays)
			continue;
		/* A packed task's record names its sweep index itself. */
		index = a->step_index != ACCT_NO_STEP ? (size_t)a->step_index
		                                      : (size_t)arrays[p].offset + a->array_task_id;
		if (index >= rec->ntasks)
			continue;
		read_signal_note(note, sizeof(note), rec, index);
		outcome_apply_signal_note(a, note);
	}
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
		        "\t%" PRId64 "\t%" PRId64 "\t%d\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64
		        "\t%" PRIu64 "\t%" PRIu32 "\t%" PRIu32 "\t%" PRIu32 "\n",
		        r->array_job_id, r->array_task_id, r->job_id,
		        r->pending_tasks ? r->pending_tasks : "-", task_state_name(r->state),
		        r->exit_code, r->signal, r->elapsed_s, r->timelimit_s, r->req_mem_mb,
		        r->req_mem_per_cpu, r->ncpus, r->maxrss_bytes, r->nodes ? r->nodes : "-",
		        r->submit_time, r->start_time, r->end_time, r->steps_final, r->total_cpu_us,
		        r->gpu_util, r->gpu_mem_bytes, r->node_mem_bytes, r->tasks_per_node,
		        r->nnodes, r->step_index);
	}
	fclose(f);
}

int backend_load_outcomes(struct task_outcome *out, struct acct_set *set, struct array_rec **arrays,
                          size_t *narrays, struct backend_read *rd, struct store *st,
                          const struct sweep_rec *rec)
{
	struct reused_rec *reused = NULL;
	size_t n = 0;
	int ret;

	*arrays = NULL;
	*narrays = 0;
	ret = store_load_reused(st, &reused, &n, rec->id);
	if (ret == 0)
		ret = backend_outcomes_reusing(out, set, arrays, narrays, rd, st, rec, reused, n);
	free(reused);
	return ret;
}

int backend_outcomes_reusing(struct task_outcome *out, struct acct_set *set,
                             struct array_rec **arrays, size_t *narrays, struct backend_read *rd,
                             struct store *st, const struct sweep_rec *rec,
                             const struct reused_rec *reused, size_t nreused)
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
		ret = backend_records(set, rd, st, rec, *arrays, *narrays);
		if (ret < 0)
			return ret;
		debug_records(set);
	}
	ret = outcome_build(out, rec->ntasks, *arrays, *narrays, set);
	if (ret < 0)
		return ret;
	return add_reused(out, set, rd, st, rec, reused, nreused);
}

int backend_records(struct acct_set *out, struct backend_read *rd, struct store *st,
                    const struct sweep_rec *rec, const struct array_rec *arrays, size_t narrays)
{
	const struct backend_ops *ops = backend_get(rec->backend);
	int ret;

	if (!ops)
		return SWEEP_ERR;
	ret = ops->records(out, rd, st, rec, arrays, narrays);
	if (ret < 0)
		return ret;
	debug_records(out);
	apply_signal_notes(out, rec, arrays, narrays);
	return 0;
}

void backend_read_debug(const struct backend_read *rd)
{
	const char *debug = getenv("SWEEP_DEBUG_QUERIES");

	if (debug && *debug && strcmp(debug, "0") != 0)
		fprintf(stderr,
		        "sweep: accounting queries: %u (%zu array job%s asked, %zu from the "
		        "state store; %zu task%s of the asked ones from the state store, %lu job "
		        "record%s returned, steps of %lu job record%s read)\n",
		        rd->queries, rd->asked, rd->asked == 1 ? "" : "s", rd->kept, rd->tasks_kept,
		        rd->tasks_kept == 1 ? "" : "s", rd->records, rd->records == 1 ? "" : "s",
		        rd->step_records, rd->step_records == 1 ? "" : "s");
}

void backend_read_note(const struct backend_read *rd, size_t narrays)
{
	backend_read_debug(rd);
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

void backend_versions(struct backend_versions *out)
{
	slb_versions(out);
}

int backend_helper_main(int argc, char **argv)
{
	return local_runner_main(argc, argv);
}

int backend_packrun_main(int argc, char **argv)
{
	return slb_pack_run(argc, argv);
}

void backend_set_end_hook(backend_end_hook hook)
{
	local_set_end_hook(hook);
}

int backend_local_job_done(bool *done, struct store *st, uint32_t job_id)
{
	return local_job_done(done, st, job_id);
}
