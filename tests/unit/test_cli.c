#include "helpers.h"

#include <getopt.h>

#include "cli.h"

typedef int (*command_fn)(int argc, char **argv);

/*
 * Runs a command with words (NULL-terminated) and checks its exit code and
 * its one error message; stderr (the usage) is not looked at.
 */
static void check_command(command_fn fn, int want_code, const char *want_msg, ...)
{
	char *argv[16];
	int argc = 0, code;
	va_list ap;
	const char *w;

	va_start(ap, want_msg);
	while ((w = va_arg(ap, const char *)) && argc < 15)
		argv[argc++] = xstrdup(w);
	va_end(ap);
	argv[argc] = NULL;
	capture_errors();
	code = fn(argc, argv);
	if (code != want_code || strcmp(captured.buf, want_msg))
		fail_msg("%s ...: exit %d, want %d; got '%s', want '%s'", argv[0], code, want_code,
		         captured.buf, want_msg);
	release_captured();
	for (int i = 0; i < argc; i++)
		free(argv[i]);
}

static void test_cli_bad_options(void **state)
{
	(void)state;
	check_command(cmd_list, EXIT_USAGE, "error: unknown option '--bogus'", "list", "--bogus",
	              NULL);
	check_command(cmd_submit, EXIT_USAGE, "error: unknown option '--bogus'", "submit",
	              "--bogus", "x.yaml", NULL);
	check_command(cmd_status, EXIT_USAGE, "error: --state-dir needs a value", "status",
	              "--state-dir", NULL);
	/* An empty folder name is no folder (it was taken for .sweep). */
	check_command(cmd_status, EXIT_USAGE,
	              "error: --state-dir needs a folder, not an empty string", "status",
	              "--state-dir", "", NULL);
	check_command(cmd_list, EXIT_USAGE,
	              "error: --state-dir needs a folder, not an empty string", "list",
	              "--state-dir=", NULL);
	check_command(cmd_submit, EXIT_USAGE,
	              "error: --state-dir needs a folder, not an empty string", "submit",
	              "--state-dir", "", "x.yaml", NULL);
	check_command(cmd_report, EXIT_USAGE, "error: --json takes no value", "report", "--json=1",
	              NULL);
	check_command(cmd_rightsize, EXIT_USAGE, "error: --mem-factor needs a value", "rightsize",
	              "--mem-factor", NULL);
	check_command(cmd_resubmit, EXIT_USAGE, "error: unknown option '-x'", "resubmit", "-x",
	              NULL);
	/* A short word that happens to be a long option's letter is no option. */
	check_command(cmd_cancel, EXIT_USAGE, "error: unknown option '-s'", "cancel", "-s", "d",
	              NULL);
	check_command(cmd_gpus, EXIT_USAGE, "error: --min-free needs a value", "gpus", "--min-free",
	              NULL);
	check_command(cmd_advise, EXIT_USAGE, "error: --cost needs a value", "advise", "checkpoint",
	              "--cost", NULL);
}

/* confirm's options: every usage error with its message. */
static void test_cli_confirm_options(void **state)
{
	(void)state;
	check_command(cmd_confirm, EXIT_USAGE,
	              "error: --top takes a whole number from 1 to 1000000, not '0'", "confirm",
	              "--top", "0", NULL);
	check_command(cmd_confirm, EXIT_USAGE,
	              "error: --seeds takes a whole number from 1 to 1000000, not '3x'", "confirm",
	              "--seeds", "3x", NULL);
	check_command(cmd_confirm, EXIT_USAGE,
	              "error: bad goal 'acc' in 'acc': write METRIC=max or METRIC=min", "confirm",
	              "--goal", "acc", NULL);
	check_command(cmd_confirm, EXIT_USAGE, "error: --resources-from needs a value", "confirm",
	              "--resources-from", NULL);
}

