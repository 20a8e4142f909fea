#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#include "cli.h"
#include "error.h"
#include "store.h"
#include "strbuf.h"
#include "table.h"

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
	static const char *const head[] = {"ID", "NAME", "STATUS", "TASKS", "CREATED", "SOURCE"};
	const char *state_opt = NULL;
	struct table t;
	struct store *st = NULL;
	struct sweep_rec *recs = NULL;
	size_t n = 0;
	int opt, code;

	cli_getopt_start();
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		code = cli_common_option(opt, &state_opt, argv, longopts, usage, options);
		if (code != CLI_CONTINUE)
			return code;
	}
	code = cli_no_operands(argc, argv, usage, options);
	if (code != CLI_CONTINUE)
		return code;
	if (store_open(&st, cli_state_dir(state_opt), 0) < 0)
		return EXIT_ERROR;
	if (store_list_sweeps(st, &recs, &n) < 0) {
		store_close(st);
		return EXIT_ERROR;
	}
	table_init_head(&t, head, sizeof(head) / sizeof(head[0]));
	table_align_right(&t, 3);
	for (size_t i = 0; i < n; i++) {
		char when[32];
		time_t created = (time_t)recs[i].created_at;
		struct tm tm;

		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime_r(&created, &tm));
		table_add(&t, xstrfmt("%" PRId64, recs[i].id));
		table_addstr(&t, recs[i].name);
		table_addstr(&t, sweep_status_name(recs[i].status));
		table_add(&t, xstrfmt("%zu", recs[i].ntasks));
		table_addstr(&t, when);
		table_addstr(&t, recs[i].source);
	}
	table_print(stdout, &t);
	table_release(&t);
	if (!n)
		printf("(no sweeps yet)\n");
	sweep_recs_free(recs, n);
	store_close(st);
	return EXIT_OK;
}
