/*
 * GPU selection from recorded nvidia-smi output (tests/data/nvidia-smi/,
 * CASE.gpus.csv and CASE.apps.csv, as the two queries of gpu.h print
 * them): busy GPUs, idle-looking GPUs short of memory, uuids in another
 * order than the indices, mixed models, output nvidia-smi could not
 * finish, no GPU at all.
 */
#define _DEFAULT_SOURCE /* syscall */
#include "gpu.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "helpers.h"

#include "banned.h"

static char *recorded(const char *name, const char *kind)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = xstrfmt("%s/nvidia-smi/%s.%s.csv", SWEEP_TEST_DATA, name, kind);

	if (strbuf_read_file(&sb, path) < 0)
		fail_msg("cannot read the fixture '%s'", path);
	free(path);
	return strbuf_detach(&sb, NULL);
}

/* Parses a recorded case; returns what gpu_parse returned. */
static int parse_case(struct gpu_set *set, const char *name)
{
	char *gpus = recorded(name, "gpus"), *apps = recorded(name, "apps");
	int ret;

	gpu_set_init(set);
	ret = gpu_parse(set, gpus, apps);
	free(gpus);
	free(apps);
	return ret;
}

static char *free_list(const struct gpu_set *set)
{
	struct strbuf sb = STRBUF_INIT;

	gpu_free_list(&sb, set);
	return strbuf_detach(&sb, NULL);
}

static int setup(void **state)
{
	(void)state;
	capture_errors();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	release_captured();
	return 0;
}

static void test_gpu_busy_one_of_four(void **state)
{
	struct gpu_set set;
	char *ids;

	(void)state;
	assert_int_equal(parse_case(&set, "a100x4-one-busy"), 0);
	assert_int_equal(set.ngpus, 4);
	assert_string_equal(set.gpus[1].name, "NVIDIA A100-SXM4-80GB");
	assert_int_equal(set.gpus[1].used_mib, 31257);
	assert_int_equal(set.gpus[1].total_mib, 81920);
	assert_int_equal(set.nprocs, 1);
	assert_int_equal(set.procs[0].pid, 2871446);
	assert_int_equal(set.procs[0].gpu, 1);
	assert_int_equal(gpu_select(&set, 0), 3);
	assert_int_equal(set.gpus[1].verdict, GPU_BUSY);
	ids = free_list(&set);
	assert_string_equal(ids, "0,2,3");
	free(ids);
	gpu_set_release(&set);
}

/* The process list names GPUs by uuid; two processes on one GPU count once for it. */
static void test_gpu_joined_by_uuid(void **state)
{
	struct gpu_set set;
	char *ids;

	(void)state;
	assert_int_equal(parse_case(&set, "v100x8-mixed-load"), 0);
	assert_int_equal(set.ngpus, 8);
	assert_int_equal(set.nprocs, 3);
	assert_int_equal(set.procs[0].gpu, 5);
	assert_int_equal(set.procs[1].gpu, 2);
	assert_int_equal(set.procs[2].gpu, 5);
	assert_int_equal(set.gpus[5].nprocs, 2);
	assert_int_equal(set.gpus[2].nprocs, 1);
	assert_int_equal(gpu_select(&set, 0), 5);
	assert_int_equal(set.gpus[2].verdict, GPU_BUSY);
	assert_int_equal(set.gpus[5].verdict, GPU_BUSY);
	/* No process, but 9 of 16 GB in use (another container's): not free. */
	assert_int_equal(set.gpus[6].verdict, GPU_LOW_MEMORY);
	ids = free_list(&set);
	assert_string_equal(ids, "0,1,3,4,7");
	free(ids);
	gpu_set_release(&set);
}

/* --min-free decides for GPUs with no process; it never makes a busy GPU free. */
static void test_gpu_min_free(void **state)
{
	struct gpu_set set;
	char *ids;

	(void)state;
	assert_int_equal(parse_case(&set, "v100x8-mixed-load"), 0);
	assert_int_equal(gpu_select(&set, 7000), 6);
	assert_int_equal(set.gpus[6].verdict, GPU_FREE);
	assert_int_equal(set.gpus[2].verdict, GPU_BUSY);
	assert_int_equal(gpu_select(&set, 16161), 0);
	assert_int_equal(set.gpus[0].verdict, GPU_LOW_MEMORY);
	ids = free_list(&set);
	assert_string_equal(ids, "");
	free(ids);
	assert_int_equal(gpu_min_free_mib(&set.gpus[0], 0), 14544); /* 90% of 16160 MiB */
	gpu_set_release(&set);
}

