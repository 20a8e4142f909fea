#ifndef SWEEP_DISKQUOTA_H
#define SWEEP_DISKQUOTA_H

#include <stddef.h>
#include <stdint.h>

#include "proc.h"
#include "strbuf.h"

/*
 * Disk quotas (prefix diskquota_): the quotas that govern a folder for the
 * calling user, and how much of each is used. The folder's mount (from
 * /proc/self/mountinfo, by its device number) picks the source:
 * - ext2/3/4 (and the other block-device file systems with Linux VFS quotas:
 *   reiserfs, jfs, ocfs2, gfs2, f2fs): quotactl(2) Q_GETQUOTA on the device;
 * - xfs: quotactl(2) Q_XGETQUOTA;
 * - lustre: `lfs quota -q -u UID` (-g GID, -p PROJID) on the mount point;
 * - anything else (nfs, tmpfs, overlay, zfs, btrfs, gpfs, beegfs...): the
 *   quota is unknown, and the report says why.
 * On each: the user quota, the group quota of the group new files get (the
 * folder's when it is set-group-ID, else the caller's), and the project
 * quota when the folder has a project id. An NFS client cannot see the
 * server's quotas this way; on the NFS server itself the exported ext4/XFS
 * is an ordinary local file system.
 *
 * Every system call and program goes through struct diskquota_sys, so the
 * tests feed recorded answers and errno values to the same code.
 */

enum diskquota_kind { DISKQUOTA_USER, DISKQUOTA_GROUP, DISKQUOTA_PROJECT };

struct diskquota {
	enum diskquota_kind kind;
	uint32_t id;
	uint64_t used; /* bytes */
	uint64_t soft; /* bytes; 0 = none */
	uint64_t hard; /* bytes; 0 = none */
	/* over the soft limit: seconds of grace left, or -1 when it ran out; 0 = not over */
	int64_t grace;
};

/* The ids whose quotas apply to new files in a folder. */
struct diskquota_ids {
	uint32_t uid, gid;
	uint32_t projid; /* 0 = the folder has no project */
};

/* One line of mountinfo; the strings are owned (diskquota_mount_release). */
struct diskquota_mount {
	char *point, *fstype, *source;
};

void diskquota_mount_release(struct diskquota_mount *m);

struct diskquota_report {
	struct diskquota quotas[3];
	size_t n;
	struct diskquota_mount mount;
	const char *source;    /* static: "quotactl", "Q_XGETQUOTA", "lfs quota", or NULL */
	struct strbuf unknown; /* why (some) quotas could not be read; empty = none missing */
};

void diskquota_report_init(struct diskquota_report *r);
void diskquota_report_release(struct diskquota_report *r);

/* What the sources call; diskquota_system is the real one. */
struct diskquota_sys {
	/* as quotactl(2): 0, or -1 with errno */
	int (*quotactl)(int cmd, const char *special, int id, char *addr);
	/* as path_which: the program's path (caller frees), or NULL when not in PATH */
	char *(*which)(const char *name);
	/* as proc_run with a timeout */
	int (*run)(struct proc_result *res, const char *const *argv);
	/* the text of /proc/self/mountinfo; 0, or -1 with errno */
	int (*mountinfo)(struct strbuf *out);
	/* the folder's project id (FS_IOC_FSGETXATTR), 0 when it has none or cannot tell */
	uint32_t (*project_of)(const char *dir);
};

extern const struct diskquota_sys diskquota_system;

/* "user", "group" or "project". */
const char *diskquota_kind_name(enum diskquota_kind kind);

/*
 * Finds in mountinfo text the mount that holds path, whose file system has
 * device number major:minor: of the lines with that device, the one whose
 * mount point is the longest prefix of path. Fills *out (caller releases)
 * and returns 0, or returns -1 when no line matches.
 */
int diskquota_parse_mountinfo(struct diskquota_mount *out, const char *text, unsigned major,
                              unsigned minor, const char *path);

/*
 * Reads one quota from `lfs quota -q` output (the mount point, on its own
 * line when it is long, then kbytes, quota, limit, grace, files...; "*"
 * after an exceeded figure, "[n]" around an inaccurate one). Sets used,
 * soft, hard and grace of *out; returns 0, or -1 when the text has no
 * such line.
 */
int diskquota_parse_lfs(struct diskquota *out, const char *text);

/*
 * lfs's grace column: "-" (not over: 0), "none" (ran out: -1), or a time
 * such as "6d23h59m58s" or "1w" (its seconds). Returns -2 when unreadable.
 */
int64_t diskquota_parse_grace(const char *s);

/* The quotactl sources (Q_GETQUOTA, or Q_XGETQUOTA when xfs is set) for the device in r->mount. */
void diskquota_from_quotactl(struct diskquota_report *r, const struct diskquota_ids *ids, int xfs,
                             const struct diskquota_sys *sys);

/* The Lustre source: lfs quota on r->mount's mount point. */
void diskquota_from_lfs(struct diskquota_report *r, const struct diskquota_ids *ids,
                        const struct diskquota_sys *sys);

/*
 * The quotas that govern new files in dir (an existing folder). Returns 0
 * with *out filled (out->n quotas; out->unknown says what could not be
 * read, and why), or an error when dir cannot be examined at all.
 */
int diskquota_read(struct diskquota_report *out, const char *dir, const struct diskquota_sys *sys);

#endif
