#ifndef SWEEP_RIGHTSIZE_H
#define SWEEP_RIGHTSIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acct.h"

struct plan;
struct strbuf;
struct task_outcome;

/*
 * Right-sizing: what the finished tasks of a sweep measured, and the --mem
 * and --time the next run should ask for. Pure: built from the plan and one
 * outcome per task index, no I/O.
 *
 * Per task: memory efficiency (MaxRSS / requested memory, per-CPU requests
 * already converted by outcome_build), time efficiency (elapsed / time
 * limit) and CPU efficiency (TotalCPU / (elapsed x allocated CPUs), as
 * seff computes it).
 *
 * CPU: a group's efficiency is its TotalCPU over its elapsed x CPUs, summed
 * over the tasks that have both; when less than RIGHTSIZE_CPU_IDLE of what
 * was allocated was used and more than one CPU was, --cpus-per-task is the
 * most CPUs a task kept busy on average (TotalCPU / elapsed) times the
 * headroom, rounded up, at least 1. GPU utilisation and memory are shown
 * where the cluster records them (TRES gres/gpuutil, gres/gpumem).
 *
 * Per group of tasks (one setting, or the whole sweep):
 *  - --mem: the peak memory a node needed (MaxRSS, or MaxRSS x tasks per
 *    node when a step ran several tasks on a node) times the headroom,
 *    rounded up to a clean size (rightsize_clean_mem_mb); when every task
 *    asked memory per CPU, also --mem-per-cpu: that over the CPUs per node;
 *  - --time: the longest elapsed time times the headroom, rounded up to
 *    whole minutes, at least 1.
 * A task that ran out of memory (OUT_OF_MEMORY, or FAILED with signal 9:
 * without cgroups, OverMemoryKill ends it so) or hit its time limit measured
 * only a lower bound: what it had (the larger of its request and its
 * measure). The recommendation is then at least that bound times
 * mem_factor (time_factor), and so always more than it had.
 *
 * There is no recommendation while a task of the group is still pending or
 * running, when none has ended, or (for --mem only) when no ended task has a
 * MaxRSS and none ran out of memory.
 */

#define RIGHTSIZE_HEADROOM    1.2
#define RIGHTSIZE_MEM_FACTOR  2.0
#define RIGHTSIZE_TIME_FACTOR 2.0
#define RIGHTSIZE_CPU_IDLE    0.5
/* Factors are applied in thousandths; larger ones are refused. */
#define RIGHTSIZE_FACTOR_MAX 1000.0

struct rightsize_policy {
	double headroom;    /* >= 1: measured peaks are multiplied by this */
	double mem_factor;  /* > 1: what an out-of-memory task had is multiplied by this */
	double time_factor; /* > 1: what a task over its time limit had is multiplied by this */
};

/* The defaults above. */
void rightsize_policy_init(struct rightsize_policy *p);

/*
 * Checks a factor given on the command line: a decimal number, at least min
 * (exclusive when strict), at most RIGHTSIZE_FACTOR_MAX. Returns 0, or -1
 * with *why set to a static explanation.
 */
int rightsize_parse_factor(double *out, const char *s, double min, bool strict, const char **why);

/*
 * Clean sizes, always rounding up. Memory (MiB): up to 1 GiB the next
 * multiple of 64M (at least 64M), up to 16 GiB the next multiple of 512M,
 * above that the next whole GiB. Time: whole minutes, at least 1.
 */
uint64_t rightsize_clean_mem_mb(uint64_t mb);
uint64_t rightsize_clean_time_min(uint64_t seconds);

/* x times factor, rounded up, in whole units; saturates at UINT64_MAX. */
uint64_t rightsize_scale_up(uint64_t x, double factor);
/* More than had: had times factor, rounded up, and at least had + 1. */
uint64_t rightsize_raise(uint64_t had, double factor);

/* Whether the run ran out of memory / hit its time limit: its measure is a lower bound. */
bool rightsize_out_of_memory(const struct task_outcome *o);
bool rightsize_out_of_time(const struct task_outcome *o);

/* Whether the run ended and measured something (a task cancelled while pending did not). */
bool rightsize_ran(const struct task_outcome *o);

/*
 * The memory a task's node needed, in bytes: the sum of the peaks of the
 * tasks it ran there (MaxRSS x tasks per node, an upper bound, when a step
 * ran several), else its MaxRSS; ACCT_NO_VALUE when not measured.
 */
uint64_t rightsize_need_bytes(const struct task_outcome *o);

/*
 * What an out-of-memory task had, in MiB: the larger of its request and its
 * MaxRSS (rounded up); 0 when neither is known. What a task over its time
 * limit had, in seconds: the larger of its limit and its elapsed time.
 */
uint64_t rightsize_mem_bound_mb(const struct task_outcome *o);
uint64_t rightsize_time_bound_s(const struct task_outcome *o);

/* One task's efficiencies; a NAN field is unknown. */
struct rightsize_task {
	double mem_eff;  /* MaxRSS / requested memory */
	double time_eff; /* elapsed / time limit */
	double cpu_eff;  /* TotalCPU / (elapsed x allocated CPUs) */
};

void rightsize_task_eval(struct rightsize_task *out, const struct task_outcome *o);

/* Why a group has no recommendation for --mem or --time. */
enum rightsize_gap {
	RIGHTSIZE_OK = 0,
	RIGHTSIZE_ACTIVE,      /* some task is still pending or running */
	RIGHTSIZE_NO_RECORD,   /* no task has a record in accounting */
	RIGHTSIZE_NO_FINISHED, /* no task has ended (after running) */
	RIGHTSIZE_NO_MAXRSS,   /* --mem only: ended tasks, but none has a MaxRSS */
};

