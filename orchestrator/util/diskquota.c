#define _DEFAULT_SOURCE /* quotactl, major/minor */
#include "diskquota.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <linux/dqblk_xfs.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/quota.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "path.h"

#include "banned.h"

/* Long enough for lfs to ask every metadata server, short enough for a submit. */
#define LFS_TIMEOUT_S 30

void diskquota_mount_release(struct diskquota_mount *m)
{
	free(m->point);
	free(m->fstype);
	free(m->source);
	memset(m, 0, sizeof(*m));
}

void diskquota_report_init(struct diskquota_report *r)
{
	memset(r, 0, sizeof(*r));
	strbuf_init(&r->unknown, 0);
}

void diskquota_report_release(struct diskquota_report *r)
{
	diskquota_mount_release(&r->mount);
	strbuf_release(&r->unknown);
}

const char *diskquota_kind_name(enum diskquota_kind kind)
{
	return kind == DISKQUOTA_USER ? "user" : kind == DISKQUOTA_GROUP ? "group" : "project";
}

static uint32_t id_of(const struct diskquota_ids *ids, enum diskquota_kind kind)
{
	return kind == DISKQUOTA_USER ? ids->uid : kind == DISKQUOTA_GROUP ? ids->gid : ids->projid;
}

static void note(struct diskquota_report *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Adds one reason to r->unknown, "; "-separated. */
static void note(struct diskquota_report *r, const char *fmt, ...)
{
	va_list ap;

	if (r->unknown.len)
		strbuf_addstr(&r->unknown, "; ");
	va_start(ap, fmt);
	strbuf_vaddf(&r->unknown, fmt, ap);
	va_end(ap);
}

/* ---- mountinfo ---- */

/* A mountinfo field with its octal escapes (\040 for a space) decoded. */
static char *unescape(const char *s, size_t len)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\\' && i + 3 < len && s[i + 1] >= '0' && s[i + 1] <= '3' &&
		    s[i + 2] >= '0' && s[i + 2] <= '7' && s[i + 3] >= '0' && s[i + 3] <= '7') {
			strbuf_addch(&sb,
			             (s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + s[i + 3] - '0');
			i += 3;
		} else {
			strbuf_addch(&sb, s[i]);
		}
	}
	return strbuf_detach(&sb, NULL);
}

/* Splits line[0..len) at spaces into at most max fields; returns how many. */
static size_t split_fields(const char **start, size_t *flen, size_t max, const char *line,
                           size_t len)
{
	size_t n = 0, i = 0;

	while (i < len && n < max) {
		while (i < len && line[i] == ' ')
			i++;
		if (i == len)
			break;
		start[n] = line + i;
		while (i < len && line[i] != ' ')
			i++;
		flen[n] = (size_t)(line + i - start[n]);
		n++;
	}
	return n;
}

/* Whether mount point mp (length len) holds path. */
static int holds(const char *mp, size_t len, const char *path)
{
	if (len == 1 && mp[0] == '/')
		return 1;
	return !strncmp(path, mp, len) && (path[len] == '/' || path[len] == '\0');
}

int diskquota_parse_mountinfo(struct diskquota_mount *out, const char *text, unsigned major,
                              unsigned minor, const char *path)
{
	size_t best = 0;
	int found = -1;

	memset(out, 0, sizeof(*out));
	for (const char *line = text; *line;) {
		const char *end = strchr(line, '\n'), *f[32];
		size_t len = end ? (size_t)(end - line) : strlen(line), fl[32], n, dash;
		unsigned ma, mi;
		char *point;

		n = split_fields(f, fl, 32, line, len);
		line += len + (end ? 1 : 0);
		if (n < 7 || sscanf(f[2], "%u:%u", &ma, &mi) != 2 || ma != major || mi != minor)
			continue;
		for (dash = 6; dash < n && !(fl[dash] == 1 && f[dash][0] == '-'); dash++)
			;
		if (dash + 2 >= n)
			continue;
		point = unescape(f[4], fl[4]);
		if (holds(point, strlen(point), path) && (found < 0 || strlen(point) > best)) {
			diskquota_mount_release(out);
			best = strlen(point);
			out->point = point;
			out->fstype = xstrndup(f[dash + 1], fl[dash + 1]);
			out->source = unescape(f[dash + 2], fl[dash + 2]);
			found = 0;
		} else {
			free(point);
		}
	}
	return found;
}

