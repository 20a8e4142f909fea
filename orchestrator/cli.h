#ifndef SWEEP_CLI_H
#define SWEEP_CLI_H

#include <stdio.h>

struct store;
struct sweep_rec;

/*
 * Helpers shared by the commands: the state folder, finding the sweep a
 * command is about, and the common option table entries.
 */

/* The commands; one file each (cmd_<name>.c). Return an exit code. */
int cmd_submit(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_cancel(int argc, char **argv);
int cmd_advise(int argc, char **argv);
int cmd_rightsize(int argc, char **argv);
int cmd_resubmit(int argc, char **argv);
int cmd_gpus(int argc, char **argv);

/*
 * In cmd_rightsize.c, for submit --resources-from: applies the whole-sweep
 * recommendation (default headroom and factors) of the sweep named by which
 * in state_dir to cfg's slurm.mem and slurm.time, and prints each change.
 * Fails, with the reason reported, when that sweep cannot be read or its
 * data support no recommendation (nothing ran, tasks still running).
 */
struct cfg;
int cmd_rightsize_apply(struct cfg *cfg, const char *state_dir, const char *which);

/*
 * The state folder: opt (from --state-dir) if not NULL, else
 * $SWEEP_STATE_DIR, else ".sweep" in the current folder. Borrowed: from
 * opt, the environment or a literal.
 */
const char *cli_state_dir(const char *opt);

/*
 * Opens the store in state_dir (without creating it) and finds the sweep
 * named by which (name, id, or NULL for the most recent). On failure the
 * error was reported and *st is NULL.
 */
int cli_open_sweep(struct store **st, struct sweep_rec *out, const char *state_dir,
		   const char *which);

/* Prints "usage: ..." plus the option lines to f; returns EXIT_USAGE. */
int cli_usage(FILE *f, const char *usage, const char *options);

#endif
