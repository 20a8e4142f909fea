#ifndef SWEEP_RESUBMIT_H
#define SWEEP_RESUBMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acct.h"

struct strbuf;
struct task_outcome;

/*
 * The resubmission plan: which tasks of a sweep run again, with what
 * request, in which array jobs. Pure: built from one outcome per task
 * index (its latest attempt), no I/O.
 *
 * A task is resubmitted when its latest run is missing (no record in
 * accounting), FAILED, TIMEOUT, OUT_OF_MEMORY, CANCELLED, NODE_FAIL,
 * PREEMPTED, BOOT_FAIL or DEADLINE, or COMPLETED with a non-zero exit
 * code or a signal. Tasks still pending, running, suspended or requeued
 * are skipped and counted, and so are missing ones while the newest array
 * job of the sweep is too recent for slurmdbd to know it.
 *
 * Requests: a task that ran out of memory (OUT_OF_MEMORY, or FAILED with
 * signal 9) gets --mem = what it had (the larger of its request and its
 * MaxRSS) times mem_factor, rounded up to a clean size; a task over its time
 * limit gets --time = what it had (the larger of its limit and its elapsed
 * time) times time_factor, in whole minutes. Every other request is kept:
 * the script's, or the larger one an earlier resubmission gave the task, so
 * a task never gets less than its latest run had.
 *
 * Tasks with the same overrides go into the same array jobs; an index i
 * goes into the chunk with offset (i / max_array) * max_array, as array
 * task i - offset, so no task id reaches MaxArraySize.
 *
 * Packed sweeps (pack > 1) pack only the tasks that run again: those with
 * the same overrides, in index order, pack per array task, at most
 * max_array array tasks per array job, each array job with its list of
 * indices (resubmit_array.indices).
 */

struct resubmit_policy {
	double mem_factor;        /* > 1 */
	double time_factor;       /* > 1 */
	uint64_t script_mem_mb;   /* the script's memory per task (MiB, total); 0 if unknown */
	uint64_t script_time_min; /* the script's --time; 0 if unknown or unlimited */
	uint32_t max_array;       /* the controller's MaxArraySize; 0 for no limit */
	unsigned throttle;        /* the %K of every --array value; 0 for none */
	bool missing_unsettled;   /* missing records may still appear: skip missing tasks */
	uint32_t pack;            /* sweep tasks per array task (0 or 1: not packed) */
	/*
	 * NULL: every task resubmit_wanted takes. Else the tasks to run again
	 * (only[i] = 1, e.g. finish_select's choice for a retry round); a
	 * failed task left out is counted in nleft.
	 */
	const unsigned char *only;
};

/* One task to run again. */
struct resubmit_task {
	size_t index;
	bool mem_raised;   /* ran out of memory: mem_mb is more than it had */
	bool time_raised;  /* hit the time limit: time_min is more than it had */
	uint64_t mem_mb;   /* --mem per task in MiB; 0 keeps the script's */
	uint64_t time_min; /* --time in minutes; 0 keeps the script's */
};

/* One sbatch submission: tasks that share their overrides and their chunk. */
struct resubmit_array {
	uint64_t mem_mb;   /* 0: no --mem override */
	uint64_t time_min; /* 0: no --time override */
	uint32_t offset;   /* sweep index = offset + array task id */
	uint32_t *tasks;   /* array task ids, ascending; owned */
	size_t ntasks;
	char *spec; /* the --array value, e.g. "3-5,9%2"; owned */
	/*
	 * Packed sweeps: the sweep indices this array job runs, in order,
	 * comma-separated ("3,17,18"), pack per array task (array task a runs
	 * entries a x pack...); offset is 0 and unused. NULL when not packed.
	 */
	char *indices;
};

struct resubmit_plan {
	struct resubmit_task *tasks; /* ascending index; owned */
	size_t ntasks;
	size_t nactive;    /* skipped: pending, running, suspended or requeued */
	size_t nunsettled; /* skipped: missing, but the newest array job is too recent */
	size_t ncompleted; /* not needed: completed with exit code 0 */
	size_t nleft;      /* failed, but left out by policy.only */
	struct resubmit_array *arrays; /* by (mem_mb, time_min), then offset; owned */
	size_t narrays;
};

void resubmit_plan_init(struct resubmit_plan *plan);
void resubmit_plan_release(struct resubmit_plan *plan);

/* Whether a task whose latest run is o must run again (not counting the skips above). */
bool resubmit_wanted(const struct task_outcome *o);

/* Whether o is still on its way (pending, running, suspended, requeued). */
bool resubmit_active(const struct task_outcome *o);

/*
 * Fills out (initialised) from outcomes[0..ntasks-1]. Fails (-1, *why set
 * to a static explanation) only when an index does not fit an array task
 * id.
 */
int resubmit_plan_build(struct resubmit_plan *out, const struct task_outcome *outcomes,
                        size_t ntasks, const struct resubmit_policy *p, const char **why);

/*
 * What the sweep's script asks in its #SBATCH lines (script_read_resources
 * in orchestrator/script/ reads them), read as sbatch reads
 * them: up to the first line that is neither blank nor a comment; the last
 * of repeated options wins. Overrides go on sbatch's command line, which
 * takes precedence over these lines, but sbatch refuses --mem together with
 * --mem-per-cpu: a memory override must be of the kind the script uses.
 */
enum resubmit_mem_kind {
	RESUBMIT_MEM_NONE = 0, /* no memory option: the cluster's default */
	RESUBMIT_MEM_NODE,     /* --mem */
	RESUBMIT_MEM_PER_CPU,  /* --mem-per-cpu */
	RESUBMIT_MEM_PER_GPU,  /* --mem-per-gpu */
};

struct resubmit_script {
	enum resubmit_mem_kind mem_kind;
	uint64_t mem_mb;   /* as written: per node, CPU or GPU, in MiB */
	uint64_t time_min; /* --time in minutes, rounded up; 0 when absent or unlimited */
	unsigned cpus;     /* --cpus-per-task times --ntasks, each 1 when absent */
};

/* The memory per task the script asks, in MiB: per CPU times its CPUs; 0 if unknown. */
uint64_t resubmit_script_mem_mb(const struct resubmit_script *s);

/*
 * Appends the sbatch option that gives each task total_mb: "--mem=256M",
 * or "--mem-per-cpu=..." (total_mb / CPUs, rounded up to a clean size) when
 * the script asks per CPU. Fails (-1, *why set) when the script asks per
 * GPU, which resubmit cannot convert.
 */
int resubmit_mem_option(struct strbuf *out, const struct resubmit_script *s, uint64_t total_mb,
                        const char **why);

/*
 * Appends why the task runs again, in words: "out of memory (had 100M,
 * MaxRSS 98M)", "time limit (had 00:01:00, ran 00:01:05)", "exit code 3",
 * "no record in Slurm"...
 */
void resubmit_reason(struct strbuf *out, const struct task_outcome *o);

#endif
