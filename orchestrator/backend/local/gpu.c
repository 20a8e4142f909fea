/*
 * nvidia-smi's CSV, read strictly: a GPU whose line cannot be read is not
 * guessed at, since a wrong "free" puts two jobs on one GPU. Fields are
 * separated by ", "; a model name could hold a comma, so the name is
 * whatever stands between the uuid and the two memory fields. Also the
 * discovery itself (running nvidia-smi) and the per-GPU locks that keep two
 * runners off one GPU.
 */
#define _DEFAULT_SOURCE /* flock, S_ISVTX */
#include "gpu.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "proc.h"
#include "strbuf.h"

#include "banned.h"

const char *const gpu_query_gpus_argv[] = {"nvidia-smi",
                                           "--query-gpu=index,uuid,name,memory.used,memory.total",
                                           "--format=csv,noheader,nounits", NULL};
const char *const gpu_query_apps_argv[] = {"nvidia-smi",
                                           "--query-compute-apps=gpu_uuid,pid,used_memory",
                                           "--format=csv,noheader,nounits", NULL};

#define MAX_FIELDS 16

void gpu_set_init(struct gpu_set *set)
{
	memset(set, 0, sizeof(*set));
}

void gpu_set_release(struct gpu_set *set)
{
	for (size_t i = 0; i < set->ngpus; i++) {
		free(set->gpus[i].uuid);
		free(set->gpus[i].name);
	}
	for (size_t i = 0; i < set->nprocs; i++) {
		free(set->procs[i].uuid);
		free(set->procs[i].user);
		free(set->procs[i].command);
	}
	free(set->gpus);
	free(set->procs);
	gpu_set_init(set);
}

/* Splits line (modified in place) at commas; fields are trimmed of blanks. */
static size_t split(char **fields, char *line)
{
	size_t n = 0;
	char *p = line;

	for (;;) {
		char *comma = strchr(p, ',');
		char *end = comma ? comma : p + strlen(p);

		while (*p == ' ' || *p == '\t')
			p++;
		while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
			end--;
		if (n < MAX_FIELDS)
			fields[n] = p;
		n++;
		if (!comma) {
			*end = '\0';
			break;
		}
		*end = '\0';
		p = comma + 1;
	}
	return n;
}

/* A count of MiB, or GPU_NO_VALUE for "[N/A]" and its kind; -1 for anything else. */
static int mib(uint64_t *out, const char *s)
{
	uint64_t v = 0;

	if (s[0] == '[' || !strcmp(s, "N/A")) {
		*out = GPU_NO_VALUE;
		return 0;
	}
	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return 0;
}

static int whole(long *out, const char *s, long max)
{
	long v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (max - 9) / 10)
			return -1;
		v = v * 10 + (*s - '0');
	}
	*out = v;
	return 0;
}

/* The next line of *text (modified in place), or NULL at the end. */
static char *next_line(char **text)
{
	char *line = *text, *nl;

	if (!*line)
		return NULL;
	nl = strchr(line, '\n');
	if (nl) {
		*nl = '\0';
		*text = nl + 1;
	} else {
		*text = line + strlen(line);
	}
	return line;
}

static int blank(const char *s)
{
	return !s[strspn(s, " \t\r")];
}

static int cmp_index(const void *a, const void *b)
{
	const struct gpu *x = a, *y = b;

	return x->index < y->index ? -1 : x->index > y->index;
}

