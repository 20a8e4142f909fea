#ifndef SWEEP_SLURM_CONN_H
#define SWEEP_SLURM_CONN_H

/* The Slurm side's connection to libslurm (prefix slb_conn_). */

/*
 * Initialises libslurm once per process. Checks first that the libslurm
 * loaded is the release sweep was built against (slb_conn_check_release),
 * then that a slurm.conf is readable ($SLURM_CONF, else the built-against
 * Slurm's default: /etc/slurm/slurm.conf for Debian's, PREFIX/etc/slurm.conf
 * for -DSLURM_ROOT=PREFIX), because libslurm retries for a minute and then
 * exits the process when there is none. Returns 0, or a negative code after
 * printing the error.
 */
int slb_conn_init(void);

/*
 * 0 when the libslurm running (running: slurm_api_version()) is of the
 * release whose soname number sweep was built against (built_api; 0:
 * unknown, not checked); else prints an error naming both and how to
 * rebuild, and returns a negative code.
 */
int slb_conn_check_release(unsigned built_api, long running);

/* The local cluster's name from slurm.conf (borrowed from libslurm), or NULL. */
const char *slb_conn_name(void);

#endif
