/*
 * libslurm set up once per process, and the cluster's name: what the Slurm
 * side's files (slurm_backend.c, slurm_acct.c, slurm_quota.c) share, so
 * that none of them reaches into another for it.
 */
#define _GNU_SOURCE /* dladdr, realpath */
#include "slurm_conn.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "slurm_compat.h"

#include "error.h"

#include "banned.h"

/* Exported by libslurm, filled by slurm_init(), but not declared in its headers. */
extern slurm_conf_t slurm_conf;

#ifndef SWEEP_SLURM_API
#define SWEEP_SLURM_API 0
#endif
#ifndef SWEEP_SLURM_SONAME
#define SWEEP_SLURM_SONAME "libslurm.so"
#endif
#ifndef SWEEP_SLURM_CONF_DEFAULT
#define SWEEP_SLURM_CONF_DEFAULT "/etc/slurm/slurm.conf"
#endif

static int initialised;

int slb_conn_check_release(unsigned built_api, long running)
{
	unsigned major = (unsigned)SLURM_VERSION_MAJOR(running);
	Dl_info info;
	char real[PATH_MAX];
	const char *path = "?";

	if (!built_api || major == built_api)
		return 0;
	if (dladdr((void *)slurm_api_version, &info) && info.dli_fname)
		path = realpath(info.dli_fname, real) ? real : info.dli_fname;
	return error("this sweep was built against Slurm %d.%02d (%s) but runs with another "
	             "release's libslurm (API %u, '%s'): its records and calls differ, so sweep "
	             "stops here; rebuild sweep against the cluster's Slurm (cmake "
	             "-DSLURM_ROOT=PREFIX, README: Install on a cluster)",
	             (int)SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER),
	             (int)SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER), SWEEP_SLURM_SONAME, major,
	             path);
}

int slb_conn_init(void)
{
	const char *conf = getenv("SLURM_CONF");

	if (initialised)
		return 0;
	if (slb_conn_check_release(SWEEP_SLURM_API, slurm_api_version()) < 0)
		return SWEEP_ERR;
	if (!conf || !*conf)
		conf = SWEEP_SLURM_CONF_DEFAULT;
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
