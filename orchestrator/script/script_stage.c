/*
 * `stage:` and `checkpoint.keep` as the task script sees them. The work is
 * done by the bash of templates/array.sbatch; this file gives it values,
 * each single-quoted, and checks at submit what would only fail on a node.
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include "script_stage.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfg.h"
#include "error.h"
#include "path.h"
#include "placeholder.h"
#include "plan.h"
#include "quote.h"
#include "script.h"

#include "banned.h"

char *script_stage_name(int64_t sweep_id, const char *sweep_dir)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	for (const unsigned char *p = (const unsigned char *)sweep_dir; *p; p++)
		h = (h ^ *p) * 16777619u;
	return xstrfmt("sweep-stage-%u-%" PRId64 "-%08" PRIx32, (unsigned)getuid(), sweep_id, h);
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);

	return n >= m && !strcmp(s + n - m, tail);
}

static uint64_t folder_bytes;

static int add_file(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)path;
	(void)ftw;
	folder_bytes += type == FTW_F ? (uint64_t)sb->st_size : 4096;
	return 0;
}

static int measure_one(uint64_t *out, const struct cfg_stage *e, const char *path)
{
	struct stat sb;

	if (stat(path, &sb) < 0)
		return error("'stage': cannot read '%s': %s", e->path, strerror(errno));
	if (S_ISDIR(sb.st_mode)) {
		folder_bytes = 0;
		if (nftw(path, add_file, 16, FTW_PHYS) < 0)
			return error("'stage': cannot read the folder '%s': %s", e->path,
			             strerror(errno));
		*out = folder_bytes;
		return 0;
	}
	if (!S_ISREG(sb.st_mode) || !(ends_with(path, ".tar") || ends_with(path, ".tar.gz") ||
	                              ends_with(path, ".tgz") || ends_with(path, ".tar.zst")))
		return error("'stage': '%s' is neither a folder nor a .tar, .tar.gz, .tgz or "
		             ".tar.zst file",
		             e->path);
	if (e->size_mb)
		*out = e->size_mb * 1024 * 1024;
	else if (ends_with(path, ".tar"))
		*out = (uint64_t)sb.st_size;
	else
		*out = (uint64_t)sb.st_size * SCRIPT_STAGE_RATIO;
	return 0;
}

int script_stage_measure(uint64_t *out, const struct cfg *cfg, const char *cwd)
{
	*out = 0;
	for (size_t i = 0; i < cfg->nstage; i++) {
		char *path = path_absolute(cfg->stage[i].path, cwd);
		uint64_t bytes = 0;
		int ret = measure_one(&bytes, &cfg->stage[i], path);

		free(path);
		if (ret < 0)
			return ret;
		*out += bytes;
	}
	return 0;
}

void script_stage_variables(struct strbuf *out, const struct script_input *in)
{
	const struct cfg *cfg = in->cfg;
	char *name;

	strbuf_addf(out, "\nSWEEP_KEEP=%u\nSWEEP_KEEP_PATTERN=",
	            cfg->checkpoint.keep_given ? cfg->checkpoint.keep : 0);
	quote_sh(out, cfg->checkpoint.pattern ? cfg->checkpoint.pattern : "*");
	strbuf_addstr(out, "\nSWEEP_STAGE_SOURCES=(");
	for (size_t i = 0; i < cfg->nstage; i++) {
		char *path = path_absolute(cfg->stage[i].path, in->workdir);

		/* "dir/" would copy the folder's contents, not the folder. */
		while (strlen(path) > 1 && path[strlen(path) - 1] == '/')
			path[strlen(path) - 1] = '\0';
		strbuf_addstr(out, i ? " " : "");
		quote_sh(out, path);
		free(path);
	}
	name = script_stage_name(in->sweep_id, in->sweep_dir);
	strbuf_addf(out, ")\nSWEEP_STAGE_NEED=%" PRIu64 "\nSWEEP_STAGE_NAME=", in->stage_need);
	quote_sh(out, name);
	/* Slurm sets TMPDIR (to /tmp without a per-job folder): a stated base wins. */
	strbuf_addstr(out, "\nSWEEP_STAGE_BASE=");
	if (cfg->slurm.tmp_base)
		quote_sh(out, cfg->slurm.tmp_base);
	else
		strbuf_addstr(out, "${TMPDIR:-/tmp}");
	free(name);
}

