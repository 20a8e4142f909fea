#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "array.h"
#include "backend.h"
#include "error.h"
#include "path.h"
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
	if (!ret)
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
	int fd = path_open_private(path, O_RDWR, PATH_PRIVATE_FILE);

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

static char *intent_path(const char *sweep_dir)
{
	return xstrfmt("%s/submit.intent", sweep_dir);
}

int cli_write_intent(const char *sweep_dir, const struct array_rec *arrays, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = intent_path(sweep_dir);
	int ret;

	for (size_t i = 0; i < n; i++)
		strbuf_addf(&sb, "%u %" PRIu32 " %s\n", arrays[i].attempt, arrays[i].offset,
		            arrays[i].spec);
	ret = path_write_file(path, sb.buf, sb.len, PATH_PRIVATE_FILE);
	strbuf_release(&sb);
	free(path);
	return ret;
}

void cli_clear_intent(const char *sweep_dir)
{
	char *path = intent_path(sweep_dir);

	unlink(path);
	free(path);
}

/* The intent's line for an array job found at offset, or NULL: attempt and spec set. */
static bool intent_for(unsigned *attempt, char **spec, const char *intent, uint32_t offset)
{
	for (const char *p = intent; p && *p;) {
		const char *nl = strchr(p, '\n');
		unsigned a;
		unsigned long off;
		char *end;

		a = (unsigned)strtoul(p, &end, 10);
		if (*end == ' ') {
			off = strtoul(end + 1, &end, 10);
			if (*end == ' ' && off == offset && a) {
				const char *sp = end + 1;

				*attempt = a;
				*spec = xstrndup(sp, nl ? (size_t)(nl - sp) : strlen(sp));
				return true;
			}
		}
		p = nl ? nl + 1 : NULL;
	}
	return false;
}

/*
 * Records the array jobs the scheduler accepted for the sweep's script that
 * the store does not know yet, with the --array value and attempt the
 * interrupted command meant for them (its intent file), and repairs the
 * sweep's status: a sweep left SUBMITTING, or marked FAILED, that has a job
 * becomes SUBMITTED.
 */
static int adopt(struct store *st, struct sweep_rec *rec, const struct backend_ops *ops,
                 bool conclude)
{
	struct array_rec *found = NULL, *known = NULL;
	size_t nfound = 0, nknown = 0, nadded = 0;
	uint32_t max_array = 0;
	struct strbuf ids = STRBUF_INIT, intent = STRBUF_INIT;
	char *ipath = intent_path(rec->dir);
	bool has_intent;
	int ret;

	has_intent = !strbuf_read_file_max(&intent, ipath, 1 << 20, STRBUF_READ_NOFOLLOW);
	ret = ops->find(&found, &nfound, rec);
	if (!ret)
		ret = store_load_arrays(st, &known, &nknown, rec->id);
	if (!ret && nfound)
		ret = ops->max_array_size(&max_array);
	for (size_t i = 0; !ret && i < nfound; i++) {
		char spec[64];
		uint32_t count = (uint32_t)(rec->ntasks - found[i].offset);
		bool have = false;
		char *meant = NULL;

		for (size_t k = 0; k < nknown; k++)
			have |= known[k].job_id == found[i].job_id;
		if (have)
			continue;
		strbuf_addf(&ids, "%s%" PRIu32, ids.len ? ", " : "", found[i].job_id);
		if (intent_for(&found[i].attempt, &meant, intent.buf, found[i].offset)) {
			found[i].spec = meant;
		} else {
			if (max_array && count > max_array)
				count = max_array;
			array_spec(spec, sizeof(spec), count, rec->max_concurrent);
			found[i].spec = xstrdup(spec);
		}
		ret = store_add_array(st, rec->id, &found[i]);
		nadded++;
	}
	if (ret)
		goto out;
	if (rec->status == SWEEP_SUBMITTED) {
		/* An interrupted resubmission. */
		if (nadded)
			warning(
			    "a resubmission of sweep %" PRId64 " '%s' was interrupted; Slurm had "
			    "accepted array job%s %s (found by job name and script): recorded now",
			    rec->id, rec->name, nadded == 1 ? "" : "s", ids.buf);
	} else if (nadded || nknown) {
		ret = store_finish_sweep(st, rec->id, SWEEP_SUBMITTED, NULL);
		if (!ret)
			warning("the submission of sweep %" PRId64
			        " '%s' was interrupted; Slurm had "
			        "accepted array job%s %s (found by job name and script): recorded "
			        "now. Tasks of arrays never submitted show as missing: 'sweep "
			        "resubmit' runs them",
			        rec->id, rec->name, nadded == 1 ? "" : "s",
			        ids.len ? ids.buf : "(none new)");
		if (!ret) {
			rec->status = SWEEP_SUBMITTED;
			free(rec->error);
			rec->error = NULL;
		}
	} else if (conclude && rec->status == SWEEP_SUBMITTING) {
		ret = store_finish_sweep(
		    st, rec->id, SWEEP_FAILED,
		    "submission interrupted before Slurm accepted any array job");
		if (!ret) {
			warning("the submission of sweep %" PRId64 " '%s' was interrupted before "
			        "Slurm accepted any array job: marked failed; submit it again",
			        rec->id, rec->name);
			rec->status = SWEEP_FAILED;
			free(rec->error);
			rec->error = xstrdup("submission interrupted before Slurm accepted any "
			                     "array job");
		}
	}
	/* Settled: whatever the interrupted command meant is now in the store. */
	if (!ret && has_intent && rec->status != SWEEP_SUBMITTING)
		unlink(ipath);
out:
	strbuf_release(&ids);
	strbuf_release(&intent);
	free(ipath);
	array_recs_free(found, nfound);
	array_recs_free(known, nknown);
	return ret;
}