/* report's options for goals, plots and curves: every usage error with its message. */
static void test_cli_report_compare_options(void **state)
{
	(void)state;
	check_command(cmd_report, EXIT_USAGE,
	              "error: bad goal 'acc' in 'acc': write METRIC=max or METRIC=min", "report",
	              "--goal", "acc", NULL);
	check_command(cmd_report, EXIT_USAGE,
	              "error: bad goal 'acc=up' in 'acc=up': the goal is max or min, not 'up'",
	              "report", "--goal", "acc=up", NULL);
	check_command(cmd_report, EXIT_USAGE,
	              "error: cannot tell the format of 'p.gif': end its name with .png, .svg or "
	              ".pdf",
	              "report", "--plot", "p.gif", NULL);
	check_command(cmd_report, EXIT_USAGE, "error: --x and --logx go with --plot", "report",
	              "--x", "lr", NULL);
	check_command(cmd_report, EXIT_USAGE, "error: --x and --logx go with --plot", "report",
	              "--logx", NULL);
	check_command(cmd_report, EXIT_USAGE, "error: --curves goes with --plot", "report",
	              "--curves", "c.jsonl", NULL);
	check_command(cmd_report, EXIT_USAGE,
	              "error: --x and --logx do not go with --curves: curves are drawn by step",
	              "report", "--curves", "c.jsonl", "--plot", "c.png", "--logx", NULL);
	check_command(cmd_report, EXIT_USAGE, "error: --step needs a key", "report",
	              "--step=", "--plot", "c.png", NULL);
	/* The figure's title. */
	check_command(cmd_report, EXIT_USAGE, "error: --title and --no-title go with --plot",
	              "report", "--title", "Figure 3", NULL);
	check_command(cmd_report, EXIT_USAGE, "error: --title and --no-title go with --plot",
	              "report", "--no-title", NULL);
	check_command(cmd_report, EXIT_USAGE,
	              "error: --title and --no-title cannot be used together", "report", "--plot",
	              "p.png", "--title", "Figure 3", "--no-title", NULL);
	check_command(cmd_report, EXIT_USAGE, "error: --title needs text (--no-title draws none)",
	              "report", "--plot", "p.png", "--title=", NULL);
}

static void test_cli_operands(void **state)
{
	(void)state;
	check_command(cmd_list, EXIT_USAGE, "error: unexpected argument 'x'", "list", "x", NULL);
	check_command(cmd_gpus, EXIT_USAGE, "error: unexpected argument 'x'", "gpus", "x", NULL);
	check_command(cmd_cancel, EXIT_USAGE, "error: one sweep at a time, not 'a' and 'b'",
	              "cancel", "a", "b", NULL);
	check_command(cmd_status, EXIT_OK, "", "status", "--help", NULL);
	/* --state-dir reaches the store. */
	check_command(cmd_list, EXIT_ERROR,
	              "error: no state store in '/nonexistent/st': No such file or directory (run "
	              "'sweep submit' first, or give --state-dir)",
	              "list", "--state-dir", "/nonexistent/st", NULL);
}

static void test_cli_take_sweep(void **state)
{
	char *argv[] = {"status", "mnist", NULL};
	const char *which = "old";

	(void)state;
	cli_getopt_start();
	optind = 1;
	assert_int_equal(cli_take_sweep(&which, 2, argv, "u", ""), CLI_CONTINUE);
	assert_string_equal(which, "mnist");
	optind = 2;
	assert_int_equal(cli_take_sweep(&which, 2, argv, "u", ""), CLI_CONTINUE);
	assert_null(which);
	assert_int_not_equal(CLI_CONTINUE, SWEEP_ERR);
}

/* Hoists words (NULL-terminated) and compares them, joined by spaces, with want (NULL: refused). */
static void check_hoist(const char *want, const char *want_msg, ...)
{
	char *argv[16];
	char **out;
	int argc = 0;
	va_list ap;
	const char *w;
	struct strbuf got = STRBUF_INIT;

	va_start(ap, want_msg);
	while ((w = va_arg(ap, const char *)) && argc < 15)
		argv[argc++] = (char *)w;
	va_end(ap);
	argv[argc] = NULL;
	capture_errors();
	out = cli_hoist_options(&argc, argv);
	if (out) {
		for (int i = 0; i < argc; i++)
			strbuf_addf(&got, "%s%s", i ? " " : "", out[i]);
		assert_null(out[argc]);
	}
	if (!want)
		assert_null(out);
	else
		assert_string_equal(got.buf, want);
	assert_string_equal(captured.buf, want_msg);
	release_captured();
	strbuf_release(&got);
	free(out);
}

/* sweep --state-dir DIR COMMAND: the option before the command, as git -C. */
static void test_cli_state_dir_before_command(void **state)
{
	(void)state;
	check_hoist("sweep status --state-dir d 3 --tasks", "", "sweep", "--state-dir", "d",
	            "status", "3", "--tasks", NULL);
	check_hoist("sweep list --state-dir=d", "", "sweep", "--state-dir=d", "list", NULL);
	check_hoist("sweep status --state-dir a --state-dir=b", "", "sweep", "--state-dir", "a",
	            "--state-dir=b", "status", NULL);
	check_hoist("sweep status --state-dir d", "", "sweep", "status", "--state-dir", "d", NULL);
	check_hoist("sweep", "", "sweep", NULL);
	check_hoist(NULL, "error: --state-dir needs a value", "sweep", "--state-dir", NULL);
	check_hoist(NULL,
	            "error: a command goes after --state-dir DIR, as in 'sweep --state-dir DIR "
	            "status'",
	            "sweep", "--state-dir", "d", NULL);
	/* Then the command reads it as its own. */
	{
		char *argv[] = {"sweep", "--state-dir", "/nonexistent/st", "list", NULL};
		int argc = 4;
		char **out = cli_hoist_options(&argc, argv);

		assert_non_null(out);
		capture_errors();
		assert_int_equal(cmd_list(argc - 1, out + 1), EXIT_ERROR);
		assert_string_equal(captured.buf,
		                    "error: no state store in '/nonexistent/st': No such file or "
		                    "directory (run 'sweep submit' first, or give --state-dir)");
		release_captured();
		free(out);
	}
}

