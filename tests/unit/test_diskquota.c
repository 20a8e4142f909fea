#define _DEFAULT_SOURCE /* quotactl's constants, major/minor */
#include "diskquota.h"

#include <errno.h>
#include <linux/dqblk_xfs.h>
#include <sys/quota.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>

#include "helpers.h"

#include "banned.h"

/*
 * The sources answer as the recorded system does: quotactl(2) answers per
 * quota type (an errno, or figures), lfs prints the files of
 * tests/data/quota/, and the mount table is text.
 */
struct fake_answer {
	int err; /* errno to fail with, 0 = answer */
	uint64_t used_kb, soft_kb, hard_kb;
	int64_t grace_s; /* the soft limit's grace ends this many seconds from now; 0 = not over */
};

static struct fake {
	struct fake_answer q[3]; /* by USRQUOTA, GRPQUOTA, PRJQUOTA */
	int calls, last_cmd, last_id[3];
	char last_dev[64];
	const char *lfs_path;    /* NULL = lfs is not installed */
	const char *lfs_file[3]; /* the recorded stdout per -u, -g, -p */
	const char *lfs_err[3];  /* stderr, and exit status 1, instead */
	int run_fails;
	char lfs_args[3][128];
	const char *mountinfo; /* NULL = cannot read */
	uint32_t projid;
} fake;

static int fake_quotactl(int cmd, const char *special, int id, char *addr)
{
	int type = cmd & SUBCMDMASK, sub = (int)((unsigned)cmd >> SUBCMDSHIFT);
	const struct fake_answer *a = &fake.q[type];

	fake.calls++;
	fake.last_cmd = sub;
	fake.last_id[type] = id;
	snprintf(fake.last_dev, sizeof(fake.last_dev), "%s", special);
	if (a->err) {
		errno = a->err;
		return -1;
	}
	if (sub == Q_XGETQUOTA) {
		struct fs_disk_quota *d = (struct fs_disk_quota *)addr;

		d->d_bcount = a->used_kb * 2;
		d->d_blk_softlimit = a->soft_kb * 2;
		d->d_blk_hardlimit = a->hard_kb * 2;
		d->d_btimer = a->grace_s ? (int32_t)(time(NULL) + a->grace_s) : 0;
	} else {
		struct if_dqblk *d = (struct if_dqblk *)addr;

		assert_int_equal(sub, Q_GETQUOTA);
		d->dqb_curspace = a->used_kb * 1024;
		d->dqb_bsoftlimit = a->soft_kb;
		d->dqb_bhardlimit = a->hard_kb;
		d->dqb_btime = a->grace_s ? (uint64_t)(time(NULL) + a->grace_s) : 0;
	}
	return 0;
}

static char *fake_which(const char *name)
{
	assert_string_equal(name, "lfs");
	return fake.lfs_path ? xstrdup(fake.lfs_path) : NULL;
}

static int fake_run(struct proc_result *res, const char *const *argv)
{
	int k = !strcmp(argv[3], "-u") ? 0 : !strcmp(argv[3], "-g") ? 1 : 2;
	char *path;

	snprintf(fake.lfs_args[k], sizeof(fake.lfs_args[k]), "%s %s %s %s %s %s", argv[0], argv[1],
	         argv[2], argv[3], argv[4], argv[5]);
	if (fake.run_fails)
		return error("cannot run '%s': %s", argv[0], strerror(EACCES));
	res->exited = 1;
	if (fake.lfs_err[k]) {
		res->status = 1;
		strbuf_addstr(&res->err, fake.lfs_err[k]);
		return 0;
	}
	path = xstrfmt("%s/quota/%s", SWEEP_TEST_DATA, fake.lfs_file[k]);
	assert_int_equal(strbuf_read_file(&res->out, path), 0);
	free(path);
	return 0;
}

static int fake_mountinfo(struct strbuf *out)
{
	if (!fake.mountinfo) {
		errno = EACCES;
		return -1;
	}
	strbuf_addstr(out, fake.mountinfo);
	return 0;
}

static uint32_t fake_project_of(const char *dir)
{
	(void)dir;
	return fake.projid;
}

static const struct diskquota_sys fake_sys = {
    .quotactl = fake_quotactl,
    .which = fake_which,
    .run = fake_run,
    .mountinfo = fake_mountinfo,
    .project_of = fake_project_of,
};

static char *recorded(const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = xstrfmt("%s/quota/%s", SWEEP_TEST_DATA, name);

	assert_int_equal(strbuf_read_file(&sb, path), 0);
	free(path);
	return strbuf_detach(&sb, NULL);
}

