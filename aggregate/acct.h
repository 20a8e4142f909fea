#ifndef SWEEP_ACCT_H
#define SWEEP_ACCT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Accounting records: what the scheduler did. This is the currency of the
 * seam between "where tasks run" and everything after it: each backend
 * fills it (orchestrator/backend/: the Slurm one from accounting, the local
 * one from its own bookkeeping). Nothing that consumes an
 * acct_set knows which side produced it.
 */

enum task_state {
	TS_MISSING = 0, /* the scheduler has no record of the task at all */
	TS_PENDING,
	TS_RUNNING,
	TS_SUSPENDED,
	TS_COMPLETED,
	TS_CANCELLED,
	TS_FAILED,
	TS_TIMEOUT,
	TS_NODE_FAIL,
	TS_PREEMPTED,
	TS_BOOT_FAIL,
	TS_DEADLINE,
	TS_OUT_OF_MEMORY,
	TS_REQUEUED, /* an earlier run of a task that was requeued */
	TS_NSTATES
};

/* "COMPLETED", "OUT_OF_MEMORY"... as Slurm spells them; "MISSING" for TS_MISSING. */
const char *task_state_name(enum task_state s);
/* True for states after which the task will not run again by itself. */
bool task_state_is_final(enum task_state s);

#define ACCT_NO_TASK  UINT32_MAX /* array_task_id of the record holding pending tasks */
#define ACCT_NO_VALUE UINT64_MAX

struct acct_rec {
	uint32_t array_job_id;  /* %A */
	uint32_t array_task_id; /* %a, or ACCT_NO_TASK for the pending record */
	uint32_t job_id;        /* the task's own job id */
	char *pending_tasks;    /* for ACCT_NO_TASK: Slurm's hex bitmap "0x..." (bit i = task i) or
	                           a range list "0-3,7"; else NULL */
	enum task_state state;
	int exit_code; /* exit status of the batch script, 0-255 */
	int signal;    /* signal that ended it, 0 if none */
	uint64_t elapsed_s;
	uint64_t timelimit_s; /* ACCT_NO_VALUE when unlimited or unknown */
	uint64_t req_mem_mb;  /* requested memory, per node or per CPU; 0 if none */
	bool req_mem_per_cpu;
	uint32_t ncpus;        /* allocated (or requested) CPUs, to convert per-CPU memory */
	uint64_t maxrss_bytes; /* maximum over the task's steps; ACCT_NO_VALUE when none measured */
	char *nodes;           /* node list, or NULL */
	int64_t submit_time, start_time, end_time; /* unix seconds, 0 if unknown */
	/*
	 * Read with its steps, and none of them can still change: every step
	 * ended, or the run never started (it has none). Only then is
	 * maxrss_bytes final. False for records read without steps.
	 */
	bool steps_final;
};

struct acct_set {
	struct acct_rec *recs;
	size_t n;
	size_t alloc;
};

void acct_set_init(struct acct_set *set);
void acct_set_release(struct acct_set *set);
/* Appends a zeroed record (maxrss and timelimit set to ACCT_NO_VALUE) and returns it. */
struct acct_rec *acct_set_add(struct acct_set *set);

#endif
