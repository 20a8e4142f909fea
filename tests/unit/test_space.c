#include "space.h"

#include "helpers.h"

#include "banned.h"

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

static void test_space_check_passes_and_refuses(void **state)
{
	char *dir = make_tmpdir();
	char *expect_start;

	(void)state;
	assert_int_equal(space_check(dir, 1, 1, 1, 1), 0);
	capture_errors();
	/* an exabyte is more than any test machine has */
	assert_int_equal(space_check(dir, (uint64_t)1 << 40, 1000, (uint64_t)1 << 30, 1024),
	                 SWEEP_ERR);
	expect_start = xstrfmt("error: checkpoints need up to 1E (1000 tasks at once x 1024T x "
	                       "1024 kept) in '%s', which has ",
	                       dir);
	assert_memory_equal(captured.buf, expect_start, strlen(expect_start));
	assert_non_null(strstr(captured.buf, " free; lower 'checkpoint.keep' or "
	                                     "'slurm.max_concurrent', or free space"));
	strbuf_reset(&captured);
	assert_int_equal(space_check("/nonexistent/folder", 1, 1, 1, 1), SWEEP_ERR);
	assert_string_equal(captured.buf, "error: cannot read the free space of "
	                                  "'/nonexistent/folder': No such file or directory");
	release_captured();
	free(expect_start);
	remove_tree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_space_needed_arithmetic),
	    cmocka_unit_test(test_space_check_passes_and_refuses),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
