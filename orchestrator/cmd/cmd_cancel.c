/*
 * sweep cancel: every array job the store recorded for the sweep (chunks
 * and resubmissions alike), through libslurm.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cfg.h"
#include "cli.h"
#include "backend.h"
#include "error.h"
#include "followup.h"
#include "loaded.h"
#include "output.h"
#include "script_stage.h"
#include "store.h"
#include "strbuf.h"

#include "banned.h"

static const struct cli_option option_table[] = {
    CLI_OPT_STATE_DIR,
    CLI_OPT_HELP,
    CLI_OPT_END,
};

static struct cli_command command = {
    .usage = "sweep cancel [options] [SWEEP]",
    .intro = "SWEEP is a sweep's name or id (default: the most recent sweep).\n"
             "\n",
    .options = option_table,
    .outro = "\n"
             "exit status: 0 success, 1 error, 2 usage.\n",
};

/*
 * The sweep's stage on this machine (--local, or a node sweep runs on):
 * removed once its cancelled tasks have let go of their leases (within
 * STAGE_WAIT_S). On other nodes the tasks remove it as they end.
 */
#define STAGE_WAIT_S 30

/* Fails (reported) when a stage there is not the caller's to remove. */
static int remove_stage(struct loaded_sweep *l)
{
	const char *bases[3] = {getenv("TMPDIR"), NULL, "/tmp"};
	const struct cfg *cfg;
	char *name = script_stage_name(l->rec.id, l->rec.dir);
	int failed = 0;

	if (loaded_sweepfile(&cfg, l, LOADED_WARN) < 0 || !cfg->nstage)
		goto out;
	bases[1] = cfg->slurm.tmp_base;
	for (size_t b = 0; b < 3; b++) {
		int ret = 0;

		if (!bases[b] || !*bases[b])
			continue;
		for (int t = 0;
		     t < STAGE_WAIT_S * 10 && (ret = script_stage_remove(bases[b], name)) == 0;
		     t++) {
			struct stat sb;
			char *dir = xstrfmt("%s/%s", bases[b], name);
			bool gone = lstat(dir, &sb) < 0;

			free(dir);
			if (gone)
				break;
			nanosleep(&(struct timespec){0, 100 * 1000 * 1000}, NULL);
		}
		if (ret > 0)
			printf("removed the stage %s/%s\n", bases[b], name);
		failed |= ret < 0;
	}
out:
	free(name);
	return failed ? SWEEP_ERR : 0;
}

int cmd_cancel(int argc, char **argv)
{
	const char *state_dir = NULL, *which;
	struct loaded_sweep l;
	const struct backend_ops *ops;
	size_t nfollowups = 0;
	int opt, code, ret = EXIT_ERROR;

	loaded_init(&l);
	cli_command_prepare(&command);
	while ((opt = getopt_long(argc, argv, command.shortopts, command.longopts, NULL)) != -1) {
		code = cli_common_option(opt, &state_dir, argv, command.longopts, command.usage,
		                         command.help);
		if (code != CLI_CONTINUE)
			return code;
	}
	code = cli_take_sweep(&which, argc, argv, command.usage, command.help);
	if (code != CLI_CONTINUE)
		return code;

	if (loaded_open(&l, cli_state_dir(state_dir), which) < 0 || loaded_arrays(&l) < 0)
		goto out;
	/* Follow-ups first: cancelled arrays satisfy their dependency, and they would retry. */
	if (followup_cancel(&nfollowups, l.st, &l.rec) < 0)
		goto out;
	if (nfollowups)
		printf("cancelled %zu pending follow-up%s of sweep %" PRId64 " '%s'\n", nfollowups,
		       output_plural(nfollowups, "", "s"), l.rec.id, l.rec.name);
	if (!l.narrays) {
		printf("sweep %" PRId64 " '%s' has no array jobs: nothing to cancel\n", l.rec.id,
		       l.rec.name);
		ret = EXIT_OK;
		goto out;
	}
	ops = backend_get(l.rec.backend);
	/* Finished array jobs are skipped quietly; the others' failures are reported. */
	if (!ops || ops->cancel(l.st, &l.rec, l.arrays, l.narrays) < 0)
		goto out;
	printf("cancelled %zu array job%s of sweep %" PRId64 " '%s':", l.narrays,
	       output_plural(l.narrays, "", "s"), l.rec.id, l.rec.name);
	for (size_t i = 0; i < l.narrays; i++)
		printf(" %" PRIu32, l.arrays[i].job_id);
	printf(" (tasks that had ended are unchanged)\n");
	if (remove_stage(&l) < 0)
		goto out;
	ret = EXIT_OK;
out:
	loaded_release(&l);
	return ret;
}
