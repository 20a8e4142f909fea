/*
 * sweep confirm: the best settings of a finished sweep, run again on seeds
 * it did not use, so that the number a paper prints is not the winner's
 * curse. Writes a sweep file for them (the sweep's own, with its settings
 * replaced by the K best as `cases:`, its seeds by fresh ones, and
 * `confirm_of:` naming the sweep; sweepfile/cfg_rewrite.h) into the sweep's
 * folder and submits it through ops/submit.h as `sweep submit` does, from
 * the folder the sweep was submitted from, on the same backend. The link
 * lives in the new sweep's own file, so it is recorded with the sweep in
 * one transaction.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfg.h"
#include "cfg_rewrite.h"
#include "cli.h"
#include "compare.h"
#include "confirm.h"
#include "confirms.h"
#include "error.h"
#include "gate.h"
#include "loaded.h"
#include "path.h"
#include "plan.h"
#include "report.h"
#include "store.h"
#include "strbuf.h"
#include "submit.h"
#include "verdict.h"

#include "banned.h"

static const struct cli_option option_table[] = {
    {0, "top", 'T', "K", "the K best settings by the sweep's goal (default 3)"},
    {0, "seeds", 'S', "M",
     "each on M seeds that neither the sweep nor an earlier\n"
     "confirm of it used (default: as many as the sweep had)"},
    {0, "goal", 'g', "METRIC=max|min", "the metric to rank by, over the sweep file's `metrics:`"},
    {0, "resources-from", 'r', "SWEEP", "set --mem and --time from that sweep's tasks (as submit)"},
    {0, "dry-run", 'n', NULL, "print the sweep file and the plan; submit nothing"},
    CLI_OPT_STATE_DIR,
    CLI_OPT_HELP,
    CLI_OPT_END,
};

static struct cli_command command = {
    .usage = "sweep confirm [SWEEP] [--top K] [--seeds M] [--goal METRIC=max|min] "
             "[--resources-from SWEEP] [--dry-run] [--state-dir DIR]",
    .options = option_table,
};

#define MAX_SEEDS 1000000

struct confirm_opts {
	const char *which, *state_dir, *resources_from;
	size_t top, nseeds;
	bool dry_run;
	struct compare_goals goals;
};

static int parse_count(size_t *out, const char *name, const char *text)
{
	unsigned long long n;

	if (cli_parse_whole(&n, name, text, 1, MAX_SEEDS) < 0)
		return -1;
	*out = (size_t)n;
	return 0;
}

static int parse_options(struct confirm_opts *o, int argc, char **argv)
{
	int opt, code;

	o->top = 3;
	cli_command_prepare(&command);
	while ((opt = getopt_long(argc, argv, command.shortopts, command.longopts, NULL)) != -1) {
		switch (opt) {
		case 'T':
			if (parse_count(&o->top, "--top", optarg) < 0)
				return cli_usage(stderr, command.usage, command.help);
			break;
		case 'S':
			if (parse_count(&o->nseeds, "--seeds", optarg) < 0)
				return cli_usage(stderr, command.usage, command.help);
			break;
		case 'g':
			if (compare_goals_parse(&o->goals, optarg) < 0)
				return cli_usage(stderr, command.usage, command.help);
			break;
		case 'r':
			o->resources_from = optarg;
			break;
		case 'n':
			o->dry_run = true;
			break;
		default:
			code = cli_common_option(opt, &o->state_dir, argv, command.longopts,
			                         command.usage, command.help);
			if (code != CLI_CONTINUE)
				return code;
		}
	}
	return cli_take_sweep(&o->which, argc, argv, command.usage, command.help);
}

/* What confirm takes from the sweep: its best settings and the seeds it may not use. */
struct choice {
	size_t *settings; /* the K best, best first */
	size_t n;
	char *metric; /* ranked by */
	enum compare_goal goal;
	int64_t *used; /* seeds of the sweep and of every earlier confirm of it */
	size_t nused;
	unsigned earlier; /* other sweeps of its family (confirms of it, or what it confirms) */
};

static void choice_release(struct choice *c)
{
	free(c->settings);
	free(c->metric);
	free(c->used);
	memset(c, 0, sizeof(*c));
}

