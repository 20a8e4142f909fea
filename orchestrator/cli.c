#include "cli.h"

#include <stdlib.h>

#include "error.h"
#include "store.h"

#include "banned.h"

const char *cli_state_dir(const char *opt)
{
	const char *env;

	if (opt && *opt)
		return opt;
	env = getenv("SWEEP_STATE_DIR");
	if (env && *env)
		return env;
	return ".sweep";
}

int cli_open_sweep(struct store **st, struct sweep_rec *out, const char *state_dir,
		   const char *which)
{
	int ret;

	*st = NULL;
	ret = store_open(st, state_dir, 0);
	if (ret < 0)
		return ret;
	ret = store_find_sweep(*st, out, which);
	if (ret < 0) {
		store_close(*st);
		*st = NULL;
	}
	return ret;
}

int cli_usage(FILE *f, const char *usage, const char *options)
{
	fprintf(f, "usage: %s\n", usage);
	if (options && *options)
		fprintf(f, "\n%s", options);
	return EXIT_USAGE;
}
