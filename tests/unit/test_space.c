#define _DEFAULT_SOURCE /* quotactl's struct, major/minor */
#include "space.h"

#include <errno.h>
#include <sys/quota.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>

#include "helpers.h"

#include "banned.h"

/* The system as seen by the checks: one quota, on an ext4 that holds every folder. */
static struct diskquota fake_quota;
static int fake_has_quota;

static int fake_quotactl(int cmd, const char *special, int id, char *addr)
{
	(void)cmd;
	(void)special;
	(void)id;
	(void)addr;
	errno = ESRCH;
	return -1;
}

static char *fake_which(const char *name)
{
	(void)name;
	return NULL;
}

static int fake_run(struct proc_result *res, const char *const *argv)
{
	(void)res;
	(void)argv;
	return -1;
}

static int fake_mountinfo(struct strbuf *out)
{
	(void)out;
	errno = EIO;
	return -1;
}

static uint32_t fake_project_of(const char *dir)
{
	(void)dir;
	return 0;
}

static const struct diskquota_sys no_quota_sys = {
    fake_quotactl, fake_which, fake_run, fake_mountinfo, fake_project_of,
};

static void test_space_needed_arithmetic(void **state)
{
	(void)state;
	/* the throttle bounds the tasks at once */
	assert_int_equal(space_needed_mb(100, 10, 2048, 3), 10 * 2048 * 3);
	/* without a throttle, every task may run at once */
	assert_int_equal(space_needed_mb(7, 0, 100, 2), 7 * 100 * 2);
	/* a throttle above the task count changes nothing */
	assert_int_equal(space_needed_mb(4, 50, 10, 1), 40);
	/* saturates rather than wrapping */
	assert_true(space_needed_mb(SIZE_MAX, 0, UINT64_MAX / 2, 3) == UINT64_MAX);
}

static void test_space_fits_takes_the_tightest(void **state)
{
	struct diskquota q[3] = {
	    {DISKQUOTA_USER, 1000, 80, 100, 120, 0},  /* soft limit counts: 20 left */
	    {DISKQUOTA_GROUP, 100, 10, 0, 50, 0},     /* hard only: 40 left */
	    {DISKQUOTA_PROJECT, 7, 500, 400, 600, -1} /* over its soft limit: none left */
	};
	struct space_fit fit;

	(void)state;
	assert_int_equal(space_quota_left(&q[0]), 20);
	assert_int_equal(space_quota_left(&q[1]), 40);
	assert_int_equal(space_quota_left(&q[2]), 0);
	assert_true(space_quota_left(&(struct diskquota){DISKQUOTA_USER, 0, 5, 0, 0, 0}) ==
	            UINT64_MAX);
	/* no quota: free space decides */
	assert_int_equal(space_fits(&fit, 30, 30, NULL, 0), 1);
	assert_null(fit.by);
	assert_int_equal(space_fits(&fit, 31, 30, NULL, 0), 0);
	/* plenty free, the user's quota nearly full */
	assert_int_equal(space_fits(&fit, 21, 1000000, q, 2), 0);
	assert_ptr_equal(fit.by, &q[0]);
	assert_int_equal(fit.left, 20);
	assert_int_equal(space_fits(&fit, 20, 1000000, q, 2), 1);
	/* free space tighter than the quotas */
	assert_int_equal(space_fits(&fit, 20, 15, q, 2), 0);
	assert_null(fit.by);
	assert_int_equal(space_fits(&fit, 0, 15, q, 3), 1);
	assert_ptr_equal(fit.by, &q[2]);
}

static void test_space_checkpoint_root(void **state)
{
	char *dir = make_tmpdir(), *sub = xstrfmt("%s/runs", dir), *got, *tmpl;

	(void)state;
	assert_int_equal(mkdir(sub, 0700), 0);
	/* default: the tasks' folder, or its nearest existing parent */
	got = space_checkpoint_root(NULL, "/", sub);
	assert_string_equal(got, sub);
	free(got);
	tmpl = xstrfmt("%s/not/yet", sub);
	got = space_checkpoint_root(NULL, "/", tmpl);
	assert_string_equal(got, sub);
	free(got);
	free(tmpl);
	/* the folder before the first placeholder */
	tmpl = xstrfmt("%s/lr{lr}/{seed}", sub);
	got = space_checkpoint_root(tmpl, "/", "/nowhere");
	assert_string_equal(got, sub);
	free(got);
	free(tmpl);
	/* relative to the submit folder */
	got = space_checkpoint_root("runs/{index}", dir, "/nowhere");
	assert_string_equal(got, sub);
	free(got);
	got = space_checkpoint_root("{index}/ckpt", sub, "/nowhere");
	assert_string_equal(got, sub);
	free(got);
	got = space_checkpoint_root("/nonexistent-top/{index}", sub, "/nowhere");
	assert_string_equal(got, "/");
	free(got);
	/* node-local: not for submit */
	assert_null(space_checkpoint_root("{stage}/ckpt/{index}", sub, "/nowhere"));
	remove_tree(dir);
	free(sub);
	free(dir);
}

static void test_space_check_passes_and_refuses(void **state)
{
	char *dir = make_tmpdir();
	char *expect_start;

	(void)state;
	assert_int_equal(space_check(dir, 1, 1, 1, 1, &no_quota_sys, NULL), 0);
	capture_errors();
	/* an exabyte is more than any test machine has */
	assert_int_equal(
	    space_check(dir, (uint64_t)1 << 40, 1000, (uint64_t)1 << 30, 1024, &no_quota_sys, NULL),
	    SWEEP_ERR);
	expect_start = xstrfmt("error: checkpoints need up to 1E (1000 tasks at once x 1024T x "
	                       "1024 kept) in '%s', which has ",
	                       dir);
	assert_memory_equal(captured.buf, expect_start, strlen(expect_start));
	assert_non_null(strstr(captured.buf, " free; lower 'checkpoint.keep' or "
	                                     "'slurm.max_concurrent', or free space"));
	strbuf_reset(&captured);
	assert_int_equal(space_check("/nonexistent/folder", 1, 1, 1, 1, &no_quota_sys, NULL),
	                 SWEEP_ERR);
	assert_string_equal(captured.buf, "error: cannot read the free space of "
	                                  "'/nonexistent/folder': No such file or directory");
	release_captured();
	free(expect_start);
	remove_tree(dir);
	free(dir);
}