/* Mixed models; uuids sort in another order than the indices; Xorg's memory is not a process. */
static void test_gpu_mixed_models(void **state)
{
	struct gpu_set set;
	char *ids;

	(void)state;
	assert_int_equal(parse_case(&set, "mixed-workstation"), 0);
	assert_int_equal(set.ngpus, 3);
	assert_string_equal(set.gpus[0].name, "NVIDIA GeForce RTX 3090");
	assert_string_equal(set.gpus[1].name, "NVIDIA RTX A6000");
	assert_string_equal(set.gpus[2].name, "Tesla T4");
	assert_int_equal(set.procs[0].gpu, 2);
	assert_int_equal(gpu_select(&set, 0), 2);
	ids = free_list(&set);
	assert_string_equal(ids, "0,1");
	free(ids);
	/* 20G free asked: the 3090 (24G) and the A6000 (48G) have it. */
	assert_int_equal(gpu_select(&set, 20 * 1024), 2);
	assert_int_equal(gpu_select(&set, 30 * 1024), 1);
	assert_int_equal(set.gpus[1].verdict, GPU_FREE);
	gpu_set_release(&set);
}

/* Lines out of index order are sorted; processes still find their GPU by uuid. */
static void test_gpu_index_order(void **state)
{
	static const char gpus[] = "2, GPU-aaa, Tesla T4, 0, 15360\n"
	                           "0, GPU-ccc, Tesla T4, 0, 15360\n"
	                           "1, GPU-bbb, Tesla T4, 0, 15360\n";
	static const char apps[] = "GPU-aaa, 77, 100\n";
	struct gpu_set set;
	char *ids;

	(void)state;
	gpu_set_init(&set);
	assert_int_equal(gpu_parse(&set, gpus, apps), 0);
	assert_int_equal(set.gpus[0].index, 0);
	assert_string_equal(set.gpus[0].uuid, "GPU-ccc");
	assert_int_equal(set.gpus[2].index, 2);
	assert_int_equal(set.procs[0].gpu, 2);
	gpu_select(&set, 0);
	ids = free_list(&set);
	assert_string_equal(ids, "0,1");
	free(ids);
	gpu_set_release(&set);
}

static void test_gpu_not_supported(void **state)
{
	struct gpu_set set;

	(void)state;
	assert_int_equal(parse_case(&set, "not-supported"), 0);
	assert_int_equal(set.gpus[0].used_mib, GPU_NO_VALUE);
	assert_int_equal(gpu_select(&set, 0), 1);
	assert_int_equal(set.gpus[0].verdict, GPU_UNKNOWN_MEMORY);
	assert_int_equal(set.gpus[1].verdict, GPU_FREE);
	gpu_set_release(&set);
}

static void test_gpu_empty(void **state)
{
	struct gpu_set set;
	char *ids;

	(void)state;
	assert_int_equal(parse_case(&set, "empty"), 0);
	assert_int_equal(set.ngpus, 0);
	assert_int_equal(gpu_select(&set, 0), 0);
	ids = free_list(&set);
	assert_string_equal(ids, "");
	free(ids);
	gpu_set_release(&set);
	/* Older drivers say "No running processes found" instead of nothing. */
	gpu_set_init(&set);
	assert_int_equal(
	    gpu_parse(&set, "0, GPU-x, Tesla T4, 0, 15360\n", "No running processes found\n"), 0);
	assert_int_equal(set.nprocs, 0);
	gpu_set_release(&set);
	assert_int_equal(captured.len, 0);
}

