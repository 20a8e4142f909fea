#ifndef SWEEP_SLURM_CONN_H
#define SWEEP_SLURM_CONN_H

/* The Slurm side's connection to libslurm (prefix slb_conn_). */

/*
 * Initialises libslurm once per process. Checks first that a slurm.conf
 * is readable ($SLURM_CONF or /etc/slurm/slurm.conf), because libslurm
 * retries for a minute and then exits the process when there is none.
 */
int slb_conn_init(void);

/* The local cluster's name from slurm.conf (borrowed from libslurm), or NULL. */
const char *slb_conn_name(void);

#endif