/* Whether the submission lock of the sweep is free: no submit, resubmit or sbatch holds it. */
static int lock_is_free(const char *sweep_dir, bool *exists)
{
	char *path = xstrfmt("%s/submit.lock", sweep_dir);
	int fd = open(path, O_RDWR | O_CLOEXEC), free_ = 0;

	free(path);
	*exists = fd >= 0;
	if (fd < 0)
		return 0;
	free_ = flock(fd, LOCK_EX | LOCK_NB) == 0;
	close(fd);
	return free_;
}

int cli_recover_submission(struct store *st, struct sweep_rec *rec)
{
	const struct backend_ops *ops = backend_get(rec->backend);
	char *ipath;
	bool exists, has_intent;
	int ret = 0;

	if (!ops || !ops->find)
		return ops ? 0 : SWEEP_ERR;
	ipath = intent_path(rec->dir);
	has_intent = access(ipath, F_OK) == 0;
	free(ipath);

	if (rec->status == SWEEP_SUBMITTING) {
		if (lock_is_free(rec->dir, &exists))
			return adopt(st, rec, ops, true);
		if (exists)
			return 0; /* still submitting: submit, or the sbatch it started, runs */
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
		return ret;
	}
	/*
	 * An interrupted resubmission, or a sweep marked failed whose job
	 * appeared later (sbatch timed out, or a slow controller took it after
	 * recovery had concluded): look for jobs the store does not know.
	 */
	if (rec->status == SWEEP_FAILED || has_intent) {
		size_t narrays = 0;
		struct array_rec *arrays = NULL;

		if (!lock_is_free(rec->dir, &exists) && exists)
			return 0;
		if (!has_intent) {
			if (store_load_arrays(st, &arrays, &narrays, rec->id) < 0)
				return SWEEP_ERR;
			array_recs_free(arrays, narrays);
			if (narrays)
				return 0; /* refused after some arrays ran: nothing to adopt */
		}
		/* Not reaching the controller must not stop status of a failed sweep. */
		error_set_handler(error_as_warning);
		ret = adopt(st, rec, ops, false);
		error_set_handler(NULL);
		ret = 0;
	}
	return ret;
}

/* See cli.h: freed just before the writes that record sbatch's answer. */
#define RESERVE_BYTES (4 << 20)

static char *reserve_path(const char *sweep_dir)
{
	return xstrfmt("%s/space.reserve", sweep_dir);
}

int cli_reserve_space(const char *sweep_dir)
{
	char *path = reserve_path(sweep_dir);
	int fd = path_open_private(path, O_WRONLY | O_TRUNC, PATH_PRIVATE_FILE), err = 0, ret = 0;

	if (fd < 0)
		err = errno;
	else
		err = posix_fallocate(fd, 0, RESERVE_BYTES);
	if (fd >= 0 && !err && fsync(fd) < 0)
		err = errno;
	if (fd >= 0)
		close(fd);
	if (err) {
		unlink(path);
		ret = error("cannot keep %d MiB free in '%s' for recording the submission: %s; "
		            "nothing was submitted",
		            RESERVE_BYTES >> 20, sweep_dir, strerror(err));
	}
	free(path);
	return ret;
}

void cli_release_space(const char *sweep_dir)
{
	char *path = reserve_path(sweep_dir);

	unlink(path);
	free(path);
}
