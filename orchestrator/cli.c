#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "array.h"
#include "backend.h"
#include "error.h"
#include "script.h"
#include "store.h"
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

int cli_open_sweep(struct store **st, struct sweep_rec *out, const char *state_dir,
                   const char *which)
{
	int ret;

	*st = NULL;
	ret = store_open(st, state_dir, 0);
	if (ret < 0)
		return ret;
	ret = store_find_sweep(*st, out, which);
	if (!ret && out->status == SWEEP_SUBMITTING)
		ret = cli_recover_submission(*st, out);
	if (ret < 0) {
		store_close(*st);
		*st = NULL;
	}
	return ret;
}

bool cli_records_may_lag(const struct array_rec *arrays, size_t n)
{
	int64_t now = (int64_t)time(NULL);

	for (size_t i = 0; i < n; i++)
		if (now - arrays[i].submitted_at < CLI_MISSING_GRACE_S)
			return true;
	return false;
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
		*state_dir = optarg;
		return CLI_CONTINUE;
	}
	if (opt == 'h')
		return cli_help(usage, options);
	return cli_bad_option(argv, longopts, usage, options);
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

void cli_hold_signals(sigset_t *old)
{
	sigset_t block;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, old);
}

/* A submission that died before its lock file existed had sbatch run not yet. */
#define SUBMIT_START_GRACE_S 600

int cli_submit_lock(const char *sweep_dir)
{
	char *path = xstrfmt("%s/submit.lock", sweep_dir);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0) {
		error("cannot lock '%s': %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		free(path);
		return SWEEP_ERR;
	}
	free(path);
	return fd;
}

static int adopt(struct store *st, struct sweep_rec *rec, const struct backend_ops *ops)
{
	struct array_rec *found = NULL, *known = NULL;
	size_t nfound = 0, nknown = 0;
	uint32_t max_array = 0;
	struct strbuf ids = STRBUF_INIT;
	int ret;

	ret = ops->find(&found, &nfound, rec);
	if (!ret)
		ret = store_load_arrays(st, &known, &nknown, rec->id);
	if (!ret && nfound)
		ret = ops->max_array_size(&max_array);
	for (size_t i = 0; !ret && i < nfound; i++) {
		char spec[64];
		uint32_t count = (uint32_t)(rec->ntasks - found[i].offset);
		bool have = false;

		for (size_t k = 0; k < nknown; k++)
			have |= known[k].job_id == found[i].job_id;
		strbuf_addf(&ids, "%s%" PRIu32, ids.len ? ", " : "", found[i].job_id);
		if (have)
			continue;
		if (max_array && count > max_array)
			count = max_array;
		array_spec(spec, sizeof(spec), count, rec->max_concurrent);
		found[i].spec = xstrdup(spec);
		ret = store_add_array(st, rec->id, &found[i]);
	}
	if (!ret && (nfound || nknown)) {
		ret = store_finish_sweep(st, rec->id, SWEEP_SUBMITTED, NULL);
		if (!ret)
			warning("the submission of sweep %" PRId64
			        " '%s' was interrupted; Slurm had "
			        "accepted array job%s %s (found by job name and script): recorded "
			        "now. Tasks of arrays never submitted show as missing: 'sweep "
			        "resubmit' runs them",
			        rec->id, rec->name, nfound == 1 ? "" : "s",
			        ids.len ? ids.buf : "(none new)");
	} else if (!ret) {
		ret = store_finish_sweep(
		    st, rec->id, SWEEP_FAILED,
		    "submission interrupted before Slurm accepted any array job");
		if (!ret)
			warning("the submission of sweep %" PRId64 " '%s' was interrupted before "
			        "Slurm accepted any array job: marked failed; submit it again",
			        rec->id, rec->name);
	}
	if (!ret) {
		rec->status = nfound || nknown ? SWEEP_SUBMITTED : SWEEP_FAILED;
		free(rec->error);
		rec->error = rec->status == SWEEP_FAILED
		                 ? xstrdup("submission interrupted before Slurm accepted any "
		                           "array job")
		                 : NULL;
	}
	strbuf_release(&ids);
	array_recs_free(found, nfound);
	array_recs_free(known, nknown);
	return ret;
}

int cli_recover_submission(struct store *st, struct sweep_rec *rec)
{
	const struct backend_ops *ops = backend_get(rec->backend);
	char *path = xstrfmt("%s/submit.lock", rec->dir);
	int fd, ret = 0;

	if (!ops || !ops->find) {
		free(path);
		return ops ? 0 : SWEEP_ERR;
	}
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		/* Died before sbatch ever ran, or is only starting. */
		if (time(NULL) - rec->created_at >= SUBMIT_START_GRACE_S) {
			ret = store_finish_sweep(st, rec->id, SWEEP_FAILED,
			                         "submission interrupted before any array job "
			                         "was submitted");
			if (!ret) {
				rec->status = SWEEP_FAILED;
				free(rec->error);
				rec->error = xstrdup("submission interrupted before any array job "
				                     "was submitted");
			}
		}
		free(path);
		return ret;
	}
	free(path);
	if (flock(fd, LOCK_EX | LOCK_NB) == 0) /* its submit process is gone */
		ret = adopt(st, rec, ops);
	close(fd);
	return ret;
}
