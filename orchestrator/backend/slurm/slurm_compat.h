#ifndef SWEEP_SLURM_COMPAT_H
#define SWEEP_SLURM_COMPAT_H

/*
 * libslurm's headers, and every difference between the Slurm releases sweep
 * builds against (Debian 12's 22.05 through 26.05), in one place: the rest
 * of the Slurm side includes this header instead of <slurm/...> and reads
 * as if there were one Slurm. Each shim names the release that changed the
 * API. Add a release here, nowhere else.
 *
 * What is not an API difference (config keys, states, records) is written
 * down in tests/cluster/RELEASES.md.
 */

#include <errno.h>
#include <stdint.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <slurm/slurm_version.h>
#include <slurm/slurmdb.h>

#define SLB_SLURM_AT_LEAST(a, b, c) (SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(a, b, c))

/*
 * List types. 22.05 has List and ListIterator (pointer typedefs); 23.02 adds
 * list_t and list_itr_t (the structs); 24.05 removes the old names.
 */
#if SLB_SLURM_AT_LEAST(23, 2, 0)
typedef list_t *slb_list_t;
typedef list_itr_t *slb_list_itr_t;
#else
typedef List slb_list_t;
typedef ListIterator slb_list_itr_t;
#endif

/*
 * The error of the last failed libslurm call. slurm_get_errno() read errno
 * and is gone from 24.11 on, where libslurm sets errno itself.
 */
static inline int slb_errno(void)
{
#if SLB_SLURM_AT_LEAST(24, 11, 0)
	return errno;
#else
	return slurm_get_errno();
#endif
}

/* Frees what slurm_load_ctl_conf() returned: renamed slurm_free_conf in 26.05. */
static inline void slb_free_ctl_conf(slurm_conf_t *conf)
{
#if SLB_SLURM_AT_LEAST(26, 5, 0)
	slurm_free_conf(conf);
#else
	slurm_free_ctl_conf(conf);
#endif
}

/*
 * Signals every step of job job_id. 26.05 takes a slurm_step_id_t where
 * earlier releases take the job id (its uint32_t form survives only under
 * SLURM_BACKWARD_COMPAT).
 */
static inline int slb_kill_job(uint32_t job_id, uint16_t signal, uint16_t flags)
{
#if SLB_SLURM_AT_LEAST(26, 5, 0)
	slurm_step_id_t step = SLURM_STEP_ID_INITIALIZER;

	step.job_id = job_id;
	return slurm_kill_job(step, signal, flags);
#else
	return slurm_kill_job(job_id, signal, flags);
#endif
}

/*
 * The controller's records of job job_id (for an array job, every task of
 * it). 26.05 takes a slurm_step_id_t where earlier releases take the job id.
 */
static inline int slb_load_job(job_info_msg_t **resp, uint32_t job_id, uint16_t show_flags)
{
#if SLB_SLURM_AT_LEAST(26, 5, 0)
	slurm_step_id_t step = SLURM_STEP_ID_INITIALIZER;

	step.job_id = job_id;
	return slurm_load_job(resp, step, show_flags);
#else
	return slurm_load_job(resp, job_id, show_flags);
#endif
}

#endif