/* The variable a placeholder of checkpoint.dir stands for (checked by the reader). */
static void dir_variable(struct strbuf *out, const char *name, size_t len)
{
	if (len == 4 && !strncmp(name, "seed", 4))
		strbuf_addstr(out, "\"${SWEEP_SEED}\"");
	else if (len == 5 && !strncmp(name, "index", 5))
		strbuf_addstr(out, "\"${SWEEP_TASK_INDEX}\"");
	else if (len == 5 && !strncmp(name, "stage", 5))
		strbuf_addstr(out, "\"${SWEEP_STAGE}\"");
	else
		strbuf_addf(out, "\"${SWEEP_PARAM_%.*s}\"", (int)len, name);
}

void script_checkpoint_dir(struct strbuf *out, const struct cfg *cfg, const struct plan *plan)
{
	struct placeholder_piece pc;
	size_t n;

	(void)plan;
	if (!cfg->checkpoint.dir) {
		strbuf_addstr(out, "SWEEP_CHECKPOINT_DIR=$SWEEP_TASK_DIR");
	} else {
		strbuf_addstr(out, "SWEEP_CHECKPOINT_DIR=");
		for (const char *p = cfg->checkpoint.dir; (n = placeholder_next(&pc, p)); p += n) {
			if (pc.kind == PLACEHOLDER_NAME) {
				dir_variable(out, pc.start, pc.len);
			} else {
				char *text = xstrndup(pc.start, pc.len);

				quote_sh(out, text);
				free(text);
			}
		}
	}
	strbuf_addstr(out, "\nexport SWEEP_CHECKPOINT_DIR");
}

