#include "submission.h"

#include <stdint.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "array.h"

#include "helpers.h"

#include "banned.h"

/* One array job per chunk, with the throttle; the quota is borrowed, to name a refusal. */
static void test_submission_jobs_of_chunks(void **state)
{
	const struct array_chunk chunks[] = {{0, 100}, {100, 100}, {200, 7}};
	const struct quota *quota = (const struct quota *)chunks; /* any address: only kept */
	struct submission_job *jobs;

	(void)state;
	jobs = submission_jobs_of_chunks(chunks, 3, 5, quota);
	assert_string_equal(jobs[0].array, "0-99%5");
	assert_string_equal(jobs[1].array, "0-99%5");
	assert_string_equal(jobs[2].array, "0-6%5");
	assert_int_equal(jobs[1].offset, 100);
	assert_int_equal(jobs[2].offset, 200);
	assert_ptr_equal(jobs[2].quota, quota);
	assert_int_equal(jobs[0].job_id, 0);
	assert_null(jobs[0].indices);
	submission_jobs_free(jobs, 3);
	submission_jobs_free(NULL, 0);
}

/* An extending sweep submits, per chunk below MaxArraySize, only the indices no sweep ran. */
static void test_submission_jobs_sparse(void **state)
{
	const int64_t reused[10] = {0, 7, 7, 0, 0, 7, 7, 7, 0, 0};
	const int64_t all[4] = {3, 3, 3, 3};
	struct submission_job *jobs;
	size_t n = 99;

	(void)state;
	jobs = submission_jobs_sparse(10, reused, 4, 2, &n);
	assert_int_equal(n, 3);
	assert_string_equal(jobs[0].array, "0,3%2");
	assert_int_equal(jobs[0].offset, 0);
	assert_string_equal(jobs[1].array, "0%2");
	assert_int_equal(jobs[1].offset, 4);
	assert_string_equal(jobs[2].array, "0-1%2");
	assert_int_equal(jobs[2].offset, 8);
	submission_jobs_free(jobs, n);

	/* No limit: one array job. */
	jobs = submission_jobs_sparse(10, reused, 0, 0, &n);
	assert_int_equal(n, 1);
	assert_string_equal(jobs[0].array, "0,3-4,8-9");
	submission_jobs_free(jobs, n);

	/* Everything reused: nothing to submit. */
	jobs = submission_jobs_sparse(4, all, 0, 0, &n);
	assert_int_equal(n, 0);
	assert_null(jobs);
}

/* The submission lock is one holder's at a time, and free again once closed. */
static void test_submission_lock(void **state)
{
	char *dir = make_tmpdir();
	char *want;
	int fd, again;

	(void)state;
	fd = submission_lock(dir);
	assert_true(fd >= 0);
	capture_errors();
	again = submission_lock(dir);
	assert_true(again < 0);
	want =
	    xstrfmt("error: cannot lock '%s/submit.lock': Resource temporarily unavailable", dir);
	assert_string_equal(captured.buf, want);
	release_captured();
	close(fd);
	fd = submission_lock(dir);
	assert_true(fd >= 0);
	close(fd);
	remove_tree(dir);
	free(want);
	free(dir);
}

/*
 * submission_lock_wait waits for a holder that lets go, and gives up with
 * its message after the wait while one holds on.
 */
static void test_submission_lock_wait(void **state)
{
	char *dir = make_tmpdir();
	char *want;
	int fd, again, ready[2], status;
	pid_t pid;
	char c;

	(void)state;
	fd = submission_lock(dir);
	assert_true(fd >= 0);
	capture_errors();
	again = submission_lock_wait(dir, 1);
	assert_true(again < 0);
	want = xstrfmt("error: cannot lock '%s/submit.lock': another sweep command still holds "
	               "it after 1 s; try again when it has ended",
	               dir);
	assert_string_equal(captured.buf, want);
	release_captured();
	close(fd);
	/* A holder that lets go after a moment (another process): the wait gets the lock. */
	assert_int_equal(pipe(ready), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct timespec t = {0, 300 * 1000 * 1000};
		int held = submission_lock(dir);

		if (write(ready[1], "x", 1) != 1 || held < 0)
			_exit(1);
		nanosleep(&t, NULL);
		_exit(0);
	}
	assert_int_equal(read(ready[0], &c, 1), 1);
	assert_true(submission_lock(dir) < 0);
	fd = submission_lock_wait(dir, 5);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(status, 0);
	close(ready[0]);
	close(ready[1]);
	remove_tree(dir);
	free(want);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_submission_jobs_of_chunks),
	    cmocka_unit_test(test_submission_jobs_sparse),
	    cmocka_unit_test(test_submission_lock),
	    cmocka_unit_test(test_submission_lock_wait),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
