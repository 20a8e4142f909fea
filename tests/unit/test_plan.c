#include "plan.h"

#include "cfg.h"

#include "helpers.h"

#include "banned.h"

static char *lr_vals[] = {"0.1", "0.01"};
static char *wd_vals[] = {"0", "5e-4", "1e-3"};
static char *arch_vals[] = {"resnet18", "resnet50"};
static char *batch_vals[] = {"256", "128"};
static char *case_names[] = {"lr", "wd", "arch", "batch"};
static char *case_vals[] = {"0.3", "0", "vit", "64"};
static char *short_case_names[] = {"lr", "wd", "arch"};
static int64_t seeds5[] = {0, 1, 2, 3, 4};

static void full_cfg(struct cfg *cfg, struct cfg_param *grid, struct cfg_param *zip,
                     struct cfg_case *cs)
{
	cfg_init(cfg);
	cfg->path = "sweep.yaml";
	grid[0] = (struct cfg_param){.name = "lr", .values = lr_vals, .nvalues = 2};
	grid[1] = (struct cfg_param){.name = "wd", .values = wd_vals, .nvalues = 3};
	zip[0] = (struct cfg_param){.name = "arch", .values = arch_vals, .nvalues = 2};
	zip[1] = (struct cfg_param){.name = "batch", .values = batch_vals, .nvalues = 2};
	cs[0] = (struct cfg_case){
	    .names = case_names, .values = case_vals, .n = 4, .line = 9, .column = 5};
	cfg->grid = grid;
	cfg->ngrid = 2;
	cfg->zip = zip;
	cfg->nzip = 2;
	cfg->cases = cs;
	cfg->ncases = 1;
	cfg->seeds = seeds5;
	cfg->nseeds = 5;
}

/* Order: grid product (last key fastest), zip innermost, then cases; seeds adjacent. */
static void test_grid_order_and_counts(void **state)
{
	struct cfg cfg;
	struct cfg_param grid[2], zip[2];
	struct cfg_case cs[1];
	struct plan plan;

	(void)state;
	full_cfg(&cfg, grid, zip, cs);
	assert_int_equal(plan_expand(&plan, &cfg), 0);
	assert_int_equal(plan.nparams, 4);
	assert_string_equal(plan.params[0], "lr");
	assert_string_equal(plan.params[3], "batch");
	assert_int_equal(plan.nsettings, 2 * 3 * 2 + 1);
	assert_int_equal(plan.ntasks, 13 * 5);
	/* setting 0: lr=0.1 wd=0 arch=resnet18 batch=256 */
	assert_string_equal(plan_value(&plan, 0, 0), "0.1");
	assert_string_equal(plan_value(&plan, 0, 1), "0");
	assert_string_equal(plan_value(&plan, 0, 2), "resnet18");
	assert_string_equal(plan_value(&plan, 0, 3), "256");
	/* setting 1: zip row advances first, and its columns move together */
	assert_string_equal(plan_value(&plan, 1, 1), "0");
	assert_string_equal(plan_value(&plan, 1, 2), "resnet50");
	assert_string_equal(plan_value(&plan, 1, 3), "128");
	/* setting 2: then the last grid key */
	assert_string_equal(plan_value(&plan, 2, 1), "5e-4");
	assert_string_equal(plan_value(&plan, 2, 2), "resnet18");
	/* setting 6: then the first */
	assert_string_equal(plan_value(&plan, 6, 0), "0.01");
	assert_string_equal(plan_value(&plan, 6, 1), "0");
	/* the case comes last */
	assert_string_equal(plan_value(&plan, 12, 2), "vit");
	/* seeds of one setting are adjacent */
	assert_int_equal(plan_setting_of(&plan, 0), 0);
	assert_int_equal(plan_setting_of(&plan, 4), 0);
	assert_int_equal(plan_setting_of(&plan, 5), 1);
	assert_int_equal(plan_seed_of(&plan, 7), 2);
	assert_int_equal(plan_seed_of(&plan, 64), 4);
	plan_release(&plan);
}

static void test_grid_every_combination_once(void **state)
{
	struct cfg cfg;
	struct cfg_param grid[2], zip[2];
	struct cfg_case cs[1];
	struct plan plan;
	int seen[2][3][2] = {{{0}}};

	(void)state;
	full_cfg(&cfg, grid, zip, cs);
	cfg.ncases = 0;
	assert_int_equal(plan_expand(&plan, &cfg), 0);
	for (size_t s = 0; s < plan.nsettings; s++) {
		size_t a = !strcmp(plan_value(&plan, s, 0), "0.01");
		size_t b = !strcmp(plan_value(&plan, s, 1), "5e-4")   ? 1
		           : !strcmp(plan_value(&plan, s, 1), "1e-3") ? 2
		                                                      : 0;
		size_t c = !strcmp(plan_value(&plan, s, 2), "resnet50");

		assert_int_equal(!strcmp(plan_value(&plan, s, 3), "128"), c);
		seen[a][b][c]++;
	}
	for (size_t a = 0; a < 2; a++)
		for (size_t b = 0; b < 3; b++)
			for (size_t c = 0; c < 2; c++)
				assert_int_equal(seen[a][b][c], 1);
	plan_release(&plan);
}

static void test_grid_case_missing_parameter(void **state)
{
	struct cfg cfg;
	struct cfg_param grid[2], zip[2];
	struct cfg_case cs[1];
	struct plan plan;

	(void)state;
	full_cfg(&cfg, grid, zip, cs);
	cs[0].names = short_case_names;
	cs[0].n = 3;
	capture_errors();
	assert_int_equal(plan_expand(&plan, &cfg), SWEEP_ERR);
	assert_string_equal(captured.buf, "error: sweep.yaml:9:5: this case does not set 'batch', "
	                                  "which other settings have");
	release_captured();
}

