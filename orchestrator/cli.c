#include "cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <time.h>

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

bool cli_records_may_lag(const struct array_rec *arrays, size_t n)
{
	int64_t now = (int64_t)time(NULL);

	for (size_t i = 0; i < n; i++)
		if (now - arrays[i].submitted_at < CLI_MISSING_GRACE_S)
			return true;
	return false;
}

int cli_usage(FILE *f, const char *usage, const char *options)
{
	fprintf(f, "usage: %s\n", usage);
	if (options && *options)
		fprintf(f, "\n%s", options);
	return EXIT_USAGE;
}

int cli_help(const char *usage, const char *options)
{
	cli_usage(stdout, usage, options);
	return EXIT_OK;
}

int cli_bad_option(char **argv, const char *name, const char *what, const char *usage,
                   const char *options)
{
	if (name)
		error("%s needs %s", name, what);
	else
		error("unknown option '%s'", argv[optind - 1]);
	return cli_usage(stderr, usage, options);
}

int cli_take_sweep(const char **which, int argc, char **argv, const char *usage,
                   const char *options)
{
	*which = NULL;
	if (argc - optind > 1) {
		error("one sweep at a time, not '%s' and '%s'", argv[optind], argv[optind + 1]);
		return cli_usage(stderr, usage, options);
	}
	if (optind < argc)
		*which = argv[optind];
	return -1;
}

void cli_hold_signals(sigset_t *old)
{
	sigset_t block;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, old);
}
