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

/* Whether some live task holds a lease in dir (removing the files of dead ones). */
static int leases_held(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int held = 0;

	if (!d)
		return errno == ENOENT ? 0 : error("cannot read '%s': %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		int fd;

		if (de->d_name[0] == '.')
			continue;
		fd = openat(dirfd(d), de->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (flock(fd, LOCK_EX | LOCK_NB) < 0)
			held = 1;
		else
			unlinkat(dirfd(d), de->d_name, 0);
		close(fd);
	}
	closedir(d);
	return held;
}

static int remove_tree(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	if ((type == FTW_DP ? rmdir(path) : unlink(path)) < 0 && errno != ENOENT)
		return error("cannot remove '%s': %s", path, strerror(errno));
	return 0;
}

int script_stage_remove(const char *base, const char *name)
{
	char *dir = xstrfmt("%s/%s", base, name), *lock = xstrfmt("%s/lock", dir);
	char *leases = xstrfmt("%s/leases", dir);
	int fd = -1, ret = 0;

	fd = open(lock, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno != ENOENT)
			ret = error("cannot open '%s': %s", lock, strerror(errno));
		goto out;
	}
	if (flock(fd, LOCK_EX) < 0) {
		ret = error("cannot lock '%s': %s", lock, strerror(errno));
		goto out;
	}
	ret = leases_held(leases);
	if (ret == 0) {
		ret = nftw(dir, remove_tree, 16, FTW_DEPTH | FTW_PHYS) < 0 ? SWEEP_ERR : 1;
	} else if (ret > 0) {
		ret = 0;
	}
out:
	if (fd >= 0)
		close(fd);
	free(dir);
	free(lock);
	free(leases);
	return ret;
}

size_t script_stage_notes(struct stage_note *out, const char *sweep_dir, size_t ntasks)
{
	size_t found = 0;

	for (size_t i = 0; i < ntasks; i++) {
		char *path = xstrfmt("%s/tasks/%zu/.staged", sweep_dir, i);
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
