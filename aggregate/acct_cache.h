#ifndef SWEEP_ACCT_CACHE_H
#define SWEEP_ACCT_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acct.h"

struct array_rec;

/*
 * What to keep of accounting in the state store, and what to ask the
 * scheduler again. Pure: the backend reads and writes, this decides.
 *
 * The unit is an array job, as the query's is: its records are kept once
 * every task it covers has a final latest run (COMPLETED, FAILED, TIMEOUT,
 * OUT_OF_MEMORY, CANCELLED, NODE_FAIL, PREEMPTED..., not requeued) with an
 * end time, and, when read with steps, final step statistics. All of its
 * rows are kept, earlier runs (REQUEUED, NODE_FAIL before a requeue)
 * included, exactly as the query returned them, so outcomes built from
 * kept records are the ones a fresh query gives. An array job kept is not
 * queried again unless its steps are needed and were not kept, its store
 * record changed, or the command asked for --refresh.
 *
 * While an array job still runs, its tasks are kept one by one: an array
 * task whose own rows (every run, the same rules) are final is kept, and
 * the next query asks for the records and steps of the others only
 * (slurm_acct.c).
 * Packed arrays are kept per array job only. Tasks final only through the
 * array's pending record (cancelled before they started) wait for the whole
 * array job.
 */

/*
 * NODE_FAIL and PREEMPTED runs may be requeued by Slurm itself, and the
 * next run's row may reach slurmdbd only once it is eligible to start
 * again (a requeued task is held for a couple of minutes). Kept only once
 * they ended this long ago.
 */
#define ACCT_CACHE_SETTLE_S 600
/*
 * A run whose steps ended without statistics (no MaxRSS) is kept only
 * this long after its end: under load slurmdbd records the statistics
 * after the step's end time, and a very short run may never have any.
 */
#define ACCT_CACHE_STATS_SETTLE_S 120

/* One array job whose records the store keeps. */
struct acct_cache_entry {
	uint32_t job_id;
	int64_t submitted_at; /* the array job's submitted_at in the store when kept */
	bool with_steps;      /* kept from a query with steps: MaxRSS is known */
	/*
	 * NULL: the whole array job is kept, its pending record included. Else
	 * only these array tasks (ascending, ntasks of them): the array job is
	 * still asked about, without the steps of these tasks.
	 */
	uint32_t *tasks;
	size_t ntasks;
	/*
	 * Of a part (tasks not NULL): every run of a task not kept, and the
	 * pending record, had not ended or ended at this time or later when it
	 * was kept (unix seconds; 0: unknown). A read of the array job's rows
	 * that ended since then returns every row of the tasks not kept.
	 */
	int64_t since;
};

/* Frees kept[0..n-1] and their task lists. */
void acct_cache_entries_free(struct acct_cache_entry *kept, size_t n);

/* Whether array task task of the array job e stands for is kept (always when the whole is). */
bool acct_cache_task_kept(const struct acct_cache_entry *e, uint32_t task);

/* The entry of job_id in kept[0..n-1], or NULL. */
const struct acct_cache_entry *acct_cache_find(const struct acct_cache_entry *kept, size_t n,
                                               uint32_t job_id);

/*
 * Whether to ask the scheduler about arr rather than read the store: with
 * refresh always; else when nothing is kept for it (kept NULL), what is
 * kept belongs to an earlier array job of that id (submitted_at differs),
 * or steps are needed and were not kept.
 */
bool acct_cache_must_query(const struct array_rec *arr, const struct acct_cache_entry *kept,
                           bool need_steps, bool refresh);

/*
 * Whether arr, not to be read from the store whole (acct_cache_must_query),
 * is asked about with the steps of its tasks not kept only: some of its
 * tasks are kept (kept->tasks) for this very array job, with steps when
 * they are needed, and no --refresh.
 */
bool acct_cache_partial(const struct array_rec *arr, const struct acct_cache_entry *kept,
                        bool need_steps, bool refresh);

/*
 * Whether the records of arr, as a fresh query returned them (rows: every
 * record of this array job and no other), may be kept: see above. ntasks
 * is the sweep's; now the current time (unix seconds). When not, *why (if
 * why is not NULL) says why, a static string.
 */
bool acct_cache_keepable(const struct array_rec *arr, size_t ntasks, const struct acct_set *rows,
                         bool with_steps, int64_t now, const char **why);

/*
 * Whether one array task of an array job that is not kept as a whole may
 * be kept on its own: rows are its own records (every run; of a packed
 * array never: false), as a fresh query returned them. Its latest run must
 * be final by the rules above (not REQUEUED, an end time, final step
 * statistics when with_steps, the settle times). *why as above.
 */
bool acct_cache_task_keepable(const struct array_rec *arr, const struct acct_set *rows,
                              bool with_steps, int64_t now, const char **why);

#endif
