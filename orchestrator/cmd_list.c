#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#include "cli.h"
#include "error.h"
#include "store.h"

#include "banned.h"

static const char usage[] = "sweep list [--state-dir DIR]";
static const char options[] =
    "options:\n"
    "  --state-dir DIR    the state folder (default $SWEEP_STATE_DIR or .sweep)\n"
    "  -h, --help         show this help\n";

int cmd_list(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"state-dir", required_argument, NULL, 's'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *state_opt = NULL;
	struct store *st = NULL;
	struct sweep_rec *recs = NULL;
	size_t n = 0;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 's':
			state_opt = optarg;
			break;
		case 'h':
			return cli_help(usage, options);
		default:
			return cli_usage(stderr, usage, options);
		}
	}
	if (optind != argc)
		return cli_usage(stderr, usage, options);
	if (store_open(&st, cli_state_dir(state_opt), 0) < 0)
		return EXIT_ERROR;
	if (store_list_sweeps(st, &recs, &n) < 0) {
		store_close(st);
		return EXIT_ERROR;
	}
	printf("%-5s %-24s %-10s %7s  %-19s  %s\n", "ID", "NAME", "STATUS", "TASKS", "CREATED",
	       "SOURCE");
	for (size_t i = 0; i < n; i++) {
		char when[32];
		time_t t = (time_t)recs[i].created_at;
		struct tm tm;

		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime_r(&t, &tm));
		printf("%-5" PRId64 " %-24s %-10s %7zu  %-19s  %s\n", recs[i].id, recs[i].name,
		       sweep_status_name(recs[i].status), recs[i].ntasks, when, recs[i].source);
	}
	if (!n)
		printf("(no sweeps yet)\n");
	sweep_recs_free(recs, n);
	store_close(st);
	return EXIT_OK;
}
