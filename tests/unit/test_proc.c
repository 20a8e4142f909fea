#include "proc.h"

#include "helpers.h"

#include "banned.h"

/* The child's status and both of its outputs, each apart. */
static void test_proc_run_status_and_output(void **state)
{
	const char *argv[] = {"bash", "-c", "echo out; echo err >&2; exit 3", NULL};
	struct proc_result res;

	(void)state;
	proc_result_init(&res);
	assert_int_equal(proc_run(&res, argv, NULL, 30), 0);
	assert_int_equal(res.exited, 1);
	assert_int_equal(res.status, 3);
	assert_int_equal(res.timed_out, 0);
	assert_string_equal(res.out.buf, "out\n");
	assert_string_equal(res.err.buf, "err\n");
	proc_result_release(&res);
}

/* Arguments reach the child as they are: no shell reads them. */
static void test_proc_run_argv_is_data(void **state)
{
	const char *argv[] = {"printf", "%s|", "a b", "$(echo no)", "it's", NULL};
	struct proc_result res;

	(void)state;
	proc_result_init(&res);
	assert_int_equal(proc_run(&res, argv, NULL, 30), 0);
	assert_string_equal(res.out.buf, "a b|$(echo no)|it's|");
	proc_result_release(&res);
}

/* env_extra adds a variable and replaces one the environment has. */
static void test_proc_run_env_extra(void **state)
{
	const char *argv[] = {"bash", "-c", "printf '%s,%s' \"$SWEEP_T_NEW\" \"$SWEEP_T_OLD\"",
	                      NULL};
	const char *env[] = {"SWEEP_T_NEW=new value", "SWEEP_T_OLD=replaced", NULL};
	struct proc_result res;

	(void)state;
	setenv("SWEEP_T_OLD", "old", 1);
	proc_result_init(&res);
	assert_int_equal(proc_run(&res, argv, env, 30), 0);
	assert_string_equal(res.out.buf, "new value,replaced");
	proc_result_release(&res);
	unsetenv("SWEEP_T_OLD");
}

/* A child that outlives its timeout is killed and says so. */
static void test_proc_run_timeout(void **state)
{
	const char *argv[] = {"sleep", "30", NULL};
	struct proc_result res;

	(void)state;
	proc_result_init(&res);
	assert_int_equal(proc_run(&res, argv, NULL, 1), 0);
	assert_int_equal(res.timed_out, 1);
	assert_int_equal(res.exited, 0);
	proc_result_release(&res);
}

/* A program that is not there is an error that names it. */
static void test_proc_run_missing_program(void **state)
{
	const char *argv[] = {"sweep-no-such-program", NULL};
	struct proc_result res;

	(void)state;
	capture_errors();
	proc_result_init(&res);
	assert_true(proc_run(&res, argv, NULL, 30) < 0);
	assert_string_equal(captured.buf,
	                    "error: cannot run 'sweep-no-such-program': No such file or directory");
	proc_result_release(&res);
	release_captured();
}

/*
 * A child that prints without end (yes) on either stream: the read stops
 * at PROC_OUTPUT_MAX with an error naming the program and the limit, long
 * before the timeout, and what was kept stays under the limit.
 */
static void test_proc_run_output_limit(void **state)
{
	const char *out_argv[] = {"yes", NULL};
	const char *err_argv[] = {"bash", "-c", "yes >&2", NULL};
	struct proc_result res;

	(void)state;
	capture_errors();
	proc_result_init(&res);
	assert_true(proc_run(&res, out_argv, NULL, 20) < 0);
	assert_int_equal(res.timed_out, 0);
	assert_true(res.out.len <= PROC_OUTPUT_MAX);
	assert_string_equal(captured.buf, "error: 'yes' printed more than 16 MiB on its standard "
	                                  "output: stopped reading it and killed it");
	proc_result_release(&res);
	strbuf_reset(&captured);
	assert_true(proc_run(&res, err_argv, NULL, 20) < 0);
	assert_int_equal(res.timed_out, 0);
	assert_true(res.err.len <= PROC_OUTPUT_MAX);
	assert_string_equal(captured.buf, "error: 'bash' printed more than 16 MiB on its standard "
	                                  "error: stopped reading it and killed it");
	proc_result_release(&res);
	release_captured();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_proc_run_status_and_output),
	    cmocka_unit_test(test_proc_run_argv_is_data),
	    cmocka_unit_test(test_proc_run_env_extra),
	    cmocka_unit_test(test_proc_run_timeout),
	    cmocka_unit_test(test_proc_run_missing_program),
	    cmocka_unit_test(test_proc_run_output_limit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
