/*
 * libslurm set up once per process, and the cluster's name: what the Slurm
 * side's files (slurm_backend.c, slurm_acct.c, slurm_quota.c) share, so
 * that none of them reaches into another for it.
 */
#include "slurm_conn.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>

#include "error.h"

#include "banned.h"

/* Exported by libslurm, filled by slurm_init(), but not declared in its headers. */
extern slurm_conf_t slurm_conf;

static int initialised;

int slb_conn_init(void)
{
	const char *conf = getenv("SLURM_CONF");

	if (initialised)
		return 0;
	if (!conf || !*conf)
		conf = "/etc/slurm/slurm.conf";
	/* libslurm would retry for a minute and then exit the process. */
	if (access(conf, R_OK) < 0)
		return error("cannot read Slurm's configuration '%s': %s (is this a Slurm "
		             "cluster? set SLURM_CONF if it lives elsewhere)",
		             conf, strerror(errno));
	slurm_init(NULL);
	initialised = 1;
	return 0;
}

const char *slb_conn_name(void)
{
	if (slb_conn_init() < 0)
		return NULL;
	return slurm_conf.cluster_name;
}
