/*
 * sweep __keys (hidden): every key the sweep file reader accepts, one per
 * line ("name", "slurm.partition"...), from the reader's own tables. The
 * test that sweep-file(5) documents every key reads this.
 */
#include <stdio.h>

#include "cfg.h"
#include "cli.h"
#include "error.h"

#include "banned.h"

int cmd_keys(int argc, char **argv)
{
	(void)argv;
	if (argc > 1) {
		error("__keys takes no arguments");
		return EXIT_USAGE;
	}
	cfg_print_keys(stdout);
	return EXIT_OK;
}