/* cli_parse_whole: what it takes, and its message for what it does not. */
static void test_cli_parse_whole(void **state)
{
	static const struct {
		const char *arg;
		unsigned long long min, max, want;
		const char *msg; /* NULL: taken, as want */
	} cases[] = {
	    {"1", 1, 1000000, 1, NULL},
	    {"1000000", 1, 1000000, 1000000, NULL},
	    {"007", 0, 10, 7, NULL},
	    {"0", 0, CLI_NO_MAX, 0, NULL},
	    {"18446744073709551615", 0, CLI_NO_MAX, ULLONG_MAX, NULL},
	    {"0", 1, 1000000, 0,
	     "error: --attempt takes a whole number from 1 to 1000000, not '0'"},
	    {"1000001", 1, 1000000, 0,
	     "error: --attempt takes a whole number from 1 to 1000000, not '1000001'"},
	    {"x", 1, 1000000, 0,
	     "error: --attempt takes a whole number from 1 to 1000000, not 'x'"},
	    {"", 1, 1000000, 0, "error: --attempt takes a whole number from 1 to 1000000, not ''"},
	    {"3x", 1, 1000000, 0,
	     "error: --attempt takes a whole number from 1 to 1000000, not '3x'"},
	    {"-1", 0, CLI_NO_MAX, 0,
	     "error: --attempt takes a whole number of 0 or more, not '-1'"},
	    {"+3", 1, 1000000, 0,
	     "error: --attempt takes a whole number from 1 to 1000000, not '+3'"},
	    {" 3", 1, 1000000, 0,
	     "error: --attempt takes a whole number from 1 to 1000000, not ' 3'"},
	    {"3 ", 1, 1000000, 0,
	     "error: --attempt takes a whole number from 1 to 1000000, not '3 '"},
	    {"18446744073709551616", 0, CLI_NO_MAX, 0,
	     "error: --attempt takes a whole number of 0 or more, not '18446744073709551616'"},
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned long long v = 12345;
		int ret;

		capture_errors();
		ret = cli_parse_whole(&v, "--attempt", cases[i].arg, cases[i].min, cases[i].max);
		if (cases[i].msg) {
			if (ret != SWEEP_ERR || v != 12345 || strcmp(captured.buf, cases[i].msg))
				fail_msg("'%s': got %d, '%s'; want '%s'", cases[i].arg, ret,
				         captured.buf, cases[i].msg);
		} else if (ret || v != cases[i].want || captured.len) {
			fail_msg("'%s': got %d, %llu, '%s'; want %llu", cases[i].arg, ret, v,
			         captured.buf, cases[i].want);
		}
		release_captured();
	}
}

/* Each command's whole-number options go through cli_parse_whole, with the option's name. */
static void test_cli_whole_number_options(void **state)
{
	(void)state;
	check_command(cmd_logs, EXIT_USAGE,
	              "error: --attempt takes a whole number from 1 to 1000000, not 'x'", "logs",
	              "--attempt", "x", "s", "1", NULL);
	check_command(cmd_logs, EXIT_USAGE,
	              "error: --attempt takes a whole number from 1 to 1000000, not '0'", "logs",
	              "--attempt", "0", "s", "1", NULL);
	check_command(cmd_logs, EXIT_USAGE,
	              "error: INDEX takes a whole number of 0 or more, not '1x'", "logs", "s", "1x",
	              NULL);
	/* After "--", "-1" is an index, and no number. */
	check_command(cmd_logs, EXIT_USAGE,
	              "error: INDEX takes a whole number of 0 or more, not '-1'", "logs", "--", "s",
	              "-1", NULL);
	check_command(cmd_status, EXIT_USAGE,
	              "error: --watch takes a whole number from 5 to 86400, not '4'", "status",
	              "--watch=4", NULL);
	check_command(cmd_status, EXIT_USAGE,
	              "error: --watch takes a whole number from 5 to 86400, not '5s'", "status",
	              "--watch=5s", NULL);
	check_command(cmd_report, EXIT_USAGE,
	              "error: --digits takes a whole number from 1 to 17, not '0'", "report",
	              "--digits", "0", NULL);
	check_command(cmd_report, EXIT_USAGE,
	              "error: --top takes a whole number from 1 to 2147483647, not '-2'", "report",
	              "--top", "-2", NULL);
	check_command(cmd_confirm, EXIT_USAGE,
	              "error: --top takes a whole number from 1 to 1000000, not '+3'", "confirm",
	              "--top", "+3", NULL);
	check_command(cmd_advise, EXIT_USAGE,
	              "error: --seed takes a whole number from 0 to 9223372036854775807, not "
	              "'9223372036854775808'",
	              "advise", "checkpoint", "--cost", "1m", "--mtbf", "1d", "--work", "1d",
	              "--seed", "9223372036854775808", NULL);
}

