#include "rerun.h"

#include "loaded.h"

#include "helpers.h"

#include "banned.h"

/* The options that override the script: --mem of the script's kind, --time per array task. */
static void test_rerun_override_args(void **state)
{
	struct loaded_sweep l;
	struct rerun r;
	struct resubmit_array arr = {.mem_mb = 3072, .time_min = 90};
	struct strbuf mem = STRBUF_INIT, time_opt = STRBUF_INIT;

	(void)state;
	loaded_init(&l);
	rerun_init(&r);
	r.l = &l;
	r.script.mem_kind = RESUBMIT_MEM_NODE;
	r.script.cpus = 1;
	assert_int_equal(rerun_override_args(&mem, &time_opt, &r, &arr), 0);
	assert_string_equal(mem.buf, "--mem=3G");
	assert_string_equal(time_opt.buf, "--time=01:30:00");

	/* Packed by 4: an array task runs its four tasks one after another. */
	strbuf_reset(&mem);
	strbuf_reset(&time_opt);
	l.rec.pack = 4;
	r.script.mem_kind = RESUBMIT_MEM_PER_CPU;
	r.script.cpus = 4;
	assert_int_equal(rerun_override_args(&mem, &time_opt, &r, &arr), 0);
	assert_string_equal(mem.buf, "--mem-per-cpu=768M");
	assert_string_equal(time_opt.buf, "--time=06:00:00");

	/* No override asked: no option. */
	strbuf_reset(&mem);
	strbuf_reset(&time_opt);
	arr.mem_mb = arr.time_min = 0;
	assert_int_equal(rerun_override_args(&mem, &time_opt, &r, &arr), 0);
	assert_string_equal(mem.buf, "");
	assert_string_equal(time_opt.buf, "");
	strbuf_release(&mem);
	strbuf_release(&time_opt);
	r.l = NULL;
	rerun_release(&r);
	loaded_release(&l);
}

/* A script that asks memory per GPU cannot be raised: said, and the round fails. */
static void test_rerun_override_args_per_gpu(void **state)
{
	struct loaded_sweep l;
	struct rerun r;
	struct resubmit_array arr = {.mem_mb = 2048};
	struct strbuf mem = STRBUF_INIT, time_opt = STRBUF_INIT;

	(void)state;
	loaded_init(&l);
	rerun_init(&r);
	r.l = &l;
	r.script.mem_kind = RESUBMIT_MEM_PER_GPU;
	r.script.cpus = 1;
	capture_errors();
	assert_true(rerun_override_args(&mem, &time_opt, &r, &arr) < 0);
	assert_string_equal(captured.buf,
	                    "error: the script asks --mem-per-gpu, which resubmit cannot raise "
	                    "(sbatch refuses --mem with it): raise it in the sweep file and "
	                    "submit again");
	release_captured();
	strbuf_release(&mem);
	strbuf_release(&time_opt);
	r.l = NULL;
	rerun_release(&r);
	loaded_release(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rerun_override_args),
	    cmocka_unit_test(test_rerun_override_args_per_gpu),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