/* The K best settings of a complete sweep (report's ranking: its first metric with a goal). */
static int rank(struct choice *out, const struct verdict *v, const struct compare_goals *goals,
                size_t top, const struct sweep_rec *rec)
{
	enum compare_goal *by = xcalloc(v->gate.nmetrics ? v->gate.nmetrics : 1, sizeof(*by));
	struct report rep;
	size_t m = 0;
	int ret = 0;

	report_init(&rep);
	for (size_t i = 0; i < v->gate.nmetrics; i++)
		by[i] = compare_goals_get(goals, v->gate.metrics[i]);
	while (m < v->gate.nmetrics && by[m] == GOAL_NONE)
		m++;
	if (m == v->gate.nmetrics) {
		ret = error("sweep %" PRId64 " '%s' has no goal to rank its settings by: give "
		            "--goal METRIC=max|min, or `metrics: {METRIC: max}` in the sweep file",
		            rec->id, rec->name);
		goto out;
	}
	report_build(&rep, v->plan, &v->gate, v->results);
	report_rank(&rep, by);
	report_order(&rep, top);
	out->n = report_nshown(&rep);
	out->settings = xcalloc(out->n ? out->n : 1, sizeof(*out->settings));
	for (size_t i = 0; i < out->n; i++)
		out->settings[i] = report_shown(&rep, i);
	out->metric = xstrdup(v->gate.metrics[m]);
	out->goal = by[m];
out:
	report_release(&rep);
	free(by);
	return ret;
}

/* ---- The sweep file of the confirm -------------------------------------- */

/*
 * The sweep file of the confirm: the sweep's stored file with its settings
 * and seeds replaced, and `confirm_of:`. Into out.
 */
static int confirm_file(struct strbuf *out, const char *spec, const struct sweep_rec *rec,
                        const struct plan *plan, const struct choice *c, const int64_t *seeds,
                        size_t nseeds)
{
	size_t nvalues = c->n * plan->nparams;
	const char **values = xcalloc(nvalues ? nvalues : 1, sizeof(*values));
	struct cfg_rewrite rw = {0};
	char name[128], id[32], *what;
	int ret;

	/* The name sweep report NAME finds it by; a job name of at most 100 bytes. */
	snprintf(name, sizeof(name), "%.92s-confirm", rec->name);
	snprintf(id, sizeof(id), "%" PRId64, rec->id);
	what = xstrfmt("the sweep file of sweep %" PRId64, rec->id);
	for (size_t i = 0; i < c->n; i++)
		for (size_t p = 0; p < plan->nparams; p++)
			values[i * plan->nparams + p] = plan_value(plan, c->settings[i], p);
	rw.name = name;
	rw.confirm_of = id;
	rw.seeds = seeds;
	rw.nseeds = nseeds;
	rw.params = (const char *const *)plan->params;
	rw.nparams = plan->nparams;
	rw.values = values;
	rw.ncases = c->n;
	rw.source = rec->source;
	rw.what = what;
	ret = cfg_rewrite(out, spec, &rw);
	free(what);
	free(values);
	return ret;
}

/* ---- The command ----------------------------------------------------------- */

static void print_plan(const struct confirm_opts *o, const struct sweep_rec *rec,
                       const struct plan *plan, const struct choice *c, const int64_t *seeds,
                       size_t nseeds)
{
	struct strbuf sb = STRBUF_INIT;

	printf("confirming the best %zu of %zu settings of sweep %" PRId64 " '%s' by %s (%s):\n",
	       c->n, plan->nsettings, rec->id, rec->name, c->metric, compare_goal_name(c->goal));
	for (size_t i = 0; i < c->n; i++) {
		printf("  %zu.", i + 1);
		for (size_t p = 0; p < plan->nparams; p++) {
			const char *v = plan->values[c->settings[i] * plan->nparams + p];

			if (v && plan->varies[p])
				printf(" %s=%s", plan->params[p], v);
		}
		printf("\n");
	}
	confirm_add_provenance(&sb, rec->id, plan->seeds, plan->nseeds, seeds, nseeds);
	printf("%s%s\n", sb.buf,
	       c->earlier ? " (and not the seeds of the related confirm sweeps)" : "");
	if (o->dry_run)
		printf("\n");
	strbuf_release(&sb);
}

/* Writes the file as <sweep dir>/confirm-N.yaml, N the first free; the caller frees *path. */
static int save(char **path, const struct sweep_rec *rec, const struct strbuf *file)
{
	for (unsigned n = 1; n < 10000; n++) {
		int fd;

		*path = xstrfmt("%s/confirm-%u.yaml", rec->dir, n);
		fd = open(*path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		          PATH_PRIVATE_FILE);
		if (fd >= 0) {
			ssize_t w = fchmod(fd, PATH_PRIVATE_FILE) < 0 ? -1
			                                              : write(fd, file->buf, file->len);

			if (close(fd) < 0 || w != (ssize_t)file->len)
				return error("cannot write '%s': %s", *path, strerror(errno));
			return 0;
		}
		if (errno != EEXIST)
			return error("cannot create '%s': %s", *path, strerror(errno));
		free(*path);
	}
	*path = NULL;
	return error("too many confirm files in '%s'", rec->dir);
}

/* What a chdir into dir would say, without going there: 0 or an errno value. */
static int folder_error(const char *dir)
{
	struct stat sb;

	if (stat(dir, &sb) < 0)
		return errno;
	if (!S_ISDIR(sb.st_mode))
		return ENOTDIR;
	return access(dir, X_OK) < 0 ? errno : 0;
}

