/*
 * GPU selection from recorded nvidia-smi output (tests/data/nvidia-smi/,
 * CASE.gpus.csv and CASE.apps.csv, as the two queries of gpu.h print
 * them): busy GPUs, idle-looking GPUs short of memory, uuids in another
 * order than the indices, mixed models, output nvidia-smi could not
 * finish, no GPU at all.
 */
#include "gpu.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
