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
	/*
	 * Pending, but it will not start as the queue moves: held (by the user
	 * or an administrator), waiting for a dependency or for its begin time
	 * (acct_rec.hold says which). Not final: it runs once released. Last,
	 * so that the other states keep their numbers.
	 */
	TS_HELD,
	TS_NSTATES
};

/* "COMPLETED", "OUT_OF_MEMORY"... as Slurm spells them; "MISSING" for TS_MISSING. */
const char *task_state_name(enum task_state s);
/* True for states after which the task will not run again by itself. */
bool task_state_is_final(enum task_state s);
/* True for a task queued and not started: PENDING or HELD. */
bool task_state_is_queued(enum task_state s);

/* What keeps a TS_HELD task from starting (Slurm's pending reason). */
enum acct_hold {
	ACCT_HOLD_NONE = 0,
	ACCT_HOLD_USER,       /* held by its user (scontrol hold/uhold, sbatch -H) */
	ACCT_HOLD_ADMIN,      /* held by an administrator (priority 0), or after a failed launch */
	ACCT_HOLD_DEPENDENCY, /* waits for a dependency (--dependency) */
	ACCT_HOLD_DEP_NEVER,  /* a dependency that can never be satisfied */
	ACCT_HOLD_BEGIN,      /* waits for its begin time (--begin, a requeue's delay) */
	ACCT_NHOLDS
};

/* "user", "admin", "dependency", "dependency_never", "begin" (JSON); NULL for none. */
const char *acct_hold_name(enum acct_hold h);

#define ACCT_NO_TASK UINT32_MAX /* array_task_id of the record holding pending tasks */
#define ACCT_NO_STEP UINT32_MAX /* step_index of a record that is a whole array task */
/* A packed array task runs each sweep task as a job step named this and its sweep index. */
#define ACCT_STEP_PREFIX "sweep-"
/*
 * Or, without a step each, through the hidden command ACCT_PACK_COMMAND,
 * which records each task in <sweep dir>/ACCT_PACK_DIR/<array task's job id>
 * (backend/slurm/slurm_pack.h); the script (script.c) names both.
 */
#define ACCT_PACK_COMMAND "__packrun"
#define ACCT_PACK_DIR     "packs"
#define ACCT_NO_VALUE    UINT64_MAX

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
	uint64_t total_cpu_us; /* TotalCPU: user + system CPU time of all its processes, in
	                          microseconds; ACCT_NO_VALUE when not recorded */
	uint64_t gpu_util;     /* TRES gres/gpuutil (percent, the peak over steps) and */
	uint64_t gpu_mem_bytes; /* gres/gpumem (bytes): ACCT_NO_VALUE where the cluster does
	                           not record them */
	/*
	 * What one node needed: per step, its MaxRSS (the largest task's peak)
	 * times the most tasks the step ran on one node, an upper bound of the
	 * sum of that node's task peaks (accounting keeps no per-node sum); the
	 * maximum over the steps. ACCT_NO_VALUE when none measured.
	 */
	uint64_t node_mem_bytes;
	uint32_t tasks_per_node; /* of the step that gave node_mem_bytes; 1 = exact */
	uint32_t nnodes;         /* nodes the job ran on (0 unknown) */
	char *nodes;             /* node list, or NULL */
	/*
	 * Why a PENDING task waits (the local runner's rules), or what holds a
	 * HELD one ("held by the user", "begins at ..."), or NULL.
	 */
	char *reason;
	enum acct_hold hold; /* TS_HELD: what holds it; else ACCT_HOLD_NONE */
	/*
	 * PENDING, and accounting gives a sign of a hold: no eligible time (a
	 * hold or a dependency clears it), one ahead, or priority 0. Only
	 * then is slurmctld asked what holds it (slb_hold_mark).
	 */
	bool maybe_held;
	/*
	 * The command died of the warning signal the script forwarded (its
	 * note in the task's folder says so) and was not requeued: the time
	 * limit ended it. state is then TS_TIMEOUT, whatever Slurm recorded
	 * (FAILED, exit 128+N), so every consumer treats it as a time limit.
	 */
	bool by_warning_signal;
	int64_t submit_time, start_time, end_time; /* unix seconds, 0 if unknown */
	/*
	 * The sweep index of a packed task's job step ("sweep-<index>"), whose
	 * state, exit, elapsed time and MaxRSS this record holds; ACCT_NO_STEP
	 * for a record of a whole array task.
	 */
	uint32_t step_index;
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
	/*
	 * The TRES ids of gres/gpuutil and gres/gpumem on this cluster, 0 where
	 * it does not record them (they exist only with AccountingStorageTRES
	 * and a GPU gather plugin); set before decoding. gpu_recorded tells
	 * "recorded as none" from "not recorded by this cluster".
	 */
	uint32_t tres_gpuutil, tres_gpumem;
	bool gpu_recorded;
};

void acct_set_init(struct acct_set *set);
void acct_set_release(struct acct_set *set);
/*
 * Appends a zeroed record (maxrss, timelimit, total CPU and the GPU
 * figures set to ACCT_NO_VALUE) and returns it.
 */
struct acct_rec *acct_set_add(struct acct_set *set);

/*
 * The per-node memory rule for one step: maxrss times the tasks it ran on
 * its busiest node, ceil(ntasks / nnodes) (1 when either is unknown: 0 or
 * Slurm's NO_VAL), which is stored in *tasks_per_node. Saturates at
 * UINT64_MAX - 1.
 */
uint64_t acct_node_need(uint64_t maxrss, uint32_t ntasks, uint32_t nnodes,
                        uint32_t *tasks_per_node);

#endif