/*
 * The confirm's sweep file, submitted as `sweep submit` would from workdir
 * (where the sweep was submitted from), on the sweep's backend. An exit code.
 */
static int submit(const struct confirm_opts *o, const char *file, const char *state_dir,
                  const struct sweep_rec *rec, const char *workdir)
{
	struct submit_opts so = {0};
	struct submit s;
	int ret = EXIT_ERROR, err = folder_error(workdir);

	if (err)
		return error("cannot go to '%s', where sweep %" PRId64 " was submitted from: %s",
		             workdir, rec->id, strerror(err));
	so.file = file;
	so.workdir = workdir;
	so.state_dir = state_dir;
	so.resources_from = o->resources_from;
	so.dry_run = o->dry_run;
	so.local = !strcmp(rec->backend, "local");
	submit_init(&s);
	if (submit_run(&s, &so) < 0)
		goto out;
	if (!o->dry_run)
		submit_print_submitted(&s);
	else if (submit_print_dry_run(&s) < 0)
		goto out;
	ret = EXIT_OK;
out:
	submit_release(&s);
	return ret;
}

int cmd_confirm(int argc, char **argv)
{
	struct confirm_opts o = {0};
	struct loaded_sweep l;
	struct verdict v;
	struct choice c = {0};
	struct compare_goals goals;
	struct strbuf file = STRBUF_INIT;
	char *workdir = NULL, *path = NULL, *state_dir = NULL, *cwd = NULL;
	int64_t *seeds = NULL;
	size_t nseeds;
	int ret = EXIT_ERROR, code, lock_fd = -1;

	loaded_init(&l);
	verdict_init(&v);
	compare_goals_init(&o.goals);
	compare_goals_init(&goals);
	code = parse_options(&o, argc, argv);
	if (code != CLI_CONTINUE) {
		ret = code;
		goto out;
	}
	cwd = getcwd(NULL, 0);
	state_dir = path_absolute(cli_state_dir(o.state_dir), cwd ? cwd : ".");
	if (loaded_open(&l, state_dir, o.which) < 0 || loaded_plan(&l) < 0 ||
	    loaded_outcomes(&l) < 0 || verdict_check_loaded(&v, &l, NULL, 0) < 0)
		goto out;
	/* The completeness gate: the best of a sweep with holes is not known. */
	if (!gate_complete(&v.gate)) {
		error("sweep %" PRId64 " '%s' is incomplete (%zu of %zu tasks missing or failed): its "
		      "best settings are not known; sweep report %" PRId64 " says which",
		      l.rec.id, l.rec.name, v.gate.nfailures, l.plan.ntasks, l.rec.id);
		goto out;
	}
	/* A --goal for a metric the sweep does not report would rank by the file's goal. */
	if (compare_goals_check(&o.goals, v.gate.metrics, v.gate.nmetrics) < 0)
		goto out;
	verdict_goals(&goals, &v, &o.goals);
	/* Held until submit has recorded the sweep: a confirm beside it waits (confirms.h). */
	if (rank(&c, &v, &goals, o.top, &l.rec) < 0 ||
	    confirms_used_seeds(&c.used, &c.nused, &c.earlier, o.dry_run ? NULL : &lock_fd, l.st,
	                        &l.rec) < 0)
		goto out;
	/* The verdict read the kept sweep file already. */
	if (l.file.state == KEPT_NONE) {
		error("sweep %" PRId64 " was recorded without its sweep file: it cannot be run again",
		      l.rec.id);
		goto out;
	}
	nseeds = o.nseeds ? o.nseeds : l.plan.nseeds;
	seeds = confirm_fresh_seeds(c.used, c.nused, nseeds);
	if (confirm_file(&file, l.file.text, &l.rec, &l.plan, &c, seeds, nseeds) < 0 ||
	    verdict_workdir(&workdir, &l.rec, "the sweep's folder") < 0)
		goto out;
	print_plan(&o, &l.rec, &l.plan, &c, seeds, nseeds);
	if (save(&path, &l.rec, &file) < 0)
		goto out;
	if (o.dry_run)
		printf("# the sweep file, %s:\n%s\n", path, file.buf);
	/* The submission opens the store itself; this connection holds no lock meanwhile. */
	ret = submit(&o, path, state_dir, &l.rec, workdir);
	/* A dry run leaves no file behind. */
	if (o.dry_run)
		unlink(path);
out:
	if (lock_fd >= 0)
		close(lock_fd);
	free(seeds);
	free(workdir);
	free(path);
	free(state_dir);
	free(cwd);
	strbuf_release(&file);
	choice_release(&c);
	compare_goals_release(&goals);
	compare_goals_release(&o.goals);
	verdict_release(&v);
	loaded_release(&l);
	return ret;
}
