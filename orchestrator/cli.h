#ifndef SWEEP_CLI_H
#define SWEEP_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <limits.h>
#include <stdio.h>

/*
 * Helpers shared by the commands: the state folder, the sweep a command is
 * about, and the common option table entries. What the commands do in
 * common beyond their options is in ops/.
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
 * sweep --state-dir DIR COMMAND [ARGS]: the option given before the
 * command (as git -C; also --state-dir=DIR) is moved after it, where every
 * command reads it; without one, argv as it is. Returns a new argv (its
 * strings borrowed from argv; the caller frees the array) and sets
 * *argc; NULL, with error(), when --state-dir has no value or no command
 * follows it.
 */
char **cli_hoist_options(int *argc, char **argv);

/* For cli_parse_whole's max: no upper bound beyond what the type holds. */
#define CLI_NO_MAX ULLONG_MAX

/*
 * The one reader of a whole-number option value: arg must be all decimal
 * digits (no sign, no spaces) for a number from min to max. Sets *out and
 * returns 0; otherwise reports "NAME takes a whole number from MIN to MAX,
 * not 'ARG'" ("of MIN or more" when max is CLI_NO_MAX) and returns
 * SWEEP_ERR. name is how the user wrote the option or operand ("--attempt",
 * "INDEX"). The caller prints the usage.
 */
int cli_parse_whole(unsigned long long *out, const char *name, const char *arg,
                    unsigned long long min, unsigned long long max);

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
 * One option of a command, declared once: getopt_long's entry, the
 * short options and the --help line are all made from it (and completion
 * and the man page check read that --help).
 */
struct cli_option {
	int short_name;        /* also -x; 0 for none */
	const char *long_name; /* without "--"; NULL ends a table */
	int val;               /* what getopt_long returns for it */
	const char *arg;       /* value: "DIR" required, "[=SECONDS]" optional, NULL none */
	const char *help;      /* lines split by '\n', none starting with '-' (that reads as an
	                          option line); NULL: parsed but not listed */
};

/* The options common to commands; the _HELP forms give their own help line. */
#define CLI_STATE_DIR_HELP "the state folder (default $SWEEP_STATE_DIR or .sweep)"
#define CLI_OPT_STATE_DIR_HELP(h)                                                                  \
	{                                                                                          \
		0, "state-dir", 's', "DIR", (h)                                                    \
	}
#define CLI_OPT_STATE_DIR CLI_OPT_STATE_DIR_HELP(CLI_STATE_DIR_HELP)
#define CLI_OPT_JSON_HELP(h)                                                                       \
	{                                                                                          \
		0, "json", 'j', NULL, (h)                                                          \
	}
#define CLI_OPT_JSON CLI_OPT_JSON_HELP("print JSON")
#define CLI_REFRESH_HELP                                                                           \
	"read every record from Slurm accounting again, not the\nfinished ones the state store "   \
	"kept"
#define CLI_OPT_REFRESH_HELP(h)                                                                    \
	{                                                                                          \
		0, "refresh", 'R', NULL, (h)                                                       \
	}
#define CLI_OPT_REFRESH CLI_OPT_REFRESH_HELP(CLI_REFRESH_HELP)
#define CLI_OPT_HELP                                                                               \
	{                                                                                          \
		'h', "help", 'h', NULL, "show this help"                                           \
	}
#define CLI_OPT_END                                                                                \
	{                                                                                          \
		0, NULL, 0, NULL, NULL                                                             \
	}

/* The help column when a command gives none. */
#define CLI_COLUMN 23

/*
 * A command's usage, options and --help text, declared once (static, not
 * const: cli_command_prepare fills the last three fields).
 */
struct cli_command {
	const char *usage;                /* after "usage: " */
	const char *intro;                /* before "options:"; NULL or ending in "\n\n" */
	const struct cli_option *options; /* ends with CLI_OPT_END */
	const char *outro;                /* after the option lines; NULL or starting "\n" */
	int column;                       /* where help text starts; 0: CLI_COLUMN */
	/* Made by cli_command_prepare, once; kept for the life of the process. */
	char *help;              /* the --help text after the usage line */
	struct option *longopts; /* for getopt_long */
	char *shortopts;         /* for getopt_long */
};

/*
 * Fills c->help, c->longopts and c->shortopts from the rest of c, the first
 * time it is called for c, and starts getopt afresh (cli_getopt_start).
 */
void cli_command_prepare(struct cli_command *c);

/*
 * Appends the option lines of opts to out, help text at column (an option
 * too wide for it gets its help on the next line).
 */
struct strbuf;
void cli_format_options(struct strbuf *out, const struct cli_option *opts, int column);

#endif
