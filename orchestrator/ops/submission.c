/*
 * The one submission protocol of submit, resubmit, retry rounds, rolling
 * chunks and the recovery every command runs: the lock, the intent file,
 * the room kept on the disk around sbatch, recording each accepted array
 * job, and commit or roll back.
 */
#include "submission.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "array.h"
#include "backend.h"
#include "error.h"
#include "fault.h"
#include "path.h"
#include "store.h"
#include "strbuf.h"

#include "banned.h"

static void hold_signals(sigset_t *old)
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

int submission_lock(const char *sweep_dir)
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

int submission_lock_wait(const char *sweep_dir, unsigned wait_s)
{
	char *path = xstrfmt("%s/submit.lock", sweep_dir);
	int fd = path_open_private(path, O_RDWR, PATH_PRIVATE_FILE);
	struct timespec pause = {0, 50 * 1000 * 1000};
	time_t deadline = time(NULL) + wait_s;

	if (fd < 0) {
		error("cannot lock '%s': %s", path, strerror(errno));
		free(path);
		return SWEEP_ERR;
	}
	while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK && errno != EINTR) {
			error("cannot lock '%s': %s", path, strerror(errno));
			goto fail;
		}
		if (time(NULL) >= deadline) {
			error("cannot lock '%s': another sweep command still holds it after %u s; "
			      "try again when it has ended",
			      path, wait_s);
			goto fail;
		}
		nanosleep(&pause, NULL);
	}
	free(path);
	return fd;
fail:
	close(fd);
	free(path);
	return SWEEP_ERR;
}

static char *intent_path(const char *sweep_dir)
{
	return xstrfmt("%s/submit.intent", sweep_dir);
}

/* What recovery needs to record a job it finds: attempt, offset and --array value of each. */
static int write_intent(const struct sweep_rec *rec, const struct submission_job *jobs, size_t n,
                        unsigned attempt)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = intent_path(rec->dir);
	int ret;

	for (size_t i = 0; i < n; i++)
		strbuf_addf(&sb, "%u %" PRIu32 " %s\n", attempt, jobs[i].offset, jobs[i].array);
	ret = path_write_file(path, sb.buf, sb.len, PATH_PRIVATE_FILE);
	strbuf_release(&sb);
	free(path);
	return ret;
}

/* Removes <sweep dir>/name: the intent file, the reserved room. */
static void remove_in(const char *sweep_dir, const char *name)
{
	char *path = xstrfmt("%s/%s", sweep_dir, name);

	unlink(path);
	free(path);
}