/* ---- quotactl ---- */

static const int qtype[] = {USRQUOTA, GRPQUOTA, PRJQUOTA};

/* QCMD in unsigned arithmetic: Q_GETQUOTA (0x800007) << 8 does not fit an int. */
static int qcmd(unsigned cmd, int type)
{
	return (int)((cmd << SUBCMDSHIFT) | ((unsigned)type & SUBCMDMASK));
}

/* Grace of a quota from the time its soft limit's grace ends (0 = not over). */
static int64_t grace_left(uint64_t expires, time_t now)
{
	if (!expires)
		return 0;
	return (int64_t)expires > (int64_t)now ? (int64_t)expires - (int64_t)now : -1;
}

static int get_one(struct diskquota *q, const char *dev, int xfs, const struct diskquota_sys *sys)
{
	time_t now = time(NULL);

	if (xfs) {
		struct fs_disk_quota d;

		memset(&d, 0, sizeof(d));
		if (sys->quotactl(qcmd(Q_XGETQUOTA, qtype[q->kind]), dev, (int)q->id, (char *)&d) <
		    0)
			return -1;
		/* XFS counts in 512-byte basic blocks. */
		q->used = d.d_bcount * 512;
		q->soft = d.d_blk_softlimit * 512;
		q->hard = d.d_blk_hardlimit * 512;
		q->grace = q->soft && q->used > q->soft ? grace_left((uint64_t)d.d_btimer, now) : 0;
	} else {
		struct if_dqblk d;

		memset(&d, 0, sizeof(d));
		if (sys->quotactl(qcmd(Q_GETQUOTA, qtype[q->kind]), dev, (int)q->id, (char *)&d) <
		    0)
			return -1;
		/* Limits in 1 KiB quota blocks, usage in bytes. */
		q->used = d.dqb_curspace;
		q->soft = d.dqb_bsoftlimit * 1024;
		q->hard = d.dqb_bhardlimit * 1024;
		q->grace = q->soft && q->used > q->soft ? grace_left(d.dqb_btime, now) : 0;
	}
	return 0;
}

void diskquota_from_quotactl(struct diskquota_report *r, const struct diskquota_ids *ids, int xfs,
                             const struct diskquota_sys *sys)
{
	const char *dev = r->mount.source;

	r->source = xfs ? "Q_XGETQUOTA" : "quotactl";
	for (int k = DISKQUOTA_USER; k <= DISKQUOTA_PROJECT; k++) {
		struct diskquota *q = &r->quotas[r->n];
		const char *kind = diskquota_kind_name(k);

		if (k == DISKQUOTA_PROJECT && !ids->projid)
			break;
		memset(q, 0, sizeof(*q));
		q->kind = k;
		q->id = id_of(ids, k);
		if (get_one(q, dev, xfs, sys) == 0) {
			if (q->soft || q->hard)
				r->n++;
			continue;
		}
		switch (errno) {
		case ESRCH: /* quotas of this kind are not on: no limit */
			break;
		case ENOSYS:
			note(r, "this kernel has no quota support (quotactl: %s)",
			     strerror(ENOSYS));
			return;
		case EPERM:
		case EACCES:
			note(r, "not allowed to read the %s quota (id %" PRIu32 ") of '%s'", kind,
			     q->id, dev);
			break;
		case ENOENT:
		case ENOTBLK:
		case ENODEV:
			note(r, "cannot read the quotas of '%s' (mounted on '%s'): %s", dev,
			     r->mount.point, strerror(errno));
			return;
		default:
			note(r, "cannot read the %s quota (id %" PRIu32 ") of '%s': %s", kind,
			     q->id, dev, strerror(errno));
		}
	}
}

