#include "cli.h"

#include <assert.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "strbuf.h"

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

int cli_parse_whole(unsigned long long *out, const char *name, const char *arg,
                    unsigned long long min, unsigned long long max)
{
	unsigned long long v = 0;
	char *end;

	assert(min <= max);
	/* strtoull alone would take spaces, a sign and "-1" as a huge number. */
	if (*arg >= '0' && *arg <= '9') {
		errno = 0;
		v = strtoull(arg, &end, 10);
		if (!*end && !errno && v >= min && v <= max) {
			*out = v;
			return 0;
		}
	}
	if (max == CLI_NO_MAX)
		return error("%s takes a whole number of %llu or more, not '%s'", name, min, arg);
	return error("%s takes a whole number from %llu to %llu, not '%s'", name, min, max, arg);
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

void cli_getopt_start(void)
{
	optind = 1;
	opterr = 0;
}

int cli_bad_option(char **argv, const struct option *longopts, const char *usage,
                   const char *options)
{
	const char *arg = argv[optind - 1];
	const struct option *o = NULL;

	/* optopt names the option only when a long one was given wrong. */
	if (optopt && !strncmp(arg, "--", 2))
		for (o = longopts; o->name && o->val != optopt; o++)
			;
	if (o && o->name && o->has_arg == required_argument)
		error("--%s needs a value", o->name);
	else if (o && o->name && o->has_arg == no_argument)
		error("--%s takes no value", o->name);
	else
		error("unknown option '%s'", arg);
	return cli_usage(stderr, usage, options);
}

int cli_common_option(int opt, const char **state_dir, char **argv, const struct option *longopts,
                      const char *usage, const char *options)
{
	if (opt == 's' && state_dir) {
		if (!*optarg) {
			error("--state-dir needs a folder, not an empty string");
			return cli_usage(stderr, usage, options);
		}
		*state_dir = optarg;
		return CLI_CONTINUE;
	}
	if (opt == 'h')
		return cli_help(usage, options);
	return cli_bad_option(argv, longopts, usage, options);
}

/* How many words of argv at i are a --state-dir before the command: 0, 1 or 2; -1 without a value.
 */
static int state_dir_words(int argc, char **argv, int i)
{
	if (!strncmp(argv[i], "--state-dir=", 12))
		return 1;
	if (strcmp(argv[i], "--state-dir"))
		return 0;
	if (i + 1 >= argc)
		return error("--state-dir needs a value");
	return 2;
}

char **cli_hoist_options(int *argc, char **argv)
{
	int i = 1, n = 0, words;
	char **out;

	while (i < *argc && (words = state_dir_words(*argc, argv, i)) != 0) {
		if (words < 0)
			return NULL;
		i += words;
	}
	if (i > 1 && i >= *argc) {
		error("a command goes after --state-dir DIR, as in 'sweep --state-dir DIR status'");
		return NULL;
	}
	out = xcalloc((size_t)*argc + 1, sizeof(*out));
	out[n++] = argv[0];
	if (i < *argc)
		out[n++] = argv[i];
	for (int k = 1; k < i; k++)
		out[n++] = argv[k];
	for (int k = i + 1; k < *argc; k++)
		out[n++] = argv[k];
	out[n] = NULL;
	*argc = n;
	return out;
}

int cli_no_operands(int argc, char **argv, const char *usage, const char *options)
{
	if (optind >= argc)
		return CLI_CONTINUE;
	error("unexpected argument '%s'", argv[optind]);
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
	return CLI_CONTINUE;
}

/* "-x, --name ARG" or "--name[=ARG]" as --help shows it. */
static void add_option_words(struct strbuf *out, const struct cli_option *o)
{
	if (o->short_name)
		strbuf_addf(out, "-%c, ", o->short_name);
	strbuf_addf(out, "--%s", o->long_name);
	if (o->arg)
		strbuf_addf(out, "%s%s", o->arg[0] == '[' ? "" : " ", o->arg);
}

void cli_format_options(struct strbuf *out, const struct cli_option *opts, int column)
{
	for (const struct cli_option *o = opts; o->long_name; o++) {
		const char *line = o->help, *nl;
		size_t start = out->len;

		if (!line)
			continue;
		strbuf_addstr(out, "  ");
		add_option_words(out, o);
		/* Two spaces at least between the option and its help. */
		if (out->len - start + 2 > (size_t)column) {
			strbuf_addch(out, '\n');
			start = out->len;
		}
		for (;;) {
			/* Completion and the man page check take "  -..." for an option. */
			assert(*line != '-');
			while (out->len - start < (size_t)column)
				strbuf_addch(out, ' ');
			nl = strchr(line, '\n');
			if (!nl) {
				strbuf_addf(out, "%s\n", line);
				break;
			}
			strbuf_add(out, line, (size_t)(nl - line));
			strbuf_addch(out, '\n');
			start = out->len;
			line = nl + 1;
		}
	}
}

void cli_command_prepare(struct cli_command *c)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n = 0;

	cli_getopt_start();
	if (c->help)
		return;
	strbuf_addstr(&sb, c->intro ? c->intro : "");
	strbuf_addstr(&sb, "options:\n");
	cli_format_options(&sb, c->options, c->column ? c->column : CLI_COLUMN);
	strbuf_addstr(&sb, c->outro ? c->outro : "");
	c->help = strbuf_detach(&sb, NULL);

	while (c->options[n].long_name)
		n++;
	c->longopts = xcalloc(n + 1, sizeof(*c->longopts));
	for (size_t i = 0; i < n; i++) {
		const struct cli_option *o = &c->options[i];

		c->longopts[i].name = o->long_name;
		c->longopts[i].has_arg = !o->arg            ? no_argument
		                         : o->arg[0] == '[' ? optional_argument
		                                            : required_argument;
		c->longopts[i].val = o->val;
		if (o->short_name) {
			assert(o->short_name == o->val);
			strbuf_addch(&sb, (char)o->short_name);
			if (o->arg)
				strbuf_addstr(&sb, o->arg[0] == '[' ? "::" : ":");
		}
	}
	c->shortopts = strbuf_detach(&sb, NULL);
}