/* Task i's checkpoint folder, placeholders filled in ({stage}: STAGE_STANDIN, known on the node). */
#define STAGE_STANDIN "$SWEEP_STAGE"
static void task_dir(struct strbuf *out, const char *dir, const struct plan *plan, size_t i)
{
	struct placeholder_piece pc;
	size_t n, s = plan_setting_of(plan, i);

	for (const char *p = dir; (n = placeholder_next(&pc, p)); p += n) {
		if (pc.kind == PLACEHOLDER_TEXT) {
			strbuf_add(out, pc.start, pc.len);
		} else if (pc.len == 5 && !strncmp(pc.start, "stage", 5)) {
			strbuf_addstr(out, STAGE_STANDIN);
		} else if (pc.len == 4 && !strncmp(pc.start, "seed", 4)) {
			strbuf_addf(out, "%" PRId64, plan_seed_of(plan, i));
		} else if (pc.len == 5 && !strncmp(pc.start, "index", 5)) {
			strbuf_addf(out, "%zu", i);
		} else {
			for (size_t k = 0; k < plan->nparams; k++)
				if (strlen(plan->params[k]) == pc.len &&
				    !strncmp(plan->params[k], pc.start, pc.len))
					strbuf_addstr(out, plan_value(plan, s, k));
		}
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* path with its empty and '.' segments dropped, absolute when it starts with '/'; false on '..'. */
static bool normalize(struct strbuf *out, const char *path)
{
	const char *p = path;

	strbuf_reset(out);
	while (*p) {
		size_t len = strcspn(p, "/");

		if (len == 2 && !strncmp(p, "..", 2))
			return false;
		if (len && !(len == 1 && *p == '.')) {
			if (out->len || path[0] == '/')
				strbuf_addch(out, '/');
			strbuf_add(out, p, len);
		}
		p += len;
		while (*p == '/')
			p++;
	}
	if (!out->len && path[0] == '/')
		strbuf_addch(out, '/');
	return true;
}

/*
 * Task i's checkpoint folder, path: under the submit folder cwd, or an
 * absolute folder the sweep file writes itself (or {stage}); no '..', and
 * never '/', the home folder or the submit folder itself, which pruning
 * would empty of the user's own files.
 */
static int check_task_dir(const char *dir, const char *path, size_t i, const char *cwd)
{
	struct strbuf norm = STRBUF_INIT, full = STRBUF_INIT, other = STRBUF_INIT;
	bool stage = !strncmp(path, STAGE_STANDIN, strlen(STAGE_STANDIN));
	bool absolute = path[0] == '/' || stage;
	const char *home = getenv("HOME"), *what = NULL;
	int ret = 0;

	if (!normalize(&norm, path)) {
		ret = error("'checkpoint.dir' '%s' is '%s' for task %zu: a '..' in it leaves the "
		            "folder; a checkpoint folder must stay under the submit folder '%s' or "
		            "be an absolute folder written in the sweep file",
		            dir, path, i, cwd);
		goto out;
	}
	if (absolute && !stage && dir[0] != '/') {
		ret = error("'checkpoint.dir' '%s' is '%s' for task %zu: a value made it an absolute "
		            "path; a checkpoint folder must stay under the submit folder '%s' or be "
		            "an absolute folder written in the sweep file",
		            dir, path, i, cwd);
		goto out;
	}
	if (stage)
		goto out;
	if (absolute)
		strbuf_add(&full, norm.buf, norm.len);
	else
		strbuf_addf(&full, "%s%s%s", cwd, norm.len ? "/" : "", norm.buf);
	if (!strcmp(full.buf, "/"))
		what = "the root folder";
	if (!what && home && normalize(&other, home) && !strcmp(full.buf, other.buf))
		what = "your home folder";
	if (!what && normalize(&other, cwd) && !strcmp(full.buf, other.buf))
		what = "the submit folder";
	if (what)
		ret = error("'checkpoint.dir' '%s' is '%s' for task %zu, %s itself: with "
		            "'checkpoint.keep' a task deletes the files of its folder; give each task "
		            "a folder of its own, such as 'ckpt/{index}'",
		            dir, path, i, what);
out:
	strbuf_release(&norm);
	strbuf_release(&full);
	strbuf_release(&other);
	return ret;
}

int script_keep_check(const struct cfg *cfg, const struct plan *plan, const char *cwd)
{
	char **dirs;
	int ret = 0;

	if (!cfg->checkpoint.dir)
		return 0;
	dirs = xcalloc(plan->ntasks ? plan->ntasks : 1, sizeof(*dirs));
	for (size_t i = 0; i < plan->ntasks; i++) {
		struct strbuf sb = STRBUF_INIT;

		task_dir(&sb, cfg->checkpoint.dir, plan, i);
		dirs[i] = strbuf_detach(&sb, NULL);
		if (!ret)
			ret = check_task_dir(cfg->checkpoint.dir, dirs[i], i, cwd);
	}
	if (ret || !cfg->checkpoint.keep_given || plan->ntasks < 2)
		goto out;
	qsort(dirs, plan->ntasks, sizeof(*dirs), cmp_str);
	for (size_t i = 1; i < plan->ntasks && !ret; i++)
		if (!strcmp(dirs[i - 1], dirs[i]))
			ret = error(
			    "'checkpoint.dir' '%s' gives several tasks the folder '%s': with "
			    "'checkpoint.keep' each task deletes old files in its own folder; "
			    "add '{index}' (or '{seed}' and every parameter)",
			    cfg->checkpoint.dir, dirs[i]);
out:
	for (size_t i = 0; i < plan->ntasks; i++)
		free(dirs[i]);
	free(dirs);
	return ret;
}

/*
 * The removal below never goes through a link, and never into a folder that
 * is not the caller's: the stage's name is predictable, in a folder every
 * user may write (/tmp), so another user can make it first, or plant a
 * link there or in it (to the caller's home, say). Everything is opened
 * relative to the stage's descriptor, with O_NOFOLLOW and
 * AT_SYMLINK_NOFOLLOW, as rm -rf and systemd-tmpfiles do.
 */

/* Why the entry name of dirfd (shown as path) is not a folder to open. */
static int refuse_entry(int dirfd, const char *name, const char *path, int err)
{
	struct stat st;
	char *owner;
	int ret;

	if ((err != ELOOP && err != ENOTDIR) || fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return error("cannot open '%s': %s", path, strerror(err));
	owner = path_owner_name(st.st_uid);
	ret = error("refusing the stage '%s': it is %s (owned by %s), not a folder sweep made; "
	            "sweep never removes anything through it",
	            path, S_ISLNK(st.st_mode) ? "a symbolic link" : "not a folder", owner);
	free(owner);
	return ret;
}

/*
 * Opens the stage folder name of basefd (shown as path) into *out, once it
 * is known to be the caller's own: a folder, not a link, owned by the
 * caller, mode 0700 (as the task script makes it). *out is -1 when it is
 * not there.
 */
static int stage_open(int *out, int basefd, const char *name, const char *path)
{
	struct stat st;
	char *owner;
	int fd, ret = 0;

	*out = -1;
	fd = openat(basefd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : refuse_entry(basefd, name, path, errno);
	if (fstat(fd, &st) < 0) {
		ret = error("cannot read '%s': %s", path, strerror(errno));
	} else if (st.st_uid != geteuid()) {
		owner = path_owner_name(st.st_uid);
		ret = error("refusing the stage '%s': it belongs to %s, not to you; sweep "
		            "removes only a stage of its own (someone else may have made it "
		            "first to have your files removed through it)",
		            path, owner);
		free(owner);
	} else if ((st.st_mode & 07777) != PATH_PRIVATE_DIR) {
		ret = error("refusing the stage '%s': its mode is %04o, not %04o as sweep makes "
		            "it; remove it yourself if it is yours",
		            path, (unsigned)(st.st_mode & 07777), PATH_PRIVATE_DIR);
	}
	if (ret < 0)
		close(fd);
	else
		*out = fd;
	return ret;
}

/* Whether some live task holds a lease in the stage's leases/ (removing the files of dead ones). */
static int leases_held(int stagefd, const char *path)
{
	char *leases = xstrfmt("%s/leases", path);
	int fd = openat(stagefd, "leases", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct dirent *de;
	int held = 0;
	DIR *d;

	if (fd < 0) {
		held = errno == ENOENT ? 0 : refuse_entry(stagefd, "leases", leases, errno);
		goto out;
	}
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		held = error("cannot read '%s': %s", leases, strerror(errno));
		goto out;
	}
	while ((de = readdir(d))) {
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		fd = openat(dirfd(d), de->d_name,
		            O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
			if (flock(fd, LOCK_EX | LOCK_NB) < 0)
				held = 1;
			else
				unlinkat(dirfd(d), de->d_name, 0);
		}
		close(fd);
	}
	closedir(d);
out:
	free(leases);
	return held;
}

/* Removes everything in the folder fd (shown as path), never following a link. */
static int remove_below(int fd, const char *path)
{
	int dfd = dup(fd), ret = 0;
	struct dirent *de;
	DIR *d;

	if (dfd < 0 || !(d = fdopendir(dfd))) {
		if (dfd >= 0)
			close(dfd);
		return error("cannot read '%s': %s", path, strerror(errno));
	}
	while (ret == 0 && (de = readdir(d))) {
		const char *name = de->d_name;
		char *sub;
		struct stat st, opened;
		int subfd;

		if (!strcmp(name, ".") || !strcmp(name, ".."))
			continue;
		sub = xstrfmt("%s/%s", path, name);
		if (fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno != ENOENT)
				ret = error("cannot read '%s': %s", sub, strerror(errno));
		} else if (!S_ISDIR(st.st_mode)) {
			/* A link is removed, never what it points to. */
			if (unlinkat(dirfd(d), name, 0) < 0 && errno != ENOENT)
				ret = error("cannot remove '%s': %s", sub, strerror(errno));
		} else if ((subfd = openat(dirfd(d), name,
		                           O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
			ret = error("cannot open '%s': %s", sub, strerror(errno));
		} else {
			/* The folder looked at is the one opened (not swapped meanwhile). */
			if (fstat(subfd, &opened) < 0 || opened.st_dev != st.st_dev ||
			    opened.st_ino != st.st_ino)
				ret = error("'%s' changed while it was being removed", sub);
			else
				ret = remove_below(subfd, sub);
			close(subfd);
			if (ret == 0 && unlinkat(dirfd(d), name, AT_REMOVEDIR) < 0 &&
			    errno != ENOENT)
				ret = error("cannot remove '%s': %s", sub, strerror(errno));
		}
		free(sub);
	}
	closedir(d);
	return ret;
}

int script_stage_remove(const char *base, const char *name)
{
	char *dir = xstrfmt("%s/%s", base, name), *lock = xstrfmt("%s/lock", dir);
	int basefd, stagefd = -1, fd = -1, ret = 0;
	struct stat st, now;

	basefd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (basefd < 0) {
		if (errno != ENOENT)
			ret = error("cannot open '%s': %s", base, strerror(errno));
		goto out;
	}
	ret = stage_open(&stagefd, basefd, name, dir);
	if (ret < 0 || stagefd < 0)
		goto out;
	fd = openat(stagefd, "lock", O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		if (errno != ENOENT)
			ret = error("cannot open '%s': %s", lock, strerror(errno));
		goto out;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		ret = error("refusing the stage '%s': its lock is not a regular file", dir);
		goto out;
	}
	if (flock(fd, LOCK_EX) < 0) {
		ret = error("cannot lock '%s': %s", lock, strerror(errno));
		goto out;
	}
	ret = leases_held(stagefd, dir);
	if (ret != 0) {
		ret = ret > 0 ? 0 : ret;
		goto out;
	}
	ret = remove_below(stagefd, dir);
	if (ret < 0)
		goto out;
	/* The name still the folder just emptied: else leave what is there now. */
	if (fstat(stagefd, &st) < 0 || fstatat(basefd, name, &now, AT_SYMLINK_NOFOLLOW) < 0 ||
	    st.st_dev != now.st_dev || st.st_ino != now.st_ino) {
		ret = error("'%s' changed while it was being removed", dir);
		goto out;
	}
	ret = unlinkat(basefd, name, AT_REMOVEDIR) < 0
	          ? error("cannot remove '%s': %s", dir, strerror(errno))
	          : 1;
out:
	if (fd >= 0)
		close(fd);
	if (stagefd >= 0)
		close(stagefd);
	if (basefd >= 0)
		close(basefd);
	free(dir);
	free(lock);
	return ret;
}

size_t script_stage_notes(struct stage_note *out, const char *sweep_dir,
                          enum taskdir_layout layout, size_t ntasks)
{
	size_t found = 0;

	for (size_t i = 0; i < ntasks; i++) {
		char *path = taskdir_file(sweep_dir, layout, i, ".staged");
		struct strbuf text = STRBUF_INIT;
		char how[16];

		memset(&out[i], 0, sizeof(out[i]));
		/* "SECONDS HOW NODE", written by the task script. */
		if (strbuf_read_file_max(&text, path, 256, STRBUF_READ_NOFOLLOW) == 0 &&
		    sscanf(text.buf, "%lf %15s %63s", &out[i].seconds, how, out[i].node) == 3) {
			out[i].found = true;
			out[i].unpacked = !strcmp(how, "unpacked");
			found++;
		}
		strbuf_release(&text);
		free(path);
	}
	return found;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void script_stage_summary(FILE *f, const struct stage_note *notes, size_t ntasks)
{
	double *shared = xcalloc(ntasks ? ntasks : 1, sizeof(*shared)), copy_s = 0;
	size_t ncopy = 0, nshared = 0;

	for (size_t i = 0; i < ntasks; i++) {
		if (!notes[i].found)
			continue;
		if (notes[i].unpacked) {
			ncopy++;
			copy_s = notes[i].seconds > copy_s ? notes[i].seconds : copy_s;
		} else {
			shared[nshared++] = notes[i].seconds;
		}
	}
	if (ncopy + nshared) {
		fprintf(f, "staging: %zu task%s, copied %zu time%s (at most %.2f s)",
		        ncopy + nshared, ncopy + nshared == 1 ? "" : "s", ncopy,
		        ncopy == 1 ? "" : "s", copy_s);
		qsort(shared, nshared, sizeof(*shared), cmp_double);
		if (nshared)
			fprintf(f, ", shared %zu time%s (median %.2f s, max %.2f s)", nshared,
			        nshared == 1 ? "" : "s", shared[nshared / 2], shared[nshared - 1]);
		fputc('\n', f);
	}
	free(shared);
}
