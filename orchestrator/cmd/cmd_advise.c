/*
 * sweep advise checkpoint: how often a job should checkpoint. The MTBF is
 * given, or estimated from a sweep's own accounting (store -> its array
 * jobs -> one accounting query -> advise_estimate_mtbf); the arithmetic
 * is aggregate/advise.c, the printers aggregate/print/advise_print.c.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct.h"
#include "advise.h"
#include "advise_print.h"
#include "backend.h"
#include "cli.h"
#include "error.h"
#include "loaded.h"
#include "store.h"
#include "strbuf.h"

#include "banned.h"

#define DEFAULT_WORK_S (24 * 3600.0)

static const char top_usage[] = "sweep advise <subcommand> [options]";
static const char top_options[] =
    "subcommands:\n"
    "  checkpoint   how often to checkpoint, from the cost of a checkpoint and the time\n"
    "               between failures\n"
    "\n"
    "'sweep advise checkpoint --help' shows its options.\n"
    "\n"
    "exit status: 0 success, 1 error, 2 usage.\n";

static const struct cli_option option_table[] = {
    {0, "cost", 'c', "DURATION", "time to write one checkpoint (required)"},
    {0, "mtbf", 'm', "DURATION", "mean time between interruptions of a running job"},
    {0, "from", 'f', "SWEEP",
     "estimate the MTBF from a sweep's accounting instead: the run\n"
     "time of all its runs over the runs that ended PREEMPTED,\n"
     "NODE_FAIL or REQUEUED or were requeued (TIMEOUT is the time\n"
     "limit, not a failure, and is not counted)"},
    {0, "work", 'w', "DURATION", "useful work of one job (default 24h)"},
    {0, "restart", 'r', "DURATION", "time lost on each restart before work resumes (default 0)"},
    {0, "seed", 'S', "N", "seed of the simulation (default 1; same seed, same numbers)"},
    CLI_OPT_JSON,
    CLI_OPT_REFRESH_HELP("with --from: read every record from Slurm accounting again,\n"
                         "not the finished ones the state store kept"),
    CLI_OPT_STATE_DIR_HELP("the state folder, for --from (default $SWEEP_STATE_DIR or\n"
                           ".sweep)"),
    CLI_OPT_HELP,
    CLI_OPT_END,
};

static struct cli_command command = {
    .usage = "sweep advise checkpoint --cost DURATION (--mtbf DURATION | --from SWEEP) [options]",
    .intro = "Prints Young's optimal checkpoint interval sqrt(2 x cost x MTBF), Daly's\n"
             "higher-order estimate, the best interval for a job of the given work, and the\n"
             "expected wall time of intervals from 0.25x to 4x Young's and of no checkpoint at\n"
             "all, from the closed form and from a Monte Carlo simulation of the same model.\n"
             "Model: interruptions come at random (exponential times, mean MTBF) during work\n"
             "and checkpoint writing, not during restarts; each loses the work since the last\n"
             "checkpoint and then costs the restart time; the last segment writes no checkpoint.\n"
             "\n",
    .options = option_table,
    .outro = "\n"
             "DURATION is numbers with units, largest unit first: 90s, 3m, 1.5h, 1h30m, 2d.\n"
             "A plain number is refused (sbatch would read minutes, people anything); 0 is zero.\n"
             "\n"
             "exit status: 0 success, 1 error, 2 usage.\n",
};

struct checkpoint_opts {
	const char *cost, *mtbf, *from, *work, *restart, *seed, *state_dir;
	bool json;
	bool refresh;
};

/* Returns CLI_CONTINUE to go on, or the exit code the command ends with. */
static int parse_options(struct checkpoint_opts *o, int argc, char **argv)
{
	int opt, code;

	cli_command_prepare(&command);
	while ((opt = getopt_long(argc, argv, command.shortopts, command.longopts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			o->cost = optarg;
			break;
		case 'm':
			o->mtbf = optarg;
			break;
		case 'f':
			o->from = optarg;
			break;
		case 'w':
			o->work = optarg;
			break;
		case 'r':
			o->restart = optarg;
			break;
		case 'S':
			o->seed = optarg;
			break;
		case 'j':
			o->json = true;
			break;
		case 'R':
			o->refresh = true;
			break;
		default:
			code = cli_common_option(opt, &o->state_dir, argv, command.longopts,
			                         command.usage, command.help);
			if (code != CLI_CONTINUE)
				return code;
		}
	}
	if (optind < argc) {
		error("advise checkpoint takes no argument, not '%s' (did you mean --from %s?)",
		      argv[optind], argv[optind]);
		return cli_usage(stderr, command.usage, command.help);
	}
	if (!o->cost) {
		error("--cost is required: how long writing one checkpoint takes, as in --cost 3m");
		return cli_usage(stderr, command.usage, command.help);
	}
	if (!o->mtbf == !o->from) {
		error(o->mtbf
		          ? "--mtbf and --from both give the MTBF: choose one"
		          : "give the MTBF with --mtbf DURATION, or --from SWEEP to estimate it");
		return cli_usage(stderr, command.usage, command.help);
	}
	return CLI_CONTINUE;
}

/* Reads a duration option; zero is refused when positive is set. */
static int parse_duration(double *out, const char *name, const char *arg, bool positive)
{
	const char *why;

	if (advise_parse_duration(out, arg, &why) < 0)
		return error("%s: cannot read '%s': %s", name, arg, why);
	if (positive && !(*out > 0))
		return error("%s must be more than zero, not '%s'", name, arg);
	return 0;
}

/*
 * Below a second the model's arithmetic overflows and every row reads
 * "forever": no real machine fails that often, so it is a typing mistake.
 */
#define MIN_MTBF_S 1.0

static int parse_mtbf(double *out, const char *arg)
{
	if (parse_duration(out, "--mtbf", arg, true) < 0)
		return SWEEP_ERR;
	if (*out < MIN_MTBF_S)
		return error("--mtbf '%s' is less than 1s: give the mean time between "
		             "interruptions of a running job, as in 12h or 3d",
		             arg);
	return 0;
}

static int parse_seed(uint64_t *out, const char *s)
{
	unsigned long long v;

	if (cli_parse_whole(&v, "--seed", s, 0, INT64_MAX) < 0)
		return -1;
	*out = v;
	return 0;
}

/* The MTBF from the sweep's own accounting: one query over all its array jobs. */
static int estimate_from_sweep(struct advise_mtbf *out, struct sweep_rec *rec,
                               const struct checkpoint_opts *o)
{
	struct loaded_sweep l;
	int ret;

	loaded_init(&l);
	ret = loaded_open(&l, cli_state_dir(o->state_dir), o->from);
	if (ret < 0)
		goto out;
	/*
	 * Through the seam: a --local sweep's records come from its runner. Run
	 * times and states are on the job records: no steps.
	 */
	l.read.refresh = o->refresh;
	ret = loaded_records(&l);
	if (ret < 0)
		goto out;
	if (!l.narrays) {
		ret = error("sweep %" PRId64 " '%s' has no array job: nothing ran to estimate the "
		            "MTBF from; give it with --mtbf",
		            l.rec.id, l.rec.name);
		goto out;
	}
	advise_estimate_mtbf(out, &l.set);
	if (out->run_s <= 0)
		ret = error("no run of sweep %" PRId64 " '%s' has any run time yet: nothing to "
		            "estimate the MTBF from; give it with --mtbf",
		            l.rec.id, l.rec.name);
out:
	/* The caller names the sweep in what it prints. */
	sweep_rec_release(rec);
	*rec = l.rec;
	sweep_rec_init(&l.rec);
	loaded_release(&l);
	return ret;
}

static int advise_checkpoint(int argc, char **argv)
{
	struct checkpoint_opts o = {0};
	struct advise_report r;
	struct advise_mtbf observed;
	struct sweep_rec rec;
	int code;

	advise_report_init(&r);
	sweep_rec_init(&rec);
	code = parse_options(&o, argc, argv);
	if (code != CLI_CONTINUE)
		goto out;
	code = EXIT_USAGE;
	r.params.work_s = DEFAULT_WORK_S;
	if (parse_duration(&r.params.cost_s, "--cost", o.cost, true) < 0 ||
	    (o.mtbf && parse_mtbf(&r.params.mtbf_s, o.mtbf) < 0) ||
	    (o.work && parse_duration(&r.params.work_s, "--work", o.work, true) < 0) ||
	    (o.restart && parse_duration(&r.params.restart_s, "--restart", o.restart, false) < 0) ||
	    (o.seed && parse_seed(&r.seed, o.seed) < 0)) {
		cli_usage(stderr, command.usage, command.help);
		goto out;
	}
	code = EXIT_ERROR;
	if (o.from) {
		if (estimate_from_sweep(&observed, &rec, &o) < 0)
			goto out;
		r.observed = &observed;
		r.sweep = rec.name;
		r.sweep_id = rec.id;
		r.params.mtbf_s = observed.has_estimate ? observed.mtbf_s : 0;
	}
	advise_build(&r);
	if (o.json)
		advise_print_json(stdout, &r);
	else
		advise_print_text(stdout, &r);
	code = EXIT_OK;
out:
	advise_report_release(&r);
	sweep_rec_release(&rec);
	return code;
}

int cmd_advise(int argc, char **argv)
{
	if (argc < 2) {
		error("advise needs a subcommand");
		return cli_usage(stderr, top_usage, top_options);
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help"))
		return cli_help(top_usage, top_options);
	if (!strcmp(argv[1], "checkpoint"))
		return advise_checkpoint(argc - 1, argv + 1);
	error("unknown subcommand '%s' of advise (there is: checkpoint)", argv[1]);
	return cli_usage(stderr, top_usage, top_options);
}