static int reset(void **state)
{
	(void)state;
	memset(&fake, 0, sizeof(fake));
	return 0;
}

/* A report on mount point/device, as diskquota_read makes it after the mount table. */
static void report_on(struct diskquota_report *r, const char *point, const char *fstype,
                      const char *source)
{
	diskquota_report_init(r);
	r->mount.point = xstrdup(point);
	r->mount.fstype = xstrdup(fstype);
	r->mount.source = xstrdup(source);
}

static void test_diskquota_mountinfo(void **state)
{
	static const struct {
		unsigned major, minor;
		const char *path, *point, *fstype, *source;
	} cases[] = {
	    {8, 1, "/home2/x", "/", "ext4", "/dev/root"},
	    {8, 17, "/home/ann/ckpt", "/home", "ext4", "/dev/sdb1"},
	    /* a bind mount of the same device: the mount that holds the path */
	    {8, 17, "/data set/run", "/data set", "ext4", "/dev/sdb1"},
	    {253, 2, "/work", "/work", "xfs", "/dev/mapper/vg0-work"},
	    {0, 48, "/scratch/ann", "/scratch", "lustre", "10.0.0.1@o2ib:10.0.0.2@o2ib:/scratch"},
	    {0, 50, "/nfs/home/ann", "/nfs/home", "nfs4", "fs01:/export/home"},
	};
	char *text = recorded("mountinfo.txt");
	struct diskquota_mount m;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(diskquota_parse_mountinfo(&m, text, cases[i].major, cases[i].minor,
		                                           cases[i].path),
		                 0);
		assert_string_equal(m.point, cases[i].point);
		assert_string_equal(m.fstype, cases[i].fstype);
		assert_string_equal(m.source, cases[i].source);
		diskquota_mount_release(&m);
	}
	/* "/homework" is not under "/home"; an unknown device is no mount */
	assert_int_equal(diskquota_parse_mountinfo(&m, text, 8, 17, "/homework"), -1);
	assert_int_equal(diskquota_parse_mountinfo(&m, text, 9, 9, "/"), -1);
	assert_int_equal(diskquota_parse_mountinfo(&m, "garbage\n\n1 2\n", 8, 1, "/"), -1);
	free(text);
}

static void test_diskquota_quotactl_ext4(void **state)
{
	struct diskquota_ids ids = {1000, 100, 42};
	struct diskquota_report r;

	(void)state;
	fake.q[USRQUOTA] = (struct fake_answer){0, 8 << 20, 10 << 20, 12 << 20, 0};
	fake.q[GRPQUOTA].err = ESRCH; /* no group quotas on this file system */
	fake.q[PRJQUOTA] = (struct fake_answer){0, 3 << 20, 0, 2 << 20, 0};
	report_on(&r, "/home", "ext4", "/dev/sdb1");
	diskquota_from_quotactl(&r, &ids, 0, &fake_sys);
	assert_string_equal(r.source, "quotactl");
	assert_string_equal(fake.last_dev, "/dev/sdb1");
	assert_int_equal(fake.last_cmd, Q_GETQUOTA);
	assert_int_equal(fake.last_id[USRQUOTA], 1000);
	assert_int_equal(fake.last_id[GRPQUOTA], 100);
	assert_int_equal(fake.last_id[PRJQUOTA], 42);
	assert_string_equal(r.unknown.buf, "");
	assert_int_equal(r.n, 2);
	assert_int_equal(r.quotas[0].kind, DISKQUOTA_USER);
	assert_true(r.quotas[0].used == (uint64_t)8 << 30);
	assert_true(r.quotas[0].soft == (uint64_t)10 << 30);
	assert_true(r.quotas[0].hard == (uint64_t)12 << 30);
	assert_int_equal(r.quotas[0].grace, 0);
	assert_int_equal(r.quotas[1].kind, DISKQUOTA_PROJECT);
	assert_int_equal(r.quotas[1].id, 42);
	assert_true(r.quotas[1].hard == (uint64_t)2 << 30);
	diskquota_report_release(&r);

	/* no project id: no project quota asked; a quota without limits is no limit */
	reset(NULL);
	ids.projid = 0;
	fake.q[USRQUOTA] = (struct fake_answer){0, 5, 0, 0, 0};
	fake.q[GRPQUOTA] = (struct fake_answer){0, 150, 100, 200, 3600};
	report_on(&r, "/home", "ext4", "/dev/sdb1");
	diskquota_from_quotactl(&r, &ids, 0, &fake_sys);
	assert_int_equal(fake.calls, 2);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.quotas[0].kind, DISKQUOTA_GROUP);
	assert_true(r.quotas[0].grace > 3500 && r.quotas[0].grace <= 3600);
	diskquota_report_release(&r);
}