/* ---- Lustre ---- */

int64_t diskquota_parse_grace(const char *s)
{
	static const char unit[] = "wdhms";
	static const int64_t mult[] = {604800, 86400, 3600, 60, 1};
	int64_t total = 0;

	if (!strcmp(s, "-"))
		return 0;
	if (!strcmp(s, "none"))
		return -1;
	if (!*s)
		return -2;
	while (*s) {
		char *end;
		const char *u;
		unsigned long long v;

		if (*s < '0' || *s > '9')
			return -2;
		errno = 0;
		v = strtoull(s, &end, 10);
		u = *end ? strchr(unit, *end) : NULL;
		if (errno || !u || v > INT32_MAX)
			return -2;
		total += (int64_t)v * mult[u - unit];
		s = end + 1;
	}
	return total;
}

/* lfs's kbytes figure: "123", "123*" (exceeded) or "[123]" (inaccurate), in bytes. */
static int kbytes(uint64_t *out, const char *s, size_t len)
{
	char buf[32], *end;
	unsigned long long v;

	if (len && s[0] == '[') {
		s++;
		len--;
	}
	while (len && (s[len - 1] == '*' || s[len - 1] == ']'))
		len--;
	if (!len || len >= sizeof(buf) || s[0] < '0' || s[0] > '9')
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (errno || *end || v > UINT64_MAX / 1024)
		return -1;
	*out = (uint64_t)v * 1024;
	return 0;
}

static int starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

int diskquota_parse_lfs(struct diskquota *out, const char *text)
{
	const char *f[16];
	size_t fl[16], n = 0;

	/* The fields of the quota line; a long mount point stands alone on the line before. */
	for (const char *line = text; *line && n < 5;) {
		const char *end = strchr(line, '\n'), *t;
		size_t len = end ? (size_t)(end - line) : strlen(line);

		for (t = line; t < line + len && (*t == ' ' || *t == '\t'); t++)
			;
		if (!starts_with(t, "Disk quotas for") && !starts_with(t, "Filesystem") &&
		    !starts_with(t, "Some errors") && !starts_with(t, "Total allocated"))
			n += split_fields(f + n, fl + n, 16 - n, line, len);
		line += len + (end ? 1 : 0);
	}
	if (n < 5) {
		return -1;
	} else {
		char grace[40];

		if (kbytes(&out->used, f[1], fl[1]) || kbytes(&out->soft, f[2], fl[2]) ||
		    kbytes(&out->hard, f[3], fl[3]) || fl[4] >= sizeof(grace))
			return -1;
		memcpy(grace, f[4], fl[4]);
		grace[fl[4]] = '\0';
		out->grace = diskquota_parse_grace(grace);
		if (out->grace == -2)
			return -1;
	}
	return 0;
}

/* The first line of s, for a note. */
static void add_first_line(struct strbuf *sb, const char *s)
{
	size_t len = strcspn(s, "\n");

	strbuf_add(sb, s, len);
}

void diskquota_from_lfs(struct diskquota_report *r, const struct diskquota_ids *ids,
                        const struct diskquota_sys *sys)
{
	static const char *const flag[] = {"-u", "-g", "-p"};
	char *lfs = sys->which("lfs");

	r->source = "lfs quota";
	if (!lfs) {
		note(r, "'%s' is Lustre but 'lfs' is not in PATH", r->mount.point);
		return;
	}
	for (int k = DISKQUOTA_USER; k <= DISKQUOTA_PROJECT; k++) {
		struct diskquota *q = &r->quotas[r->n];
		struct proc_result res;
		char id[16];
		const char *argv[] = {lfs, "quota", "-q", flag[k], id, r->mount.point, NULL};

		if (k == DISKQUOTA_PROJECT && !ids->projid)
			break;
		memset(q, 0, sizeof(*q));
		q->kind = k;
		q->id = id_of(ids, k);
		snprintf(id, sizeof(id), "%" PRIu32, q->id);
		proc_result_init(&res);
		if (sys->run(&res, argv) < 0) {
			note(r, "%s", error_last());
			proc_result_release(&res);
			break;
		} else if (!res.exited || res.status) {
			/* "user quotas are not enabled." means no limit of that kind. */
			if (!strstr(res.err.buf, "not enabled")) {
				struct strbuf why = STRBUF_INIT;

				add_first_line(&why, res.err.len ? res.err.buf : res.out.buf);
				note(r, "'lfs quota %s %s' failed: %s", flag[k], id,
				     why.len ? why.buf : "no output");
				strbuf_release(&why);
			}
		} else if (diskquota_parse_lfs(q, res.out.buf) < 0) {
			struct strbuf line = STRBUF_INIT;

			add_first_line(&line, res.out.buf);
			note(r, "cannot read the output of 'lfs quota %s %s': '%s'", flag[k], id,
			     line.buf);
			strbuf_release(&line);
		} else if (q->soft || q->hard) {
			r->n++;
		}
		proc_result_release(&res);
	}
	free(lfs);
}

