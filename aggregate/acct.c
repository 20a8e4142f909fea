/*
 * Accounting records: the backend-neutral record set and task state names.
 * The backends fill them (orchestrator/backend/slurm/slurm_acct.c from
 * slurmdbd, the local runner from its own bookkeeping).
 */
#include "acct.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "error.h"
#include "strbuf.h"

#include "banned.h"

static const char *const state_names[TS_NSTATES] = {
    [TS_MISSING] = "MISSING",
    [TS_PENDING] = "PENDING",
    [TS_RUNNING] = "RUNNING",
    [TS_SUSPENDED] = "SUSPENDED",
    [TS_COMPLETED] = "COMPLETED",
    [TS_CANCELLED] = "CANCELLED",
    [TS_FAILED] = "FAILED",
    [TS_TIMEOUT] = "TIMEOUT",
    [TS_NODE_FAIL] = "NODE_FAIL",
    [TS_PREEMPTED] = "PREEMPTED",
    [TS_BOOT_FAIL] = "BOOT_FAIL",
    [TS_DEADLINE] = "DEADLINE",
    [TS_OUT_OF_MEMORY] = "OUT_OF_MEMORY",
    [TS_REQUEUED] = "REQUEUED",
    [TS_HELD] = "HELD",
};

const char *task_state_name(enum task_state s)
{
	if ((unsigned)s >= TS_NSTATES)
		return "UNKNOWN";
	return state_names[s];
}

bool task_state_is_final(enum task_state s)
{
	switch (s) {
	case TS_COMPLETED:
	case TS_CANCELLED:
	case TS_FAILED:
	case TS_TIMEOUT:
	case TS_NODE_FAIL:
	case TS_PREEMPTED:
	case TS_BOOT_FAIL:
	case TS_DEADLINE:
	case TS_OUT_OF_MEMORY:
		return true;
	case TS_MISSING: /* not known yet, or purged: nothing says it is over */
	case TS_PENDING:
	case TS_RUNNING:
	case TS_SUSPENDED:
	case TS_REQUEUED: /* its next run is on the way */
	case TS_HELD:     /* runs once released */
	case TS_NSTATES:
		break;
	}
	return false;
}

bool task_state_is_queued(enum task_state s)
{
	return s == TS_PENDING || s == TS_HELD;
}

const char *acct_hold_name(enum acct_hold h)
{
	static const char *const names[ACCT_NHOLDS] = {
	    [ACCT_HOLD_USER] = "user",
	    [ACCT_HOLD_ADMIN] = "admin",
	    [ACCT_HOLD_DEPENDENCY] = "dependency",
	    [ACCT_HOLD_DEP_NEVER] = "dependency_never",
	    [ACCT_HOLD_BEGIN] = "begin",
	};

	return (unsigned)h < ACCT_NHOLDS ? names[h] : NULL;
}

void acct_set_init(struct acct_set *set)
{
	memset(set, 0, sizeof(*set));
}

void acct_set_release(struct acct_set *set)
{
	for (size_t i = 0; i < set->n; i++) {
		free(set->recs[i].pending_tasks);
		free(set->recs[i].nodes);
		free(set->recs[i].reason);
	}
	free(set->recs);
	acct_set_init(set);
}

struct acct_rec *acct_set_add(struct acct_set *set)
{
	struct acct_rec *rec;

	ALLOC_GROW(set->recs, set->n + 1, set->alloc);
	rec = &set->recs[set->n++];
	memset(rec, 0, sizeof(*rec));
	rec->maxrss_bytes = ACCT_NO_VALUE;
	rec->node_mem_bytes = ACCT_NO_VALUE;
	rec->timelimit_s = ACCT_NO_VALUE;
	rec->total_cpu_us = ACCT_NO_VALUE;
	rec->gpu_util = ACCT_NO_VALUE;
	rec->gpu_mem_bytes = ACCT_NO_VALUE;
	rec->step_index = ACCT_NO_STEP;
	return rec;
}

/* Slurm's NO_VAL, as the Slurm side may pass it through for "unknown". */
#define SLURM_NO_VAL32 0xfffffffeu

uint64_t acct_node_need(uint64_t maxrss, uint32_t ntasks, uint32_t nnodes, uint32_t *tasks_per_node)
{
	uint32_t per = 1;

	if (ntasks && ntasks != SLURM_NO_VAL32 && nnodes && nnodes != SLURM_NO_VAL32)
		per = ntasks / nnodes + (ntasks % nnodes != 0);
	*tasks_per_node = per;
	if (maxrss > (UINT64_MAX - 1) / per)
		return UINT64_MAX - 1;
	return maxrss * per;
}
