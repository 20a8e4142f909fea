#ifndef SWEEP_CLI_H
#define SWEEP_CLI_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct array_rec;
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
int cmd_confirm(int argc, char **argv);
int cmd_cancel(int argc, char **argv);
int cmd_logs(int argc, char **argv);
int cmd_advise(int argc, char **argv);
int cmd_rightsize(int argc, char **argv);
int cmd_resubmit(int argc, char **argv);
int cmd_gpus(int argc, char **argv);
int cmd_version(int argc, char **argv);
int cmd_keys(int argc, char **argv); /* hidden: __keys */

/*
 * In cmd_rightsize.c, for the options of rightsize and resubmit: reads the
 * value arg of --opt ("headroom", "mem-factor" or "time-factor") into
 * *out. A headroom is at least 1, a factor more than 1; otherwise reports
 * the error and returns -1.
 */
int cmd_rightsize_parse_factor(double *out, const char *opt, const char *arg);

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

/*
 * How long after sbatch a record missing from slurmdbd is still normal: it
 * hears of new array jobs a moment after sbatch returns.
 */
#define CLI_MISSING_GRACE_S 120

/* Whether one of the n array jobs was submitted less than CLI_MISSING_GRACE_S ago. */
bool cli_records_may_lag(const struct array_rec *arrays, size_t n);

/*
 * The submission lock: `sweep submit` holds an exclusive lock on
 * <sweep dir>/submit.lock from just after the sweep is recorded until it is
 * marked submitted or failed. The kernel drops the lock when the process
 * dies, even by SIGKILL, which is how a later command knows a submission was
 * interrupted rather than still running. Returns the descriptor to keep
 * open (close it when done), or a negative code after error().
 */
int cli_submit_lock(const char *sweep_dir);

/*
 * The intent file, <sweep dir>/submit.intent: before it runs sbatch, submit
 * or resubmit writes there the array jobs it is about to submit (attempt,
 * offset, --array value), so that recovery records a job it finds with the
 * value and attempt meant for it. Cleared once the store has them.
 * `submit` and `resubmit` hold the submission lock meanwhile, and pass it
 * on to sbatch (backend_submit.hold_fd), so it stays held until sbatch has
 * ended too.
 */
int cli_write_intent(const char *sweep_dir, const struct array_rec *arrays, size_t n);
void cli_clear_intent(const char *sweep_dir);

/*
 * Room on the state folder's disk (4 MiB, <sweep dir>/space.reserve) kept
 * from before sbatch until its answer is to be recorded, so that a disk
 * that fills meanwhile (the sweep's own tasks writing, say) cannot lose a
 * running job: cli_release_space frees it just before those writes.
 * Reserving fails, after error(), when the room is not there: submit
 * nothing then.
 */
int cli_reserve_space(const char *sweep_dir);
void cli_release_space(const char *sweep_dir);

/*
 * Repairs what an interrupted submission left, once nobody holds the
 * submission lock (neither the command nor the sbatch it started): for a
 * sweep left SUBMITTING, records the array jobs the scheduler accepted for
 * its script (backend_ops.find: by job name and script) and marks it
 * SUBMITTED, or FAILED when there were none; for a resubmission that left
 * an intent file, records its jobs; for a sweep marked FAILED with no array
 * job, adopts a job that appeared later under its name and script. Says so
 * on stderr and updates rec. cli_open_sweep calls it, so every command sees
 * the repaired sweep.
 */
int cli_recover_submission(struct store *st, struct sweep_rec *rec);

/*
 * sweep --state-dir DIR COMMAND [ARGS]: the option given before the
 * command (as git -C; also --state-dir=DIR) is moved after it, where every
 * command reads it; without one, argv as it is. Returns a new argv (its
 * strings borrowed from argv; the caller frees the array) and sets
 * *argc; NULL, with error(), when --state-dir has no value or no command
 * follows it.
 */
char **cli_hoist_options(int *argc, char **argv);

/* Prints "usage: ..." plus the option lines to f; returns EXIT_USAGE. */
int cli_usage(FILE *f, const char *usage, const char *options);

/* The same on stdout, for --help; returns EXIT_OK. */
int cli_help(const char *usage, const char *options);

/*
 * The option-parsing convention of every command: call cli_getopt_start,
 * loop over getopt_long(argc, argv, "h", longopts, NULL), end the switch
 * with cli_common_option (--state-dir, --help, errors), and let a parsing step return CLI_CONTINUE
 * to go on or an exit code (EXIT_OK, EXIT_USAGE) to end the command with. CLI_CONTINUE is neither
 * an exit code nor SWEEP_ERR.
 */
#define CLI_CONTINUE (-100)

struct option;

/* Starts getopt afresh (optind 1) with its own messages off (opterr 0). */
void cli_getopt_start(void);

/*
 * For getopt_long's '?': reports "--NAME needs a value" or "--NAME takes
 * no value" for an option of longopts written wrong, else "unknown option
 * 'ARG'"; then prints the usage to stderr. Returns EXIT_USAGE.
 */
int cli_bad_option(char **argv, const struct option *longopts, const char *usage,
                   const char *options);

/*
 * The options every command has, for the default of its switch: 's'
 * (--state-dir DIR, into *state_dir; state_dir is NULL for a command
 * without it), 'h' (--help: the usage on stdout, EXIT_OK) and getopt's '?'
 * (cli_bad_option). Returns CLI_CONTINUE after --state-dir, else the exit
 * code.
 */
int cli_common_option(int opt, const char **state_dir, char **argv, const struct option *longopts,
                      const char *usage, const char *options);

/*
 * For a command that takes no word after its options: CLI_CONTINUE, or
 * "unexpected argument 'ARG'" with the usage and EXIT_USAGE.
 */
int cli_no_operands(int argc, char **argv, const char *usage, const char *options);

/*
 * The optional SWEEP word after a command's options (argv[optind...]):
 * sets *which to it, or to NULL when there is none, and returns
 * CLI_CONTINUE. Two or more are reported, with the usage, and EXIT_USAGE
 * returned.
 */
int cli_take_sweep(const char **which, int argc, char **argv, const char *usage,
                   const char *options);

/*
 * Blocks Ctrl-C, SIGTERM and SIGHUP while array jobs are submitted and
 * recorded: stopped in between, Slurm would run what the store does not
 * know. *old receives the mask to restore with sigprocmask(SIG_SETMASK,
 * old, NULL).
 */
void cli_hold_signals(sigset_t *old);

#endif