/* ---- the folder ---- */

static int is_quotactl_fs(const char *fstype)
{
	static const char *const types[] = {"ext2",  "ext3", "ext4", "reiserfs", "jfs",
	                                    "ocfs2", "gfs2", "f2fs", NULL};

	for (size_t i = 0; types[i]; i++)
		if (!strcmp(fstype, types[i]))
			return 1;
	return 0;
}

int diskquota_read(struct diskquota_report *out, const char *dir, const struct diskquota_sys *sys)
{
	struct diskquota_ids ids;
	struct strbuf text = STRBUF_INIT;
	struct stat st;
	char *real = NULL;
	int ret = 0;

	if (stat(dir, &st) < 0 || !(real = realpath(dir, NULL))) {
		ret = error("cannot read the quota of '%s': %s", dir, strerror(errno));
		goto out;
	}
	ids.uid = (uint32_t)geteuid();
	/* New files take a set-group-ID folder's group. */
	ids.gid = (uint32_t)((st.st_mode & S_ISGID) ? st.st_gid : getegid());
	ids.projid = sys->project_of(real);
	if (sys->mountinfo(&text) < 0) {
		note(out, "cannot read /proc/self/mountinfo: %s", strerror(errno));
		goto out;
	}
	if (diskquota_parse_mountinfo(&out->mount, text.buf, major(st.st_dev), minor(st.st_dev),
	                              real) < 0) {
		note(out, "no mount of '%s' in /proc/self/mountinfo", real);
		goto out;
	}
	if (!strcmp(out->mount.fstype, "xfs"))
		diskquota_from_quotactl(out, &ids, 1, sys);
	else if (is_quotactl_fs(out->mount.fstype))
		diskquota_from_quotactl(out, &ids, 0, sys);
	else if (!strcmp(out->mount.fstype, "lustre"))
		diskquota_from_lfs(out, &ids, sys);
	else
		note(out, "sweep reads the quotas of ext4, XFS and Lustre, and '%s' is %s",
		     out->mount.point, out->mount.fstype);
out:
	free(real);
	strbuf_release(&text);
	return ret;
}

/* ---- the real system ---- */

static int real_quotactl(int cmd, const char *special, int id, char *addr)
{
	return quotactl(cmd, special, id, addr);
}

static int real_run(struct proc_result *res, const char *const *argv)
{
	return proc_run(res, argv, NULL, LFS_TIMEOUT_S);
}

static int real_mountinfo(struct strbuf *out)
{
	return strbuf_read_file(out, "/proc/self/mountinfo");
}

static uint32_t real_project_of(const char *dir)
{
	struct fsxattr fa;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	uint32_t id = 0;

	if (fd < 0)
		return 0;
	if (ioctl(fd, FS_IOC_FSGETXATTR, &fa) == 0)
		id = fa.fsx_projid;
	close(fd);
	return id;
}

const struct diskquota_sys diskquota_system = {
    .quotactl = real_quotactl,
    .which = path_which,
    .run = real_run,
    .mountinfo = real_mountinfo,
    .project_of = real_project_of,
};
