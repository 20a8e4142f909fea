#ifndef SWEEP_OUTCOME_H
#define SWEEP_OUTCOME_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "acct.h"

struct array_rec;
struct strbuf;

/*
 * One outcome per task index: what happened to its latest attempt. Pure:
 * built from the store's array jobs and an acct_set, no I/O.
 */
struct task_outcome {
	enum task_state state; /* TS_MISSING when no record names this index */
	int exit_code;
	int signal;
	uint64_t elapsed_s;
	uint64_t timelimit_s; /* ACCT_NO_VALUE if unknown/unlimited */
	uint64_t req_mem_mb; /* per task: per-CPU requests already multiplied by ncpus; 0 if none */
	uint64_t maxrss_bytes;  /* ACCT_NO_VALUE if not measured */
	uint32_t ncpus;         /* allocated CPUs; 0 if unknown */
	uint64_t total_cpu_us;  /* TotalCPU; ACCT_NO_VALUE if not recorded */
	uint64_t gpu_util;      /* peak gres/gpuutil, percent; ACCT_NO_VALUE if not recorded */
	uint64_t gpu_mem_bytes; /* peak gres/gpumem; ACCT_NO_VALUE if not recorded */
	/*
	 * What a node needed (acct_rec.node_mem_bytes): MaxRSS times
	 * tasks_per_node, an upper bound when that is above 1. ACCT_NO_VALUE
	 * if not measured.
	 */
	uint64_t node_mem_bytes;
	uint32_t tasks_per_node;
	bool req_mem_per_cpu;   /* the request was per CPU (--mem-per-cpu) */
	uint32_t cpus_per_node; /* allocated CPUs / nodes, to size a per-CPU request; 0 unknown */
	uint32_t array_job_id;  /* of the latest attempt (0 if missing) */
	uint32_t array_task_id;
	uint32_t job_id;
	int64_t end_time;        /* of the latest run, unix seconds; 0 if unknown */
	unsigned restarts;       /* earlier runs of this index in the same array job (requeues) */
	uint32_t restart_states; /* bit 1 << state for each state an earlier run ended in */
	unsigned attempts;       /* array jobs (submission attempts) that covered this index */
	char *nodes;             /* borrowed from the acct_set, may be NULL */
	/*
	 * Why a PENDING task waits, or what holds a HELD one (acct_rec.reason);
	 * borrowed from the acct_set, or NULL.
	 */
	const char *pending_reason;
	enum acct_hold hold;    /* TS_HELD: what holds it (acct_rec.hold); else ACCT_HOLD_NONE */
	bool by_warning_signal; /* TS_TIMEOUT through the warning signal (acct_rec) */
};

/*
 * Fills out[0..ntasks-1]. arrays maps each array job to its offset (index =
 * offset + task id); records of array jobs not in arrays are ignored. The
 * latest attempt of an index is the one from the array job submitted last;
 * within an array job, the latest run (REQUEUED rows and earlier runs count
 * as restarts). Pending tasks inside a pending record are expanded. Indices
 * no record names stay TS_MISSING. Returns 0, or a negative code when a
 * pending bitmap or an array's --array value cannot be read (error()
 * reported).
 */
int outcome_build(struct task_outcome *out, size_t ntasks, const struct array_rec *arrays,
                  size_t narrays, const struct acct_set *set);

/*
 * The script's note of a forwarded warning signal (the text of
 * <task dir>/.signalled: "JOBID SIGNAME") against a run: when the note
 * names this run's job id and the run died of that signal (FAILED with exit
 * code 128+N, or N as Slurm 22.05 records the script's 128+N, or ended by
 * signal N), the run is marked as ended by the time limit (state TS_TIMEOUT, by_warning_signal) and
 * true is returned. A run that was requeued shows as REQUEUED and is left alone.
 */
bool outcome_apply_signal_note(struct acct_rec *rec, const char *note);

/*
 * Why a task restarted, in words, from the states its earlier runs ended
 * in: "NODE_FAIL", "PREEMPTED", "requeued by signal" (REQUEUED: the script
 * requeues a task only after the warning signal) and any other state's
 * name, ", "-separated, appended to out; nothing when it never restarted.
 */
void outcome_restart_reasons(struct strbuf *out, const struct task_outcome *o);

/* Memory a task asked for in MiB: per-CPU requests times its CPUs (saturating); 0 if none. */
uint64_t outcome_task_mem_mb(const struct acct_rec *rec);

/*
 * Whether run o ran out of memory: OUT_OF_MEMORY (the cgroup plugin);
 * FAILED with signal 9 (OverMemoryKill without cgroups); or FAILED with
 * exit code 137 (the script's command died of SIGKILL, 128 + 9) having used
 * at least the memory it asked for (the kernel's OOM killer was first, and
 * the script ended before slurmstepd could).
 */
bool outcome_out_of_memory(const struct task_outcome *o);

/*
 * The log file of a task's run, as the generated script names it
 * (--output=<logs>/%x_%A_%a.out): <logs>/<name>_<array job>_<array task>.out.
 * NULL (nothing to free) when the run has written none yet (no record, still
 * pending) or logs is NULL; else the caller frees it.
 */
char *outcome_log_path(const char *logs, const char *name, enum task_state state,
                       uint32_t array_job_id, uint32_t array_task_id);

#endif