static int parse_gpus(struct gpu_set *out, char *text)
{
	size_t alloc = 0, lineno = 0;
	char *line, *fields[MAX_FIELDS];

	while ((line = next_line(&text))) {
		struct gpu g = {0};
		size_t n;
		long index;
		struct strbuf name = STRBUF_INIT;
		char *copy;

		lineno++;
		if (blank(line))
			continue;
		copy = xstrdup(line);
		n = split(fields, line);
		if (n < 5 || n > MAX_FIELDS || whole(&index, fields[0], 1L << 20) < 0 ||
		    !*fields[1] || mib(&g.used_mib, fields[n - 2]) < 0 ||
		    mib(&g.total_mib, fields[n - 1]) < 0) {
			error("nvidia-smi's GPU list, line %zu: expected 'index, uuid, name, "
			      "memory.used, memory.total' (MiB), got '%s'",
			      lineno, copy);
			free(copy);
			return SWEEP_ERR;
		}
		free(copy);
		for (size_t i = 0; i < out->ngpus; i++)
			if (out->gpus[i].index == (unsigned)index ||
			    !strcmp(out->gpus[i].uuid, fields[1]))
				return error("nvidia-smi's GPU list, line %zu: GPU %ld (%s) listed "
				             "twice",
				             lineno, index, fields[1]);
		for (size_t f = 2; f < n - 2; f++) {
			if (f > 2)
				strbuf_addstr(&name, ", ");
			strbuf_addstr(&name, fields[f]);
		}
		g.index = (unsigned)index;
		g.uuid = xstrdup(fields[1]);
		g.name = strbuf_detach(&name, NULL);
		ALLOC_GROW(out->gpus, out->ngpus + 1, alloc);
		out->gpus[out->ngpus++] = g;
	}
	if (out->ngpus)
		qsort(out->gpus, out->ngpus, sizeof(*out->gpus), cmp_index);
	return 0;
}

static int parse_apps(struct gpu_set *out, char *text)
{
	size_t alloc = 0, lineno = 0;
	char *line, *fields[MAX_FIELDS];

	while ((line = next_line(&text))) {
		struct gpu_proc p = {0};
		long pid;
		char *copy;

		lineno++;
		/* Older drivers say so in words where newer ones print nothing. */
		if (blank(line) || !strncmp(line, "No running", 10))
			continue;
		copy = xstrdup(line);
		if (split(fields, line) != 3 || !*fields[0] ||
		    whole(&pid, fields[1], 1L << 30) < 0 || mib(&p.used_mib, fields[2]) < 0) {
			error("nvidia-smi's process list, line %zu: expected 'gpu_uuid, pid, "
			      "used_memory' (MiB), got '%s'",
			      lineno, copy);
			free(copy);
			return SWEEP_ERR;
		}
		free(copy);
		p.uuid = xstrdup(fields[0]);
		p.pid = pid;
		p.gpu = SIZE_MAX;
		for (size_t i = 0; i < out->ngpus; i++)
			if (!strcmp(out->gpus[i].uuid, p.uuid)) {
				p.gpu = i;
				out->gpus[i].nprocs++;
			}
		ALLOC_GROW(out->procs, out->nprocs + 1, alloc);
		out->procs[out->nprocs++] = p;
	}
	return 0;
}

int gpu_parse(struct gpu_set *out, const char *gpus_csv, const char *apps_csv)
{
	char *gpus = xstrdup(gpus_csv ? gpus_csv : "");
	char *apps = xstrdup(apps_csv ? apps_csv : "");
	int ret;

	ret = parse_gpus(out, gpus);
	if (!ret)
		ret = parse_apps(out, apps);
	if (ret < 0)
		gpu_set_release(out);
	free(gpus);
	free(apps);
	return ret;
}

uint64_t gpu_min_free_mib(const struct gpu *g, uint64_t min_free_mib)
{
	if (min_free_mib || g->total_mib == GPU_NO_VALUE)
		return min_free_mib;
	return g->total_mib / 100 * GPU_DEFAULT_FREE_PERCENT +
	       g->total_mib % 100 * GPU_DEFAULT_FREE_PERCENT / 100;
}

size_t gpu_select(struct gpu_set *set, uint64_t min_free_mib)
{
	size_t nfree = 0;

	for (size_t i = 0; i < set->ngpus; i++) {
		struct gpu *g = &set->gpus[i];

		if (g->nprocs)
			g->verdict = GPU_BUSY;
		else if (g->used_mib == GPU_NO_VALUE || g->total_mib == GPU_NO_VALUE)
			g->verdict = GPU_UNKNOWN_MEMORY;
		else if (g->used_mib > g->total_mib ||
		         g->total_mib - g->used_mib < gpu_min_free_mib(g, min_free_mib))
			g->verdict = GPU_LOW_MEMORY;
		else
			g->verdict = GPU_FREE;
		nfree += g->verdict == GPU_FREE;
	}
	return nfree;
}

