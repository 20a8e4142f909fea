#include "space.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "error.h"
#include "path.h"
#include "placeholder.h"
#include "strbuf.h"
#include "units.h"

#include "banned.h"

static uint64_t mul_sat(uint64_t a, uint64_t b)
{
	if (a && b > UINT64_MAX / a)
		return UINT64_MAX;
	return a * b;
}

uint64_t space_needed_mb(size_t ntasks, unsigned max_concurrent, uint64_t size_mb, unsigned keep)
{
	uint64_t at_once = ntasks;

	if (max_concurrent && max_concurrent < at_once)
		at_once = max_concurrent;
	return mul_sat(mul_sat(at_once, size_mb), keep);
}

uint64_t space_quota_left(const struct diskquota *q)
{
	uint64_t limit = q->soft ? q->soft : q->hard;

	if (!limit)
		return UINT64_MAX;
	return q->used < limit ? limit - q->used : 0;
}

int space_fits(struct space_fit *out, uint64_t need, uint64_t free_bytes,
               const struct diskquota *quotas, size_t n)
{
	out->left = free_bytes;
	out->by = NULL;
	for (size_t i = 0; i < n; i++) {
		uint64_t left = space_quota_left(&quotas[i]);

		if (left < out->left) {
			out->left = left;
			out->by = &quotas[i];
		}
	}
	return need <= out->left;
}

char *space_checkpoint_root(const char *checkpoint_dir, const char *cwd, const char *default_dir)
{
	struct strbuf text = STRBUF_INIT;
	struct placeholder_piece pc;
	const char *p = checkpoint_dir ? checkpoint_dir : default_dir;
	char *dir, *slash;
	struct stat st;
	size_t n;

	for (; (n = placeholder_next(&pc, p)); p += n) {
		if (pc.kind == PLACEHOLDER_NAME) {
			if (!text.len && pc.len == 5 && !strncmp(pc.start, "stage", 5)) {
				strbuf_release(&text);
				return NULL;
			}
			/* The folder that holds the first part with a placeholder. */
			slash = strrchr(text.buf, '/');
			strbuf_setlen(&text,
			              slash ? (size_t)(slash - text.buf) + (slash == text.buf) : 0);
			break;
		}
		strbuf_add(&text, pc.start, pc.len);
	}
	dir = path_absolute(text.len ? text.buf : ".", cwd);
	strbuf_release(&text);
	while (stat(dir, &st) < 0 && strcmp(dir, "/")) {
		slash = strrchr(dir, '/');
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	return dir;
}

/* "8G used of a 10G limit (hard 12G), grace not running" */
static void describe_quota(struct strbuf *out, const struct diskquota *q)
{
	char used[32], soft[32], hard[32], grace[32];

	units_format_bytes(used, sizeof(used), q->used);
	units_format_bytes(soft, sizeof(soft), q->soft);
	units_format_bytes(hard, sizeof(hard), q->hard);
	strbuf_addf(out, "the %s quota (id %" PRIu32 ") has %s used of a %s limit",
	            diskquota_kind_name(q->kind), q->id, used, q->soft ? soft : hard);
	if (q->soft && q->hard)
		strbuf_addf(out, " (hard %s)", hard);
	if (q->grace > 0) {
		units_format_time(grace, sizeof(grace), (uint64_t)q->grace);
		strbuf_addf(out, ", over it with %s of grace left", grace);
	} else if (q->grace < 0) {
		strbuf_addstr(out, ", over it and out of grace");
	} else {
		strbuf_addstr(out, ", grace not running");
	}
}

static void show_check(FILE *show, const char *dir, const struct diskquota_report *r,
                       uint64_t free_bytes, const struct space_fit *fit, int fits, const char *head)
{
	char b[32];

	fprintf(show, "# checkpoint space: %s in '%s'", head, dir);
	if (r->mount.fstype)
		fprintf(show, " (%s '%s' on '%s')", r->mount.fstype, r->mount.source,
		        r->mount.point);
	units_format_bytes(b, sizeof(b), free_bytes);
	fprintf(show, "\n#   free space: %s\n", b);
	for (size_t i = 0; i < r->n; i++) {
		struct strbuf sb = STRBUF_INIT;

		describe_quota(&sb, &r->quotas[i]);
		units_format_bytes(b, sizeof(b), space_quota_left(&r->quotas[i]));
		fprintf(show, "#   %s (%s): %s left\n", sb.buf, r->source, b);
		strbuf_release(&sb);
	}
	if (r->unknown.len)
		fprintf(show, "#   quota unknown: %s\n", r->unknown.buf);
	else if (!r->n)
		fprintf(show, "#   no user, group or project limit on '%s' (%s)\n", r->mount.source,
		        r->source);
	units_format_bytes(b, sizeof(b), fit->left);
	fprintf(show, "#   %s: %s left by %s%s\n", fits ? "fits" : "does not fit", b,
	        fit->by ? diskquota_kind_name(fit->by->kind) : "free space",
	        fit->by ? " quota" : "");
}

int space_check(const char *dir, uint64_t needed_mb, size_t at_once, uint64_t size_mb,
                unsigned keep, const struct diskquota_sys *sys, FILE *show)
{
	struct diskquota_report r;
	struct space_fit fit;
	struct statvfs fs;
	struct strbuf head = STRBUF_INIT, why = STRBUF_INIT;
	uint64_t free_bytes, need = mul_sat(needed_mb, 1024 * 1024);
	char need_s[32], have[32], one[32];
	int ret = 0, fits;

	diskquota_report_init(&r);
	if (statvfs(dir, &fs) < 0) {
		ret = error("cannot read the free space of '%s': %s", dir, strerror(errno));
		goto out;
	}
	if (diskquota_read(&r, dir, sys) < 0) {
		ret = SWEEP_ERR;
		goto out;
	}
	/* Whole MiB, as the figures say. */
	free_bytes = mul_sat(mul_sat(fs.f_bavail, fs.f_frsize) / (1024 * 1024), 1024 * 1024);
	fits = space_fits(&fit, need, free_bytes, r.quotas, r.n);
	units_format_bytes(need_s, sizeof(need_s), need);
	units_format_mem(one, sizeof(one), size_mb);
	strbuf_addf(&head, "up to %s (%zu tasks at once x %s x %u kept)", need_s, at_once, one,
	            keep);
	if (show)
		show_check(show, dir, &r, free_bytes, &fit, fits, head.buf);
	if (fits)
		goto out;
	units_format_bytes(have, sizeof(have), fit.left);
	if (!fit.by) {
		ret = error("checkpoints need %s in '%s', which has %s free; lower "
		            "'checkpoint.keep' or 'slurm.max_concurrent', or free space",
		            head.buf, dir, have);
		goto out;
	}
	describe_quota(&why, fit.by);
	ret = error("checkpoints need %s in '%s', but on '%s' %s, which leaves %s; lower "
	            "'checkpoint.keep' or 'slurm.max_concurrent', or free space under that quota",
	            head.buf, dir, r.mount.point, why.buf, have);
out:
	diskquota_report_release(&r);
	strbuf_release(&head);
	strbuf_release(&why);
	return ret;
}