/* One group of tasks: a setting, or the whole sweep. */
struct rightsize_group {
	size_t ntasks;
	size_t nran;          /* ended after running: the tasks measured */
	size_t nactive;       /* pending, running, suspended, requeued */
	size_t nmissing;      /* no record in accounting */
	size_t nno_rss;       /* ran but have no MaxRSS */
	size_t noom;          /* ran out of memory */
	size_t ntimeout;      /* hit the time limit */
	uint64_t req_mem_mb;  /* the largest request among those that ran; 0 if unknown */
	uint64_t timelimit_s; /* the largest limit among those that ran; ACCT_NO_VALUE if unknown */
	uint64_t peak_rss; /* bytes a node needed (rightsize_need_bytes); ACCT_NO_VALUE if none */
	uint32_t tasks_per_node;  /* the most tasks one step ran on a node; above 1: peak_rss is
	                             MaxRSS x that, an upper bound */
	bool per_cpu;             /* every task that ran asked memory per CPU */
	uint32_t cpus_per_node;   /* the fewest CPUs a node of such a task had */
	uint64_t longest_s;       /* longest elapsed among those that ran */
	uint64_t mem_bound_mb;    /* the most an out-of-memory task had; 0 if none */
	uint64_t mem_bound_bytes; /* the same before rounding up to MiB, for people */
	uint64_t time_bound_s;    /* the most a task over its time limit had; 0 if none */
	double mem_eff_min, mem_eff_max;   /* over the tasks that ran; NAN if none */
	double time_eff_min, time_eff_max; /* likewise */
	enum rightsize_gap mem_gap, time_gap;
	uint64_t cpu_used_us;    /* TotalCPU over the tasks with a CPU figure */
	uint64_t cpu_alloc_us;   /* their elapsed x allocated CPUs */
	size_t ncpu_known;       /* tasks that ran with TotalCPU, elapsed and CPUs known */
	uint32_t ncpus;          /* the most CPUs a task had; 0 if unknown */
	double cores_busy;       /* the most CPUs a task kept busy on average; NAN if unknown */
	double cpu_eff;          /* cpu_used_us / cpu_alloc_us; NAN if unknown */
	unsigned cpus;           /* recommended --cpus-per-task when most sat idle; 0 = none */
	uint64_t gpu_util;       /* peak gres/gpuutil over the tasks (%); ACCT_NO_VALUE if none */
	uint64_t gpu_mem_bytes;  /* peak gres/gpumem; ACCT_NO_VALUE if none */
	uint64_t mem_mb;         /* recommended --mem (clean); 0 unless mem_gap is RIGHTSIZE_OK */
	uint64_t mem_per_cpu_mb; /* with per_cpu: recommended --mem-per-cpu, mem_mb / CPUs per
	                            node (clean); else 0 */
	uint64_t time_min; /* recommended --time in minutes; 0 unless time_gap is RIGHTSIZE_OK */
};

/* Sizes the tasks o[0..n-1] as one group into out. */
void rightsize_group_build(struct rightsize_group *out, const struct task_outcome *o, size_t n,
                           const struct rightsize_policy *p);

/*
 * Appends why a group has no recommendation, in words, to out, e.g. "2 tasks
 * are still pending or running: ask again when they have ended". Nothing for
 * RIGHTSIZE_OK.
 */
void rightsize_explain(struct strbuf *out, const struct rightsize_group *g, enum rightsize_gap gap);

/*
 * Appends why a recommendation is larger than a plain headroom would give,
 * one sentence per lower bound, sep between them: "1 task ran out of memory
 * with 100M: it needed more, so --mem is at least 2 x that". Nothing when
 * there is none.
 */
void rightsize_explain_bounds(struct strbuf *out, const struct rightsize_group *g,
                              const struct rightsize_policy *p, const char *sep);

/* The whole analysis of a sweep. */
struct rightsize {
	/* Set by the caller for the printers; borrowed. */
	const char *name;  /* the sweep's job name */
	int64_t id;        /* the sweep's id */
	bool gpu_recorded; /* the cluster records GPU TRES (acct_set.gpu_recorded) */
	bool local;        /* the tasks ran on the local runner, which measures no GPU */

	/* Filled in by rightsize_build. */
	const struct plan *plan;             /* borrowed */
	const struct task_outcome *outcomes; /* borrowed: plan->ntasks of them */
	struct rightsize_policy policy;
	struct rightsize_task *tasks; /* per task index; owned */
	size_t ntasks;
	struct rightsize_group *settings; /* per setting; owned */
	size_t nsettings;
	struct rightsize_group sweep; /* every task */
};

void rightsize_init(struct rightsize *r);
void rightsize_release(struct rightsize *r);

/*
 * Fills out (initialised) from plan->ntasks outcomes; plan and outcomes are
 * borrowed by out. Cannot fail.
 */
void rightsize_build(struct rightsize *out, const struct plan *plan,
                     const struct task_outcome *outcomes, const struct rightsize_policy *p);

/* Whether the whole sweep has a recommendation for both --mem and --time. */
static inline bool rightsize_complete(const struct rightsize *r)
{
	return r->sweep.mem_gap == RIGHTSIZE_OK && r->sweep.time_gap == RIGHTSIZE_OK;
}

/* The printers are in aggregate/print/rightsize_print.h. */

#endif