void gpu_free_list(struct strbuf *out, const struct gpu_set *set)
{
	int first = 1;

	for (size_t i = 0; i < set->ngpus; i++) {
		if (set->gpus[i].verdict != GPU_FREE)
			continue;
		strbuf_addf(out, "%s%u", first ? "" : ",", set->gpus[i].index);
		first = 0;
	}
}

/* ---- Discovery (nvidia-smi) and locks
 * ------------------------------------------------------------------------------------ */

static bool on_path(const char *prog)
{
	const char *path = getenv("PATH");

	if (!path || !*path)
		path = "/usr/bin:/bin";
	while (*path) {
		size_t len = strcspn(path, ":");
		char *full = xstrfmt("%.*s/%s", (int)len, len ? path : ".", prog);
		bool ok = access(full, X_OK) == 0;

		free(full);
		if (ok)
			return true;
		path += len;
		if (*path)
			path++;
	}
	return false;
}

/* Runs one nvidia-smi query; 1 when it says there is no GPU (exit status 6). */
static int run_smi(struct strbuf *out, const char *const *argv)
{
	struct proc_result res;
	int ret = 0;

	proc_result_init(&res);
	if (proc_run(&res, argv, NULL, 60) < 0) {
		ret = SWEEP_ERR;
	} else if (res.timed_out) {
		ret = error("nvidia-smi did not answer within 60 s (is the driver hung?)");
	} else if (res.exited && res.status == 6) {
		ret = 1; /* "No devices were found" */
	} else if (!res.exited || res.status != 0) {
		struct strbuf *msg = res.err.len ? &res.err : &res.out;

		strbuf_trim_trailing_newlines(msg);
		ret = error("nvidia-smi failed (%s %d): %s", res.exited ? "exit status" : "signal",
		            res.status, msg->len ? msg->buf : "(no message)");
	} else {
		strbuf_add(out, res.out.buf, res.out.len);
	}
	proc_result_release(&res);
	return ret;
}

static void fill_owner(struct gpu_proc *p)
{
	char path[64];
	struct stat sb;
	struct passwd *pw;
	struct strbuf comm = STRBUF_INIT;

	snprintf(path, sizeof(path), "/proc/%ld", p->pid);
	if (stat(path, &sb) < 0)
		return; /* not in our PID namespace: another container's */
	pw = getpwuid(sb.st_uid);
	p->user = pw ? xstrdup(pw->pw_name) : xstrfmt("%u", (unsigned)sb.st_uid);
	snprintf(path, sizeof(path), "/proc/%ld/comm", p->pid);
	if (strbuf_read_file(&comm, path) == 0) {
		strbuf_trim_trailing_newlines(&comm);
		p->command = strbuf_detach(&comm, NULL);
	}
	strbuf_release(&comm);
}

int gpu_query(struct gpu_set *out, bool owners)
{
	struct strbuf gpus = STRBUF_INIT, apps = STRBUF_INIT;
	int ret;

	if (!on_path("nvidia-smi"))
		return error("nvidia-smi is not on PATH: no NVIDIA driver on this machine? sweeps "
		             "that ask no GPU run without it (--gpus-per-task 0, the default)");
	ret = run_smi(&gpus, gpu_query_gpus_argv);
	if (ret == 0)
		ret = run_smi(&apps, gpu_query_apps_argv);
	if (ret == 0)
		ret = gpu_parse(out, gpus.buf, apps.buf);
	else if (ret == 1)
		ret = 0; /* no GPU: an empty set */
	for (size_t i = 0; ret == 0 && owners && i < out->nprocs; i++)
		fill_owner(&out->procs[i]);
	strbuf_release(&gpus);
	strbuf_release(&apps);
	return ret;
}

/*
 * The GPU locks live in a folder every user writes to (/tmp), where
 * anyone may plant a link or a file at a lock's path before sweep makes
 * it (the uuids are public). So a lock is never opened through a link
 * (O_NOFOLLOW), only made with O_CREAT | O_EXCL and a fixed mode, opened
 * read-only (flock needs no more, and a lock someone else made is only
 * read), and checked on its descriptor before use: a regular file with one
 * name that every user can read. Its owner may be any user, since a
 * sticky folder lets no one but the owner remove or replace it, and
 * sweep neither writes to it nor changes its mode. Nothing else is ever
 * made or changed in the folder.
 */