static void test_grid_no_parameters(void **state)
{
	struct cfg cfg;
	struct plan plan;
	char *label;

	(void)state;
	cfg_init(&cfg);
	cfg.seeds = seeds5;
	cfg.nseeds = 5;
	assert_int_equal(plan_expand(&plan, &cfg), 0);
	assert_int_equal(plan.nsettings, 1);
	assert_int_equal(plan.ntasks, 5);
	label = plan_setting_label(&plan, 0);
	assert_string_equal(label, "-");
	free(label);
	plan_release(&plan);
}

static void test_grid_labels_name_what_varies(void **state)
{
	struct cfg cfg;
	struct cfg_param grid[2], zip[2];
	struct cfg_case cs[1];
	struct plan plan;
	char *label;
	static char *one[] = {"0.5"};

	(void)state;
	full_cfg(&cfg, grid, zip, cs);
	cfg.ncases = 0;
	grid[0].values = one;
	grid[0].nvalues = 1;
	assert_int_equal(plan_expand(&plan, &cfg), 0);
	label = plan_setting_label(&plan, 1);
	assert_string_equal(label, "wd=0 arch=resnet50 batch=128");
	free(label);
	plan_release(&plan);
}

static void test_grid_too_many_tasks(void **state)
{
	struct cfg cfg;
	struct cfg_param grid[8];
	struct plan plan;
	static char *ten[] = {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"};
	static char *names[] = {"a", "b", "c", "d", "e", "f", "g", "h"};

	(void)state;
	cfg_init(&cfg);
	cfg.path = "big.yaml";
	for (size_t i = 0; i < 8; i++)
		grid[i] = (struct cfg_param){.name = names[i], .values = ten, .nvalues = 10};
	cfg.grid = grid;
	cfg.ngrid = 8;
	cfg.seeds = seeds5;
	cfg.nseeds = 1;
	capture_errors();
	assert_int_equal(plan_expand(&plan, &cfg), SWEEP_ERR);
	assert_string_equal(captured.buf,
	                    "error: big.yaml: the sweep would have more than 10000000 "
	                    "tasks; split it into several sweeps");
	release_captured();
}

/* A value too large for a task's environment is refused at submit (issue 16.4). */
static void test_grid_values_too_large_for_a_task(void **state)
{
	struct cfg cfg;
	struct cfg_param grid[5];
	struct cfg_env env[1];
	struct plan plan;
	/* SWEEP_PARAM_v=<value>\0 is 15 bytes more than the value. */
	char *fits = xcalloc(1, PLAN_MAX_VARIABLE - 15 + 1);
	char *big = xcalloc(1, PLAN_MAX_VARIABLE - 15 + 2);
	char *vals[] = {"1", big}, *fit_vals[] = {fits};
	static char *names[] = {"v", "w", "x", "y", "z"};

	(void)state;
	memset(fits, 'a', PLAN_MAX_VARIABLE - 15);
	memset(big, 'a', PLAN_MAX_VARIABLE - 14);
	cfg_init(&cfg);
	cfg.path = "big.yaml";
	grid[0] = (struct cfg_param){.name = names[0], .values = vals, .nvalues = 2};
	cfg.grid = grid;
	cfg.ngrid = 1;
	cfg.seeds = seeds5;
	cfg.nseeds = 1;
	assert_int_equal(plan_expand(&plan, &cfg), 0);
	capture_errors();
	assert_int_equal(plan_check_sizes(&plan, &cfg), SWEEP_ERR);
	assert_string_equal(captured.buf,
	                    "error: big.yaml: the value of 'v' in setting 1 is 131058 bytes: a "
	                    "task gets it in the environment variable SWEEP_PARAM_v, which "
	                    "holds at most 131072 bytes, name included");
	plan_release(&plan);

	/* One byte less fits; but five of them (twice each) do not fit one task. */
	grid[0].values = fit_vals;
	grid[0].nvalues = 1;
	assert_int_equal(plan_expand(&plan, &cfg), 0);
	assert_int_equal(plan_check_sizes(&plan, &cfg), 0);
	plan_release(&plan);
	for (size_t i = 1; i < 5; i++)
		grid[i] = (struct cfg_param){.name = names[i], .values = fit_vals, .nvalues = 1};
	cfg.ngrid = 5;
	assert_int_equal(plan_expand(&plan, &cfg), 0);
	strbuf_reset(&captured);
	assert_int_equal(plan_check_sizes(&plan, &cfg), SWEEP_ERR);
	assert_string_equal(captured.buf,
	                    "error: big.yaml: setting 0's values and 'env' take 1310720 bytes of "
	                    "a task's environment and arguments, more than the 1048576 a task "
	                    "can count on");
	plan_release(&plan);

	/* env: values count too. */
	cfg.ngrid = 1;
	env[0] = (struct cfg_env){.name = "BIG", .value = big};
	cfg.env = env;
	cfg.nenv = 1;
	assert_int_equal(plan_expand(&plan, &cfg), 0);
	strbuf_reset(&captured);
	assert_int_equal(plan_check_sizes(&plan, &cfg), 0);
	plan_release(&plan);
	release_captured();
	free(fits);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_grid_order_and_counts),
	    cmocka_unit_test(test_grid_every_combination_once),
	    cmocka_unit_test(test_grid_case_missing_parameter),
	    cmocka_unit_test(test_grid_no_parameters),
	    cmocka_unit_test(test_grid_labels_name_what_varies),
	    cmocka_unit_test(test_grid_too_many_tasks),
	    cmocka_unit_test(test_grid_values_too_large_for_a_task),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