static void test_diskquota_quotactl_xfs(void **state)
{
	struct diskquota_ids ids = {1000, 100, 7};
	struct diskquota_report r;

	(void)state;
	fake.q[USRQUOTA] = (struct fake_answer){0, 120, 100, 200, -60}; /* grace ran out */
	fake.q[GRPQUOTA].err = ESRCH;
	fake.q[PRJQUOTA] = (struct fake_answer){0, 1024, 0, 4096, 0};
	report_on(&r, "/work", "xfs", "/dev/mapper/vg0-work");
	diskquota_from_quotactl(&r, &ids, 1, &fake_sys);
	assert_int_equal(fake.last_cmd, Q_XGETQUOTA);
	assert_string_equal(r.source, "Q_XGETQUOTA");
	assert_int_equal(r.n, 2);
	/* basic blocks of 512 bytes */
	assert_int_equal(r.quotas[0].used, 120 * 1024);
	assert_int_equal(r.quotas[0].soft, 100 * 1024);
	assert_int_equal(r.quotas[0].grace, -1);
	assert_int_equal(r.quotas[1].kind, DISKQUOTA_PROJECT);
	assert_int_equal(r.quotas[1].hard, 4096 * 1024);
	diskquota_report_release(&r);
}

static void test_diskquota_quotactl_errnos(void **state)
{
	static const struct {
		int err[3];
		size_t n, calls;
		const char *unknown;
	} cases[] = {
	    /* CONFIG_QUOTA off, as on the test machines: said once, then no more calls */
	    {{ENOSYS, ENOSYS, ENOSYS},
	     0,
	     1,
	     "this kernel has no quota support (quotactl: Function not implemented)"},
	    /* quotas not on for any type: known to have no limit */
	    {{ESRCH, ESRCH, ESRCH}, 0, 3, ""},
	    {{0, EPERM, ESRCH},
	     1,
	     3,
	     "not allowed to read the group quota (id 100) of '/dev/sdb1'"},
	    {{0, EACCES, EIO},
	     1,
	     3,
	     "not allowed to read the group quota (id 100) of '/dev/sdb1'; cannot read the project "
	     "quota (id 9) of '/dev/sdb1': Input/output error"},
	    /* a device the mount table names but this machine (a container) does not have */
	    {{ENOENT, 0, 0},
	     0,
	     1,
	     "cannot read the quotas of '/dev/sdb1' (mounted on '/home'): No such file or "
	     "directory"},
	    {{ENOTBLK, 0, 0},
	     0,
	     1,
	     "cannot read the quotas of '/dev/sdb1' (mounted on '/home'): Block device required"},
	};
	struct diskquota_ids ids = {1000, 100, 9};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct diskquota_report r;

		reset(NULL);
		for (int t = 0; t < 3; t++)
			fake.q[t] = (struct fake_answer){cases[i].err[t], 1, 2, 3, 0};
		report_on(&r, "/home", "ext4", "/dev/sdb1");
		diskquota_from_quotactl(&r, &ids, 0, &fake_sys);
		assert_int_equal(r.n, cases[i].n);
		assert_int_equal(fake.calls, cases[i].calls);
		assert_string_equal(r.unknown.buf, cases[i].unknown);
		diskquota_report_release(&r);
	}
}