#define LOCK_MODE 0644 /* others' runners open it read-only to lock it */

const char *gpu_lock_dir(void)
{
	const char *dir = getenv("SWEEP_GPU_LOCK_DIR");

	return dir && *dir ? dir : "/tmp";
}

static char *user_name(uid_t uid)
{
	struct passwd *pw = getpwuid(uid);

	return pw ? xstrfmt("user '%s'", pw->pw_name) : xstrfmt("uid %u", (unsigned)uid);
}

/*
 * A folder others write to must be sticky and root's (or ours), or they
 * could swap the locks in it. Returns -1 with why set when it is not.
 */
static int check_dir_stat(struct strbuf *why, const char *dir, const struct stat *sb)
{
	char *owner;

	if (!S_ISDIR(sb->st_mode)) {
		strbuf_addf(why,
		            "the GPU lock folder '%s' is not a folder (set SWEEP_GPU_LOCK_DIR "
		            "to one such as /tmp)",
		            dir);
		return -1;
	}
	if (sb->st_uid != 0 && sb->st_uid != geteuid()) {
		owner = user_name(sb->st_uid);
		strbuf_addf(why,
		            "the GPU lock folder '%s' belongs to %s, who could replace the "
		            "locks in it; use one that root owns, such as /tmp "
		            "(SWEEP_GPU_LOCK_DIR)",
		            dir, owner);
		free(owner);
		return -1;
	}
	if ((sb->st_mode & (S_IWGRP | S_IWOTH)) && !(sb->st_mode & S_ISVTX)) {
		strbuf_addf(why,
		            "the GPU lock folder '%s' lets others remove the locks in it (mode "
		            "%04o, no sticky bit); chmod +t it, or use /tmp (SWEEP_GPU_LOCK_DIR)",
		            dir, (unsigned)(sb->st_mode & 07777));
		return -1;
	}
	return 0;
}

int gpu_lock_check_dir(void)
{
	const char *dir = gpu_lock_dir();
	struct strbuf why = STRBUF_INIT;
	struct stat sb;
	int ret = 0;

	if (stat(dir, &sb) < 0)
		return error("cannot use the GPU lock folder '%s': %s (set SWEEP_GPU_LOCK_DIR to "
		             "one such as /tmp)",
		             dir, strerror(errno));
	if (check_dir_stat(&why, dir, &sb) < 0)
		ret = error("%s", why.buf);
	strbuf_release(&why);
	return ret;
}