static void clear_intent(const char *sweep_dir)
{
	remove_in(sweep_dir, "submit.intent");
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
			warning("a resubmission of sweep %" PRId64 " '%s' was interrupted; %s had "
			        "accepted array job%s %s (%s): recorded now",
			        rec->id, rec->name, ops->taker, nadded == 1 ? "" : "s", ids.buf,
			        ops->found_by);
	} else if (nadded || nknown) {
		ret = store_finish_sweep(st, rec->id, SWEEP_SUBMITTED, NULL);
		if (!ret)
			warning("the submission of sweep %" PRId64 " '%s' was interrupted; %s had "
			        "accepted array job%s %s (%s): recorded now. Tasks of arrays never "
			        "submitted show as missing: 'sweep resubmit' runs them",
			        rec->id, rec->name, ops->taker, nadded == 1 ? "" : "s",
			        ids.len ? ids.buf : "(none new)", ops->found_by);
		if (!ret) {
			rec->status = SWEEP_SUBMITTED;
			free(rec->error);
			rec->error = NULL;
		}
	} else if (conclude && rec->status == SWEEP_SUBMITTING) {
		char *why = xstrfmt("submission interrupted before %s accepted any array job",
		                    ops->taker);

		ret = store_finish_sweep(st, rec->id, SWEEP_FAILED, why);
		if (!ret) {
			warning("the submission of sweep %" PRId64 " '%s' was interrupted before "
			        "%s accepted any array job: marked failed; submit it again",
			        rec->id, rec->name, ops->taker);
			rec->status = SWEEP_FAILED;
			free(rec->error);
			rec->error = why;
			why = NULL;
		}
		free(why);
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

int submission_recover(struct store *st, struct sweep_rec *rec)
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

/* See submission.h: freed just before the writes that record sbatch's answer. */
#define RESERVE_BYTES (4 << 20)

static char *reserve_path(const char *sweep_dir)
{
	return xstrfmt("%s/space.reserve", sweep_dir);
}

static int reserve_space(const char *sweep_dir)
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

static void release_space(const char *sweep_dir)
{
	remove_in(sweep_dir, "space.reserve");
}

int submission_max_array_size(const struct backend_ops *ops, uint32_t *out, bool dry_run,
                              const char *unknown_says)
{
	int ret;

	if (!dry_run)
		return ops->max_array_size(out);
	error_set_handler(error_as_warning);
	ret = ops->max_array_size(out);
	error_set_handler(NULL);
	if (ret < 0) {
		warning("%s", unknown_says);
		*out = 0;
	}
	return 0;
}

struct submission_job *submission_jobs_of_chunks(const struct array_chunk *chunks, size_t n,
                                                 unsigned k, const struct quota *quota)
{
	struct submission_job *jobs = xcalloc(n ? n : 1, sizeof(*jobs));
	char spec[64];

	for (size_t c = 0; c < n; c++) {
		array_spec(spec, sizeof(spec), chunks[c].count, k);
		jobs[c].array = xstrdup(spec);
		jobs[c].offset = chunks[c].offset;
		jobs[c].quota = quota;
	}
	return jobs;
}

void submission_jobs_free(struct submission_job *jobs, size_t n)
{
	for (size_t c = 0; jobs && c < n; c++)
		free(jobs[c].array);
	free(jobs);
}

struct submission_job *submission_jobs_sparse(size_t ntasks, const int64_t *reused_from,
                                              uint32_t max_array, unsigned k, size_t *n)
{
	struct submission_job *jobs = NULL;
	size_t count = 0, alloc = 0;

	for (size_t i = 0; i < ntasks;) {
		uint32_t offset, task, *ids = NULL;
		size_t nids = 0, ids_alloc = 0;

		array_chunk_of(&offset, &task, i, max_array);
		for (; i < ntasks; i++) {
			uint32_t o, t;

			array_chunk_of(&o, &t, i, max_array);
			if (o != offset)
				break;
			if (reused_from[i])
				continue;
			ALLOC_GROW(ids, nids + 1, ids_alloc);
			ids[nids++] = t;
		}
		if (nids) {
			struct strbuf spec = STRBUF_INIT;

			array_spec_of_ids(&spec, ids, nids, k);
			ALLOC_GROW(jobs, count + 1, alloc);
			memset(&jobs[count], 0, sizeof(jobs[count]));
			jobs[count].array = strbuf_detach(&spec, NULL);
			jobs[count].offset = offset;
			count++;
		}
		free(ids);
	}
	*n = count;
	return jobs;
}

void submission_cancel(const struct backend_ops *ops, struct store *st, const struct sweep_rec *rec,
                       struct submission_job *jobs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct array_rec arr = {.job_id = jobs[i].job_id};

		if (arr.job_id && ops->cancel(st, rec, &arr, 1) < 0)
			jobs[i].job_id = 0;
	}
}

static void fault_at(const char *who, const char *step)
{
	char name[64];

	snprintf(name, sizeof(name), "%s-%s", who, step);
	fault_point(name);
}