/* One option table makes the --help lines and getopt_long's tables. */
static void test_cli_option_table(void **state)
{
	static const struct cli_option opts[] = {
	    {0, "attempt", 'a', "N", "the Nth attempt"},
	    {'f', "follow", 'f', NULL, "keep printing\nuntil it ends"},
	    {0, "watch", 'w', "[=SECONDS]", "refresh"},
	    {0, "resources-from", 'r', "SWEEP", "too wide\nfor the column"},
	    {0, "hidden", 'H', "X", NULL},
	    CLI_OPT_STATE_DIR,
	    CLI_OPT_HELP,
	    CLI_OPT_END,
	};
	static struct cli_command c = {
	    .usage = "sweep x [options]",
	    .intro = "Does x.\n\n",
	    .options = opts,
	    .outro = "\nexit status: 0 success.\n",
	    .column = 21,
	};
	static const struct {
		const char *name;
		int has_arg, val;
	} want[] = {
	    {"attempt", required_argument, 'a'}, {"follow", no_argument, 'f'},
	    {"watch", optional_argument, 'w'},   {"resources-from", required_argument, 'r'},
	    {"hidden", required_argument, 'H'},  {"state-dir", required_argument, 's'},
	    {"help", no_argument, 'h'},
	};
	size_t i;

	(void)state;
	cli_command_prepare(&c);
	assert_string_equal(c.help,
	                    "Does x.\n"
	                    "\n"
	                    "options:\n"
	                    "  --attempt N        the Nth attempt\n"
	                    "  -f, --follow       keep printing\n"
	                    "                     until it ends\n"
	                    "  --watch[=SECONDS]  refresh\n"
	                    "  --resources-from SWEEP\n"
	                    "                     too wide\n"
	                    "                     for the column\n"
	                    "  --state-dir DIR    the state folder (default $SWEEP_STATE_DIR or "
	                    ".sweep)\n"
	                    "  -h, --help         show this help\n"
	                    "\n"
	                    "exit status: 0 success.\n");
	assert_string_equal(c.shortopts, "fh");
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		assert_non_null(c.longopts[i].name);
		assert_string_equal(c.longopts[i].name, want[i].name);
		assert_int_equal(c.longopts[i].has_arg, want[i].has_arg);
		assert_null(c.longopts[i].flag);
		assert_int_equal(c.longopts[i].val, want[i].val);
	}
	assert_null(c.longopts[i].name);
	/* A second call keeps what the first made. */
	{
		const char *help = c.help;

		cli_command_prepare(&c);
		assert_ptr_equal(c.help, help);
	}
}

/* --help lists every option of the table: each command's, parsed as completion reads it. */
static void test_cli_help_lists_options(void **state)
{
	(void)state;
	check_command(cmd_cancel, EXIT_OK, "", "cancel", "--help", NULL);
	check_command(cmd_logs, EXIT_OK, "", "logs", "-h", NULL);
	check_command(cmd_version, EXIT_OK, "", "version", "--help", NULL);
	/* -f is logs' one short option besides -h; elsewhere it is unknown. */
	check_command(cmd_cancel, EXIT_USAGE, "error: unknown option '-f'", "cancel", "-f", NULL);
	check_command(cmd_logs, EXIT_USAGE, "error: --attempt needs a value", "logs", "s", "1",
	              "--attempt", NULL);
	check_command(cmd_report, EXIT_USAGE, "error: --reason needs a value", "report", "--reason",
	              NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cli_bad_options),
	    cmocka_unit_test(test_cli_confirm_options),
	    cmocka_unit_test(test_cli_report_compare_options),
	    cmocka_unit_test(test_cli_operands),
	    cmocka_unit_test(test_cli_take_sweep),
	    cmocka_unit_test(test_cli_state_dir_before_command),
	    cmocka_unit_test(test_cli_parse_whole),
	    cmocka_unit_test(test_cli_whole_number_options),
	    cmocka_unit_test(test_cli_option_table),
	    cmocka_unit_test(test_cli_help_lists_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
