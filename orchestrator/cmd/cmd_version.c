/*
 * sweep version (and sweep --version): sweep's own version, the libslurm it
 * was built against and the one it runs with. libslurm changes its soname
 * with every Slurm release, so a site checks here that the build matches
 * the cluster's Slurm.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "backend.h"
#include "error.h"

#include "banned.h"

static const struct cli_option option_table[] = {
    CLI_OPT_HELP,
    CLI_OPT_END,
};

static struct cli_command command = {
    .usage = "sweep version",
    .intro = "Prints sweep's version, the Slurm release and libslurm soname it was built\n"
             "against, and the libslurm API version and file it runs with; warns when the\n"
             "two libslurm versions differ (rebuild sweep against the cluster's Slurm).\n"
             "\n",
    .options = option_table,
    .column = 21,
};

int cmd_version(int argc, char **argv)
{
	struct backend_versions v;

	cli_command_prepare(&command);
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
		return cli_help(command.usage, command.help);
	if (argc > 1) {
		error("unknown option '%s'", argv[1]);
		return cli_usage(stderr, command.usage, command.help);
	}
	backend_versions(&v);
	printf("sweep %s\n", SWEEP_VERSION);
	printf("built against: Slurm %s headers, %s\n", v.built_release,
	       *v.built_soname ? v.built_soname : "libslurm (soname unknown)");
	printf("running with:  libslurm API %s, %s\n", v.running_api,
	       *v.running_path ? v.running_path : "(file unknown)");
	if (v.built_api && v.built_api != v.running_api_major)
		warning("built against %s but running with libslurm API %u (%s): rebuild sweep "
		        "against this Slurm (cmake -DSLURM_ROOT=PREFIX; see README 'Install on a "
		        "cluster')",
		        v.built_soname, v.running_api_major,
		        *v.running_path ? v.running_path : "file unknown");
	return EXIT_OK;
}