static void test_diskquota_parse_grace(void **state)
{
	static const struct {
		const char *text;
		int64_t seconds;
	} cases[] = {
	    {"-", 0},         {"none", -1}, {"6d23h59m58s", 604798},
	    {"1w", 604800},   {"2h", 7200}, {"59s", 59},
	    {"1w2d", 777600}, {"", -2},     {"6x", -2},
	    {"d", -2},        {"12", -2},   {"1h-", -2},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(diskquota_parse_grace(cases[i].text), cases[i].seconds);
}

static void test_diskquota_parse_lfs(void **state)
{
	static const struct {
		const char *file;
		int ret;
		uint64_t used_kb, soft_kb, hard_kb;
		int64_t grace;
	} cases[] = {
	    {"lfs_user_under.txt", 0, 52428800, 104857600, 125829120, 0},
	    /* a long mount point on its own line, over the soft limit in its grace */
	    {"lfs_group_grace.txt", 0, 104962048, 104857600, 125829120, 604798},
	    {"lfs_user_expired.txt", 0, 209715200, 104857600, 209715200, -1},
	    /* some servers did not answer: "[n]" figures, and lfs says so */
	    {"lfs_project_inaccurate.txt", 0, 73400320, 0, 83886080, 0},
	    {"lfs_user_nolimit.txt", 0, 0, 0, 0, 0},
	    /* without -q (an lfs that ignores it) */
	    {"lfs_user_titled.txt", 0, 52428800, 104857600, 125829120, 0},
	    {"lfs_old.txt", -1, 0, 0, 0, 0},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = recorded(cases[i].file);
		struct diskquota q = {0};

		assert_int_equal(diskquota_parse_lfs(&q, text), cases[i].ret);
		if (!cases[i].ret) {
			assert_true(q.used == cases[i].used_kb * 1024);
			assert_true(q.soft == cases[i].soft_kb * 1024);
			assert_true(q.hard == cases[i].hard_kb * 1024);
			assert_int_equal(q.grace, cases[i].grace);
		}
		free(text);
	}
	{
		struct diskquota q = {0};

		assert_int_equal(diskquota_parse_lfs(&q, ""), -1);
		assert_int_equal(diskquota_parse_lfs(&q, "  /scratch 12x 0 0 -\n"), -1);
		assert_int_equal(diskquota_parse_lfs(&q, "  /scratch 12 0 0 soon\n"), -1);
	}
}

static void test_diskquota_lfs_source(void **state)
{
	struct diskquota_ids ids = {1000, 100, 5};
	struct diskquota_report r;

	(void)state;
	fake.lfs_path = "/usr/bin/lfs";
	fake.lfs_file[0] = "lfs_user_under.txt";
	fake.lfs_file[1] = "lfs_group_grace.txt";
	fake.lfs_file[2] = "lfs_project_inaccurate.txt";
	report_on(&r, "/scratch", "lustre", "10.0.0.1@o2ib:/scratch");
	diskquota_from_lfs(&r, &ids, &fake_sys);
	assert_string_equal(fake.lfs_args[0], "/usr/bin/lfs quota -q -u 1000 /scratch");
	assert_string_equal(fake.lfs_args[1], "/usr/bin/lfs quota -q -g 100 /scratch");
	assert_string_equal(fake.lfs_args[2], "/usr/bin/lfs quota -q -p 5 /scratch");
	assert_string_equal(r.source, "lfs quota");
	assert_string_equal(r.unknown.buf, "");
	assert_int_equal(r.n, 3);
	assert_int_equal(r.quotas[1].kind, DISKQUOTA_GROUP);
	assert_int_equal(r.quotas[1].grace, 604798);
	diskquota_report_release(&r);

	/* not enabled: no limit; refused, unreadable: said */
	reset(NULL);
	ids.projid = 0;
	fake.lfs_path = "/usr/bin/lfs";
	fake.lfs_err[0] = "user quotas are not enabled.\n";
	fake.lfs_err[1] = "Permission denied.\nmore\n";
	report_on(&r, "/scratch", "lustre", "10.0.0.1@o2ib:/scratch");
	diskquota_from_lfs(&r, &ids, &fake_sys);
	assert_int_equal(r.n, 0);
	assert_string_equal(r.unknown.buf, "'lfs quota -g 100' failed: Permission denied.");
	diskquota_report_release(&r);

	reset(NULL);
	fake.lfs_path = "/usr/bin/lfs";
	fake.lfs_file[0] = "lfs_old.txt";
	fake.lfs_file[1] = "lfs_user_nolimit.txt";
	report_on(&r, "/scratch", "lustre", "10.0.0.1@o2ib:/scratch");
	diskquota_from_lfs(&r, &ids, &fake_sys);
	assert_int_equal(r.n, 0);
	assert_string_equal(r.unknown.buf, "cannot read the output of 'lfs quota -u 1000': 'lfs "
	                                   "quota: unrecognized option -- q'");
	diskquota_report_release(&r);

	reset(NULL);
	report_on(&r, "/scratch", "lustre", "10.0.0.1@o2ib:/scratch");
	diskquota_from_lfs(&r, &ids, &fake_sys);
	assert_string_equal(r.unknown.buf, "'/scratch' is Lustre but 'lfs' is not in PATH");
	diskquota_report_release(&r);

	reset(NULL);
	fake.lfs_path = "/usr/bin/lfs";
	fake.run_fails = 1;
	capture_errors();
	report_on(&r, "/scratch", "lustre", "10.0.0.1@o2ib:/scratch");
	diskquota_from_lfs(&r, &ids, &fake_sys);
	assert_string_equal(r.unknown.buf, "cannot run '/usr/bin/lfs': Permission denied");
	release_captured();
	diskquota_report_release(&r);
}

/* A mount table whose one line is dir's file system, of type fstype. */
static char *table_for(const char *dir, const char *fstype, const char *source)
{
	struct stat st;

	assert_int_equal(stat(dir, &st), 0);
	return xstrfmt("22 1 %u:%u / / rw - %s %s rw\n", major(st.st_dev), minor(st.st_dev), fstype,
	               source);
}

static void test_diskquota_read(void **state)
{
	char *dir = make_tmpdir(), *table;
	struct diskquota_report r;

	(void)state;
	/* what the file system type picks */
	table = table_for(dir, "tmpfs", "tmpfs");
	fake.mountinfo = table;
	diskquota_report_init(&r);
	assert_int_equal(diskquota_read(&r, dir, &fake_sys), 0);
	assert_int_equal(fake.calls, 0);
	assert_string_equal(r.unknown.buf,
	                    "sweep reads the quotas of ext4, XFS and Lustre, and '/' is tmpfs");
	diskquota_report_release(&r);
	free(table);

	table = table_for(dir, "ext4", "/dev/sda1");
	fake.mountinfo = table;
	fake.q[USRQUOTA].err = ENOSYS;
	diskquota_report_init(&r);
	assert_int_equal(diskquota_read(&r, dir, &fake_sys), 0);
	assert_string_equal(fake.last_dev, "/dev/sda1");
	assert_int_equal(fake.last_id[USRQUOTA], (int)geteuid());
	assert_string_equal(
	    r.unknown.buf, "this kernel has no quota support (quotactl: Function not implemented)");
	diskquota_report_release(&r);
	free(table);

	table = table_for(dir, "xfs", "/dev/sdc");
	fake.mountinfo = table;
	fake.q[USRQUOTA].err = ESRCH;
	fake.q[GRPQUOTA].err = ESRCH;
	diskquota_report_init(&r);
	assert_int_equal(diskquota_read(&r, dir, &fake_sys), 0);
	assert_int_equal(fake.last_cmd, Q_XGETQUOTA);
	assert_int_equal(r.n, 0);
	assert_string_equal(r.unknown.buf, "");
	diskquota_report_release(&r);
	free(table);

	/* a device that is in no line */
	fake.mountinfo = "22 1 4095:4095 / / rw - ext4 /dev/x rw\n";
	diskquota_report_init(&r);
	assert_int_equal(diskquota_read(&r, dir, &fake_sys), 0);
	assert_non_null(strstr(r.unknown.buf, "' in /proc/self/mountinfo"));
	assert_memory_equal(r.unknown.buf, "no mount of '/", 14);
	diskquota_report_release(&r);

	fake.mountinfo = NULL;
	diskquota_report_init(&r);
	assert_int_equal(diskquota_read(&r, dir, &fake_sys), 0);
	assert_string_equal(r.unknown.buf, "cannot read /proc/self/mountinfo: Permission denied");
	diskquota_report_release(&r);

	capture_errors();
	diskquota_report_init(&r);
	assert_int_equal(diskquota_read(&r, "/nonexistent/folder", &fake_sys), SWEEP_ERR);
	assert_string_equal(captured.buf, "error: cannot read the quota of '/nonexistent/folder': "
	                                  "No such file or directory");
	diskquota_report_release(&r);
	release_captured();

	/* the real system on this machine: a kernel without quotas or a file system sweep cannot
	 * ask */
	diskquota_report_init(&r);
	assert_int_equal(diskquota_read(&r, dir, &diskquota_system), 0);
	assert_non_null(r.mount.fstype);
	diskquota_report_release(&r);
	remove_tree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(test_diskquota_mountinfo, reset),
	    cmocka_unit_test_setup(test_diskquota_quotactl_ext4, reset),
	    cmocka_unit_test_setup(test_diskquota_quotactl_xfs, reset),
	    cmocka_unit_test_setup(test_diskquota_quotactl_errnos, reset),
	    cmocka_unit_test_setup(test_diskquota_parse_grace, reset),
	    cmocka_unit_test_setup(test_diskquota_parse_lfs, reset),
	    cmocka_unit_test_setup(test_diskquota_lfs_source, reset),
	    cmocka_unit_test_setup(test_diskquota_read, reset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