int gpu_lock_open_dir(void)
{
	struct strbuf why = STRBUF_INIT;
	struct stat sb;
	int dfd = open(gpu_lock_dir(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dfd >= 0 && (fstat(dfd, &sb) < 0 || check_dir_stat(&why, gpu_lock_dir(), &sb) < 0)) {
		close(dfd);
		dfd = -1;
	}
	strbuf_release(&why);
	return dfd;
}

/* Says why the file at path is not a lock sweep made; GPU_LOCK_UNSAFE. */
static int refuse(bool warn, const char *path, const char *what, uid_t uid)
{
	char *owner = user_name(uid);

	if (warn)
		warning("the GPU lock '%s' %s (owned by %s), not a lock sweep made: the GPU is "
		        "not used while it is there (only its owner or root can remove it)",
		        path, what, owner);
	free(owner);
	return GPU_LOCK_UNSAFE;
}

/* Why an open of path in dfd failed: GPU_LOCK_UNSAFE for what someone put there. */
static int open_failed(bool warn, int dfd, const char *name, const char *path, int err)
{
	struct stat sb;

	if (fstatat(dfd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISLNK(sb.st_mode))
			return refuse(warn, path, "is a symbolic link", sb.st_uid);
		if (err == EACCES)
			return refuse(warn, path, "cannot be read by this user", sb.st_uid);
		if (!S_ISREG(sb.st_mode))
			return refuse(warn, path, "is not a regular file", sb.st_uid);
	}
	if (warn)
		warning("cannot open the GPU lock '%s': %s; using the GPU unlocked", path,
		        strerror(err));
	return GPU_LOCK_NONE;
}

/* The lock's descriptor, read-only: the file there, or one made now (O_EXCL, ours). */
static int open_lock(bool warn, int dfd, const char *name, const char *path)
{
	for (int tries = 0; tries < 8; tries++) {
		int fd =
		    openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

		if (fd >= 0 || errno != ENOENT)
			return fd >= 0 ? fd : open_failed(warn, dfd, name, path, errno);
		fd = openat(dfd, name, O_RDONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		            LOCK_MODE);
		if (fd >= 0) {
			fchmod(fd, LOCK_MODE); /* the file just made, whatever the umask took */
			return fd;
		}
		if (errno != EEXIST)
			return open_failed(warn, dfd, name, path, errno);
		/* made by another runner since the first try (or planted): look again */
	}
	return open_failed(warn, dfd, name, path, EEXIST);
}

/* The checks on the open descriptor: what was opened, not what the path names now. */
static int check_lock(bool warn, int fd, const char *path)
{
	struct stat sb;
	char what[64];

	if (fstat(fd, &sb) < 0) {
		if (warn)
			warning("cannot check the GPU lock '%s': %s; using the GPU unlocked", path,
			        strerror(errno));
		return GPU_LOCK_NONE;
	}
	if (!S_ISREG(sb.st_mode))
		return refuse(warn, path, "is not a regular file", sb.st_uid);
	if (sb.st_nlink != 1) {
		snprintf(what, sizeof(what), "has %ju names (hard links)", (uintmax_t)sb.st_nlink);
		return refuse(warn, path, what, sb.st_uid);
	}
	if ((sb.st_mode & 0444) != 0444) {
		snprintf(what, sizeof(what), "is not readable by every user (mode %04o)",
		         (unsigned)(sb.st_mode & 07777));
		return refuse(warn, path, what, sb.st_uid);
	}
	return 0;
}

/*
 * flock keeps runners of this sweep apart; the read lock (fcntl) also
 * keeps them apart from older sweeps, whose runners took a write lock on
 * the same file. A file system where flock does not work on a read-only
 * descriptor (NFS emulates it with a write lock) has no lock to take.
 */
static int take(bool warn, int fd, const char *path)
{
	struct flock fl = {0};

	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno == EWOULDBLOCK || errno == EINTR)
			return GPU_LOCK_HELD;
		if (warn)
			warning("cannot lock the GPU lock '%s': %s; using the GPU unlocked", path,
			        strerror(errno));
		return GPU_LOCK_NONE;
	}
	fl.l_type = F_RDLCK;
	fl.l_whence = SEEK_SET;
	if (fcntl(fd, F_SETLK, &fl) < 0 && (errno == EAGAIN || errno == EACCES))
		return GPU_LOCK_HELD;
	return 0;
}

int gpu_lock(const char *uuid, bool warn)
{
	const char *dir = gpu_lock_dir();
	struct strbuf name = STRBUF_INIT, path = STRBUF_INIT, why = STRBUF_INIT;
	struct stat sb;
	int dfd, fd = GPU_LOCK_NONE, ret;

	strbuf_addstr(&name, "sweep-gpu-");
	for (const char *p = uuid; *p; p++)
		strbuf_addch(&name, isalnum((unsigned char)*p) || *p == '-' ? *p : '_');
	strbuf_addstr(&name, ".lock");
	strbuf_addf(&path, "%s/%s", dir, name.buf);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		if (warn)
			warning("cannot open the GPU lock folder '%s': %s; using the GPU unlocked",
			        dir, strerror(errno));
		goto out;
	}
	if (fstat(dfd, &sb) < 0 || check_dir_stat(&why, dir, &sb) < 0) {
		if (warn)
			warning("%s; its GPUs are not used meanwhile",
			        why.len ? why.buf : strerror(errno));
		fd = GPU_LOCK_UNSAFE;
		goto out;
	}
	fd = open_lock(warn, dfd, name.buf, path.buf);
	if (fd < 0)
		goto out;
	ret = check_lock(warn, fd, path.buf);
	if (!ret)
		ret = take(warn, fd, path.buf);
	if (ret < 0) {
		close(fd);
		fd = ret;
	}
out:
	if (dfd >= 0)
		close(dfd);
	strbuf_release(&name);
	strbuf_release(&path);
	strbuf_release(&why);
	return fd;
}