static void test_gpu_malformed(void **state)
{
	static const struct {
		const char *gpus, *apps, *message;
	} cases[] = {
	    {"0, GPU-a, Tesla T4, 0\n", "",
	     "error: nvidia-smi's GPU list, line 1: expected 'index, uuid, name, memory.used, "
	     "memory.total' (MiB), got '0, GPU-a, Tesla T4, 0'"},
	    {"x, GPU-a, Tesla T4, 0, 15360\n", "", "line 1: expected"},
	    {"0, GPU-a, Tesla T4, 0 MiB, 15360 MiB\n", "", "got '0, GPU-a, Tesla T4, 0 MiB"},
	    {"0, , Tesla T4, 0, 15360\n", "", "line 1: expected"},
	    {"0, GPU-a, T4, 0, 15360\n\n1, GPU-a, T4, 0, 15360\n", "",
	     "error: nvidia-smi's GPU list, line 3: GPU 1 (GPU-a) listed twice"},
	    {"0, GPU-a, T4, 0, 15360\n0, GPU-b, T4, 0, 15360\n", "", "line 2: GPU 0 (GPU-b)"},
	    {"0, GPU-a, T4, 0, 15360\n", "GPU-a, 12, 100, extra\n",
	     "error: nvidia-smi's process list, line 1: expected 'gpu_uuid, pid, used_memory' "
	     "(MiB), got 'GPU-a, 12, 100, extra'"},
	    {"0, GPU-a, T4, 0, 15360\n", "GPU-a, -1, 100\n", "process list, line 1"},
	};
	struct gpu_set set;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		strbuf_reset(&captured);
		gpu_set_init(&set);
		assert_int_equal(gpu_parse(&set, cases[i].gpus, cases[i].apps), SWEEP_ERR);
		if (!strstr(captured.buf, cases[i].message))
			fail_msg("case %zu: '%s' does not contain '%s'", i, captured.buf,
			         cases[i].message);
		assert_int_equal(set.ngpus, 0);
		assert_null(set.gpus);
	}
	/* The recorded ones: output cut short, a pid nvidia-smi could not give. */
	strbuf_reset(&captured);
	assert_int_equal(parse_case(&set, "truncated"), SWEEP_ERR);
	assert_non_null(strstr(captured.buf, "line 2: expected"));
	strbuf_reset(&captured);
	assert_int_equal(parse_case(&set, "bad-pid"), SWEEP_ERR);
	assert_non_null(strstr(captured.buf, "process list, line 1"));
}

/* A name with a comma stays whole: it is what lies between the uuid and the memory. */
static void test_gpu_name_with_comma(void **state)
{
	struct gpu_set set;

	(void)state;
	gpu_set_init(&set);
	assert_int_equal(gpu_parse(&set, "0, GPU-a, Quadro RTX 8000, Rev. B, 10, 46080\r\n", ""),
	                 0);
	assert_string_equal(set.gpus[0].name, "Quadro RTX 8000, Rev. B");
	assert_int_equal(set.gpus[0].total_mib, 46080);
	gpu_set_release(&set);
}

/* A process on a GPU the list does not have (a MIG instance, say) is kept but joined to none. */
static void test_gpu_unknown_uuid(void **state)
{
	struct gpu_set set;

	(void)state;
	gpu_set_init(&set);
	assert_int_equal(gpu_parse(&set, "0, GPU-a, T4, 0, 15360\n", "MIG-zzz, 12, 100\n"), 0);
	assert_int_equal(set.procs[0].gpu, SIZE_MAX);
	assert_int_equal(gpu_select(&set, 0), 1);
	gpu_set_release(&set);
}

/* ---- The locks (gpu_lock): a folder of the test's own, SWEEP_GPU_LOCK_DIR */

/*
 * flock as NFS gives it on a read-only descriptor (an exclusive lock needs
 * write access there) when flock_errno is set; else the kernel's. This
 * definition stands in for libc's in this test program.
 */
static int flock_errno;

int flock(int fd, int op);
int flock(int fd, int op)
{
	if (flock_errno) {
		errno = flock_errno;
		return -1;
	}
	return (int)syscall(SYS_flock, fd, op);
}

#define UUID   "GPU-8a1e6b0c-3d5f"
#define NOBODY 65534 /* another user, for owners and for a lock opened by another */

static char *lock_dir(void)
{
	char *dir = make_tmpdir();

	assert_int_equal(setenv("SWEEP_GPU_LOCK_DIR", dir, 1), 0);
	return dir;
}

static char *lock_path(const char *dir)
{
	return xstrfmt("%s/sweep-gpu-" UUID ".lock", dir);
}

static void done_dir(char *dir)
{
	unsetenv("SWEEP_GPU_LOCK_DIR");
	remove_tree(dir);
	free(dir);
}

/* The warning gpu_lock gives when path "what" (owned by root), refused. */
static void expect_refused(const char *path, const char *what)
{
	char *want = xstrfmt("warning: the GPU lock '%s' %s (owned by user 'root'), not a lock "
	                     "sweep made: the GPU is not used while it is there (only its owner "
	                     "or root can remove it)",
	                     path, what);

	assert_string_equal(captured.buf, want);
	free(want);
	strbuf_reset(&captured);
}

static void test_gpu_lock_made_and_held(void **state)
{
	char *dir = lock_dir(), *path = lock_path(dir);
	mode_t old = umask(077);
	struct stat sb;
	int fd, again;

	(void)state;
	fd = gpu_lock(UUID, true);
	umask(old);
	assert_true(fd >= 0);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 07777,
	                 0644); /* others' runners can open it, whatever umask */
	/* flock: a second open of the same lock, even in this process, is refused. */
	assert_int_equal(gpu_lock(UUID, true), GPU_LOCK_HELD);
	close(fd);
	again = gpu_lock(UUID, true);
	assert_true(again >= 0);
	close(again);
	assert_string_equal(captured.buf, "");
	free(path);
	done_dir(dir);
}