/* Submits job i and records it. */
static int submit_one(const struct backend_ops *ops, struct store *st, const struct sweep_rec *rec,
                      struct submission_job *jobs, size_t i, unsigned attempt,
                      submission_opts_fn opts, void *data, int lock_fd, const char *who,
                      size_t *accepted)
{
	struct strbuf opt1 = STRBUF_INIT, opt2 = STRBUF_INIT;
	const char *extra[4] = {NULL, NULL, NULL, NULL};
	struct backend_submit req = {0};
	struct array_rec arr = {0};
	char dep[64];
	char *list = NULL, *minutes = NULL;
	const char *args[3] = {NULL, NULL, NULL};
	size_t n = 0;
	int ret = opts ? opts(data, i, &opt1, &opt2) : 0;

	if (ret == 0) {
		/* With a throttle, one array job at a time keeps it. */
		if (i > 0 && rec->max_concurrent) {
			snprintf(dep, sizeof(dep), "--dependency=afterany:%" PRIu32,
			         jobs[i - 1].job_id);
			extra[n++] = dep;
		}
		if (opt1.len)
			extra[n++] = opt1.buf;
		if (opt2.len)
			extra[n++] = opt2.buf;
		req.script = rec->script;
		req.array = jobs[i].array;
		req.offset = jobs[i].offset;
		req.extra_args = extra;
		req.quota = jobs[i].quota;
		if (jobs[i].indices) {
			/* Packed, by list: the indices, and the minutes each task's step gets. */
			list = xstrfmt("@%s", jobs[i].indices);
			minutes = jobs[i].step_min ? xstrfmt("%" PRIu64, jobs[i].step_min) : NULL;
			args[0] = list;
			args[1] = minutes;
			req.script_args = args;
		}
		req.hold_fd = lock_fd;
		ret = reserve_space(rec->dir);
	}
	if (ret == 0) {
		fault_at(who, "before-sbatch");
		ret = ops->submit(&jobs[i].job_id, &req);
		if (ret == 0) {
			(*accepted)++;
			fault_at(who, "after-sbatch");
		}
		/* Freed for the writes that record the answer. */
		release_space(rec->dir);
	}
	free(list);
	free(minutes);
	strbuf_release(&opt1);
	strbuf_release(&opt2);
	if (ret < 0)
		return ret;
	arr.job_id = jobs[i].job_id;
	arr.offset = jobs[i].offset;
	arr.spec = jobs[i].array;
	arr.attempt = attempt;
	arr.pack = rec->pack;
	arr.indices = jobs[i].indices;
	if (store_add_array(st, rec->id, &arr) < 0) {
		/* The backend has it but we could not record it: do not leave it running. */
		submission_cancel(ops, st, rec, jobs + i, 1);
		return SWEEP_ERR;
	}
	fault_at(who, "after-add-array");
	return 0;
}

/*
 * Writes the intent file, then submits the jobs in order and records each
 * accepted one at once; fails (reported) at the first job that fails.
 */
static int submit_all(struct submission *s, int lock_fd)
{
	if (write_intent(s->rec, s->jobs, s->n, s->attempt) < 0)
		return SWEEP_ERR;
	for (size_t i = 0; i < s->n; i++) {
		if (submit_one(s->ops, s->st, s->rec, s->jobs, i, s->attempt, s->opts, s->data,
		               lock_fd, s->who, &s->accepted) < 0)
			return SWEEP_ERR;
	}
	return 0;
}

int submission_commit(struct submission *s, int lock_fd)
{
	char *reason = NULL;
	sigset_t old;
	int ret;

	s->unrecorded = false;
	s->accepted = 0;
	hold_signals(&old);
	ret = submit_all(s, lock_fd);
	if (ret == 0 && s->arrange)
		ret = s->arrange(s->data, s);
	if (ret < 0) {
		reason = xstrdup(error_last());
		submission_cancel(s->ops, s->st, s->rec, s->jobs, s->n);
		/* Settled here: nothing for recovery to adopt (it would find the cancelled jobs).
		 */
		if (!s->first || store_finish_sweep(s->st, s->rec->id, SWEEP_FAILED, reason) == 0)
			clear_intent(s->rec->dir);
		goto out;
	}
	fault_at(s->who, "before-finish");
	/* A sweep whose first submission failed runs now. */
	if (s->first || s->rec->status != SWEEP_SUBMITTED)
		ret = store_finish_sweep(s->st, s->rec->id, SWEEP_SUBMITTED, NULL);
	if (ret < 0) {
		/* Running but not recorded as such: cancel rather than lose track of it. */
		reason = xstrdup(error_last());
		submission_cancel(s->ops, s->st, s->rec, s->jobs, s->n);
		if (s->first)
			store_finish_sweep(s->st, s->rec->id, SWEEP_FAILED, reason);
		s->unrecorded = true;
		goto out;
	}
	fault_at(s->who, "after-finish");
	clear_intent(s->rec->dir);
out:
	sigprocmask(SIG_SETMASK, &old, NULL);
	free(reason);
	return ret;
}
