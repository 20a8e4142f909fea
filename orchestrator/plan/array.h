#ifndef SWEEP_ARRAY_H
#define SWEEP_ARRAY_H

#include <stddef.h>
#include <stdint.h>

/*
 * Array jobs: the --array grammar (writing and reading "0-49%10"), the
 * split of a plan's task indices into array jobs below the scheduler's
 * MaxArraySize, and the record of one array job of a sweep. Pure: no I/O.
 */

/* One array job of a sweep: a chunk of the first submission, or a resubmission. */
struct array_rec {
	uint32_t job_id;  /* the array's job id (%A) */
	uint32_t offset;  /* sweep index = offset + array task id */
	char *spec;       /* the --array value it was submitted with, e.g. "0-49%10" or "3,17" */
	unsigned attempt; /* 1 for the first submission, 2 for the first resubmission... */
	int64_t submitted_at;
	/*
	 * Packed arrays (pack > 1; 0 or 1 = not packed): array task a runs pack
	 * sweep tasks, each a job step named sweep-<index>. Their indices are
	 * offset + a × pack + j, or, when indices is set (a resubmission, whose
	 * script argument is "@" and this list), entries a × pack + j of this
	 * comma-separated list.
	 */
	uint32_t pack;
	char *indices;
};

void array_rec_release(struct array_rec *rec);
void array_recs_free(struct array_rec *recs, size_t n);
/* The job ids of recs[0..n-1], in their order; newly allocated, the caller frees it. */
uint32_t *array_recs_job_ids(const struct array_rec *recs, size_t n);

/* One array job of a first submission: task indices [offset, offset + count). */
struct array_chunk {
	uint32_t offset;
	uint32_t count;
};

/*
 * Splits [0, ntasks) into array jobs whose indices stay below max_array
 * (0 = no limit); *n of them, newly allocated, the caller frees it.
 */
struct array_chunk *array_chunks(size_t ntasks, uint32_t max_array, size_t *n);

/* The --array value for indices [0, n) with throttle k (0 = none): "0-99%10". */
void array_spec(char *buf, size_t size, uint32_t n, unsigned k);

/*
 * The task ids below limit that an --array value ("0-49%10", "3,17,42%5",
 * "0-9:2") or a pending record's task list (the same forms, or Slurm's hex
 * bitmap "0x..." where bit i is task i) names, in the order written; *out
 * is an array the caller frees (NULL when *n is 0). Ids at or above limit
 * are left out without being stored, so "0-4000000000" costs nothing.
 * Returns 0, or -1 with *why set to a static explanation (no error() call).
 */
int array_parse_tasks(uint32_t **out, size_t *n, const char *spec, uint32_t limit,
                      const char **why);

struct strbuf;

/*
 * Appends the --array value for the ascending, distinct task ids: runs of
 * consecutive ids as ranges, then "%K" when throttle is not 0:
 * {3,4,5,9} with 2 -> "3-5,9%2".
 */
void array_spec_of_ids(struct strbuf *out, const uint32_t *ids, size_t n, unsigned throttle);

/* The chunk of a sweep index: its offset and its array task id in it (max_array 0: no limit). */
void array_chunk_of(uint32_t *offset, uint32_t *task, size_t index, uint32_t max_array);

#endif