static void test_gpu_lock_refuses_what_was_planted(void **state)
{
	char *dir = lock_dir(), *path = lock_path(dir);
	char *target = xstrfmt("%s/target", dir), *fifo = xstrfmt("%s/fifo", dir);
	struct stat sb;
	FILE *f;

	(void)state;
	f = fopen(target, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(chmod(target, 0600), 0);

	/* A link to a file of the caller's: never followed, its mode never changed. */
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(gpu_lock(UUID, true), GPU_LOCK_UNSAFE);
	expect_refused(path, "is a symbolic link");
	assert_int_equal(stat(target, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0600);
	assert_int_equal(gpu_lock(UUID, false), GPU_LOCK_UNSAFE);
	assert_string_equal(captured.buf, ""); /* said once is enough */
	unlink(path);

	/* A link to nothing: not made through it either. */
	assert_int_equal(symlink(fifo, path), 0);
	assert_int_equal(gpu_lock(UUID, true), GPU_LOCK_UNSAFE);
	expect_refused(path, "is a symbolic link");
	assert_int_equal(lstat(fifo, &sb), -1);
	unlink(path);

	/* A second name of another file. */
	assert_int_equal(link(target, path), 0);
	assert_int_equal(gpu_lock(UUID, true), GPU_LOCK_UNSAFE);
	expect_refused(path, "has 2 names (hard links)");
	unlink(path);

	/* A FIFO (opened without blocking) and a file not every user can read. */
	assert_int_equal(mkfifo(path, 0644), 0);
	assert_int_equal(gpu_lock(UUID, true), GPU_LOCK_UNSAFE);
	expect_refused(path, "is not a regular file");
	unlink(path);
	assert_int_equal(rename(target, path), 0);
	assert_int_equal(gpu_lock(UUID, true), GPU_LOCK_UNSAFE);
	expect_refused(path, "is not readable by every user (mode 0600)");
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0600);

	free(fifo);
	free(target);
	free(path);
	done_dir(dir);
}

/* Another user cannot open a lock it may not read: run as NOBODY in a child. */
static void test_gpu_lock_unreadable_to_another(void **state)
{
	char *dir = lock_dir(), *path = lock_path(dir);
	int pipefd[2], status;
	char buf[1024];
	ssize_t n;
	pid_t pid;
	FILE *f;

	(void)state;
	if (geteuid() != 0)
		skip();
	assert_int_equal(chmod(dir, 0755), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(chmod(path, 0600), 0);
	assert_int_equal(pipe(pipefd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int ret;

		close(pipefd[0]);
		if (setgid(NOBODY) < 0 || setuid(NOBODY) < 0)
			_exit(2);
		ret = gpu_lock(UUID, true);
		if (write(pipefd[1], captured.buf, captured.len) < 0)
			_exit(3);
		_exit(ret == GPU_LOCK_UNSAFE ? 0 : 1);
	}
	close(pipefd[1]);
	n = read(pipefd[0], buf, sizeof(buf) - 1);
	close(pipefd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_true(n > 0);
	buf[n] = '\0';
	strbuf_reset(&captured);
	strbuf_addstr(&captured, buf);
	expect_refused(path, "cannot be read by this user");
	free(path);
	done_dir(dir);
}

static void test_gpu_lock_folder(void **state)
{
	char *dir = lock_dir(), *missing = xstrfmt("%s/nowhere", dir), *want;

	(void)state;
	/* Others may write to it, and it has no sticky bit: they could swap the locks. */
	assert_int_equal(chmod(dir, 0777), 0);
	want = xstrfmt("the GPU lock folder '%s' lets others remove the locks in it (mode 0777, "
	               "no sticky bit); chmod +t it, or use /tmp (SWEEP_GPU_LOCK_DIR)",
	               dir);
	assert_int_equal(gpu_lock_check_dir(), SWEEP_ERR);
	assert_string_equal(captured.buf + strlen("error: "), want);
	strbuf_reset(&captured);
	assert_int_equal(gpu_lock(UUID, true), GPU_LOCK_UNSAFE);
	assert_memory_equal(captured.buf, "warning: ", strlen("warning: "));
	assert_memory_equal(captured.buf + strlen("warning: "), want, strlen(want));
	assert_string_equal(captured.buf + strlen("warning: ") + strlen(want),
	                    "; its GPUs are not used meanwhile");
	strbuf_reset(&captured);
	free(want);
	assert_int_equal(chmod(dir, 01777), 0);
	assert_int_equal(gpu_lock_check_dir(), 0);

	/* Another user's folder. */
	if (geteuid() == 0) {
		assert_int_equal(chown(dir, NOBODY, NOBODY), 0);
		want =
		    xstrfmt("error: the GPU lock folder '%s' belongs to user 'nobody', who could "
		            "replace the locks in it; use one that root owns, such as /tmp "
		            "(SWEEP_GPU_LOCK_DIR)",
		            dir);
		assert_int_equal(gpu_lock_check_dir(), SWEEP_ERR);
		assert_string_equal(captured.buf, want);
		strbuf_reset(&captured);
		free(want);
		assert_int_equal(chown(dir, 0, 0), 0);
	}

	/* No folder: submit says so; a runner uses the GPU unlocked, as before. */
	assert_int_equal(setenv("SWEEP_GPU_LOCK_DIR", missing, 1), 0);
	want = xstrfmt("error: cannot use the GPU lock folder '%s': No such file or directory "
	               "(set SWEEP_GPU_LOCK_DIR to one such as /tmp)",
	               missing);
	assert_int_equal(gpu_lock_check_dir(), SWEEP_ERR);
	assert_string_equal(captured.buf, want);
	strbuf_reset(&captured);
	free(want);
	assert_int_equal(gpu_lock(UUID, true), GPU_LOCK_NONE);
	want = xstrfmt("warning: cannot open the GPU lock folder '%s': No such file or directory; "
	               "using the GPU unlocked",
	               missing);
	assert_string_equal(captured.buf, want);
	strbuf_reset(&captured);
	free(want);

	/* A file where the folder should be. */
	assert_int_equal(setenv("SWEEP_GPU_LOCK_DIR", "/dev/null", 1), 0);
	assert_int_equal(gpu_lock_check_dir(), SWEEP_ERR);
	assert_string_equal(captured.buf, "error: the GPU lock folder '/dev/null' is not a folder "
	                                  "(set SWEEP_GPU_LOCK_DIR to one such as /tmp)");
	free(missing);
	done_dir(dir);
}

/* Runners of older sweeps took a write lock (fcntl) on the same file: they still exclude. */
static void test_gpu_lock_older_runner_and_nfs(void **state)
{
	char *dir = lock_dir(), *path = lock_path(dir), *want;
	int ready[2], stop[2], status, fd;
	char c = 0;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(stop), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct flock fl = {0};
		int old = open(path, O_RDWR | O_CREAT, 0666);

		/* Only the ends it uses: it ends when the test does, whatever happens. */
		close(ready[0]);
		close(stop[1]);
		fl.l_type = F_WRLCK;
		fl.l_whence = SEEK_SET;
		if (old < 0 || fchmod(old, 0666) < 0 || fcntl(old, F_SETLK, &fl) < 0)
			_exit(1);
		if (write(ready[1], "x", 1) != 1 || read(stop[0], &c, 1) != 1)
			_exit(2);
		_exit(0);
	}
	close(ready[1]);
	close(stop[0]);
	assert_int_equal(read(ready[0], &c, 1), 1);
	assert_int_equal(gpu_lock(UUID, true), GPU_LOCK_HELD);
	assert_int_equal(write(stop[1], "x", 1), 1);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	fd = gpu_lock(UUID, true);
	assert_true(fd >= 0);
	close(fd);
	assert_string_equal(captured.buf, "");
	close(ready[0]);
	close(stop[1]);

	/* A file system whose flock needs write access (NFS): no lock to take, said so. */
	flock_errno = EBADF;
	assert_int_equal(gpu_lock(UUID, true), GPU_LOCK_NONE);
	flock_errno = 0;
	want = xstrfmt("warning: cannot lock the GPU lock '%s': Bad file descriptor; using the GPU "
	               "unlocked",
	               path);
	assert_string_equal(captured.buf, want);
	free(want);
	free(path);
	done_dir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_gpu_busy_one_of_four, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_gpu_joined_by_uuid, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_gpu_min_free, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_gpu_mixed_models, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_gpu_index_order, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_gpu_not_supported, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_gpu_empty, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_gpu_malformed, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_gpu_name_with_comma, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_gpu_unknown_uuid, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_gpu_lock_made_and_held, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_gpu_lock_refuses_what_was_planted, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_gpu_lock_unreadable_to_another, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_gpu_lock_folder, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_gpu_lock_older_runner_and_nfs, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