/* quotactl answering for the user with fake_quota, as an ext4 with usrquota would. */
static int quota_quotactl(int cmd, const char *special, int id, char *addr)
{
	struct if_dqblk *d = (struct if_dqblk *)addr;

	(void)special;
	(void)id;
	if ((cmd & SUBCMDMASK) != USRQUOTA || !fake_has_quota) {
		errno = ESRCH;
		return -1;
	}
	d->dqb_bhardlimit = fake_quota.hard / 1024;
	d->dqb_bsoftlimit = fake_quota.soft / 1024;
	d->dqb_curspace = fake_quota.used;
	d->dqb_btime = fake_quota.grace > 0 ? (uint64_t)time(NULL) + (uint64_t)fake_quota.grace : 0;
	return 0;
}

static char *mount_table;

static int quota_mountinfo(struct strbuf *out)
{
	strbuf_addstr(out, mount_table);
	return 0;
}

static const struct diskquota_sys quota_sys = {
    quota_quotactl, fake_which, fake_run, quota_mountinfo, fake_project_of,
};

/* What was written to f, an open_memstream over *buf (closed here). */
static char *read_stream(char **buf, FILE *f)
{
	assert_int_equal(fclose(f), 0);
	return *buf;
}

static void test_space_check_quota(void **state)
{
	char *dir = make_tmpdir(), *expect, *buf = NULL, *shown;
	size_t len = 0;
	struct stat st;
	FILE *f;

	(void)state;
	assert_int_equal(stat(dir, &st), 0);
	mount_table = xstrfmt("22 1 %u:%u / / rw - ext4 /dev/sdb1 rw,usrquota\n", major(st.st_dev),
	                      minor(st.st_dev));
	/* 9.5G used of a 10G soft limit: 512M left, whatever the disk has free */
	fake_has_quota = 1;
	fake_quota = (struct diskquota){
	    DISKQUOTA_USER, 0, (uint64_t)19 << 29, (uint64_t)10 << 30, (uint64_t)12 << 30, 0};
	capture_errors();
	f = open_memstream(&buf, &len);
	assert_int_equal(space_check(dir, 3 * 200 * 2, 3, 200, 2, &quota_sys, f), SWEEP_ERR);
	shown = read_stream(&buf, f);
	expect =
	    xstrfmt("error: checkpoints need up to 1.2G (3 tasks at once x 200M x 2 kept) in "
	            "'%s', but on '/' the user quota (id %u) has 9.5G used of a 10G limit "
	            "(hard 12G), grace not running, which leaves 512M; lower 'checkpoint.keep' or "
	            "'slurm.max_concurrent', or free space under that quota",
	            dir, (unsigned)geteuid());
	assert_string_equal(captured.buf, expect);
	free(expect);
	assert_non_null(strstr(shown, "# checkpoint space: up to 1.2G (3 tasks at once x 200M x 2 "
	                              "kept) in '"));
	assert_non_null(strstr(shown, " (ext4 '/dev/sdb1' on '/')\n#   free space: "));
	assert_non_null(strstr(shown, "#   the user quota (id "));
	assert_non_null(strstr(shown, ") has 9.5G used of a 10G limit (hard 12G), grace not "
	                              "running (quotactl): 512M left\n#   does not fit: 512M left "
	                              "by user quota\n"));
	free(shown);

	/* over the soft limit, in its grace */
	strbuf_reset(&captured);
	fake_quota.used = (uint64_t)11 << 30;
	fake_quota.grace = 86400 + 3600;
	assert_int_equal(space_check(dir, 1, 1, 1, 1, &quota_sys, NULL), SWEEP_ERR);
	assert_non_null(strstr(captured.buf, "has 11G used of a 10G limit (hard 12G), over it "
	                                     "with 1-0"));
	assert_non_null(strstr(captured.buf, " of grace left, which leaves 0; "));
	release_captured();

	/* fits: the check shown, nothing said */
	fake_quota.used = 0;
	fake_quota.grace = 0;
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_int_equal(space_check(dir, 1, 1, 1, 1, &quota_sys, f), 0);
	shown = read_stream(&buf, f);
	assert_non_null(strstr(shown, "#   fits: "));
	free(shown);

	/* no quota on the file system, and unknown */
	fake_has_quota = 0;
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_int_equal(space_check(dir, 1, 1, 1, 1, &quota_sys, f), 0);
	assert_int_equal(space_check(dir, 1, 1, 1, 1, &no_quota_sys, f), 0);
	shown = read_stream(&buf, f);
	assert_non_null(strstr(shown, "#   no user, group or project limit on '/dev/sdb1' "
	                              "(quotactl)\n#   fits: "));
	assert_non_null(strstr(shown, "#   quota unknown: cannot read /proc/self/mountinfo: "
	                              "Input/output error\n#   fits: "));
	free(shown);
	free(mount_table);
	remove_tree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_space_needed_arithmetic),
	    cmocka_unit_test(test_space_fits_takes_the_tightest),
	    cmocka_unit_test(test_space_checkpoint_root),
	    cmocka_unit_test(test_space_check_passes_and_refuses),
	    cmocka_unit_test(test_space_check_quota),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
