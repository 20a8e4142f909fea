#include "helpers.h"

#include "cfg.h"
#include "cfg_rewrite.h"
#include "plan.h"

#include "banned.h"

static const char *const params[] = {"lr", "depth"};
static const int64_t seeds[] = {5, 6, 7};

/* Two cases, the second without depth. */
static const char *const values[] = {"0.1", "2", "0.01", NULL};

static void fill(struct cfg_rewrite *rw)
{
	memset(rw, 0, sizeof(*rw));
	rw->name = "base-confirm";
	rw->confirm_of = "12";
	rw->seeds = seeds;
	rw->nseeds = 3;
	rw->params = params;
	rw->nparams = 2;
	rw->values = values;
	rw->ncases = 2;
	rw->source = "/home/u/exp/base.yaml";
	rw->what = "the sweep file of sweep 12";
}

/*
 * The keys that choose settings and seeds are replaced (name and
 * confirm_of first, seeds and cases last); the others stay, in order, and
 * a relative template becomes absolute against the old file's folder.
 */
static void test_cfg_rewrite_replaces_settings_and_seeds(void **state)
{
	const char *text = "name: base\n"
	                   "command: python train.py --lr {lr}\n"
	                   "grid:\n  lr: [0.1, 0.01, 0.001]\n  depth: [2, 4]\n"
	                   "seeds: 5\n"
	                   "template: t/array.sbatch\n"
	                   "slurm: {time: 10, mem: 1G}\n"
	                   "confirm_of: 3\n";
	const char *want = "name: base-confirm\n"
	                   "confirm_of: 12\n"
	                   "command: python train.py --lr {lr}\n"
	                   "template: \"/home/u/exp/t/array.sbatch\"\n"
	                   "slurm: {time: 10, mem: 1G}\n"
	                   "seeds: [5, 6, 7]\n"
	                   "cases:\n"
	                   "- {lr: \"0.1\", depth: \"2\"}\n"
	                   "- {lr: \"0.01\"}\n";
	struct strbuf out = STRBUF_INIT;
	struct cfg_rewrite rw;

	(void)state;
	fill(&rw);
	assert_int_equal(cfg_rewrite(&out, text, &rw), 0);
	assert_string_equal(out.buf, want);
	strbuf_release(&out);
}

/* Without confirm_of there is none; an absolute template stays as it was. */
static void test_cfg_rewrite_no_link_absolute_template(void **state)
{
	const char *text = "name: a\ncommand: run\ntemplate: /opt/t.sbatch\nzip: {lr: [1, 2]}\n";
	struct strbuf out = STRBUF_INIT;
	struct cfg_rewrite rw;

	(void)state;
	fill(&rw);
	rw.confirm_of = NULL;
	rw.ncases = 1;
	assert_int_equal(cfg_rewrite(&out, text, &rw), 0);
	assert_null(strstr(out.buf, "confirm_of"));
	assert_null(strstr(out.buf, "zip"));
	assert_non_null(strstr(out.buf, "template: /opt/t.sbatch\n"));
	strbuf_release(&out);
}

/* What the rewrite writes is a sweep file: its plan is the cases x the seeds. */
static void test_cfg_rewrite_reads_back(void **state)
{
	const char *text = "name: base\ncommand: run --lr {lr} --depth {depth}\n"
	                   "grid: {lr: [0.1, 0.01], depth: [2, 4]}\nseeds: 2\n";
	static const char *const both[] = {"0.1", "4", "0.01", "2"};
	struct strbuf out = STRBUF_INIT;
	struct cfg_rewrite rw;
	struct cfg cfg;
	struct plan plan;

	(void)state;
	fill(&rw);
	rw.values = both;
	cfg_init(&cfg);
	plan_init(&plan);
	assert_int_equal(cfg_rewrite(&out, text, &rw), 0);
	assert_int_equal(cfg_load_string(&cfg, "confirm.yaml", out.buf, out.len), 0);
	assert_string_equal(cfg.name, "base-confirm");
	assert_int_equal(plan_expand(&plan, &cfg), 0);
	assert_int_equal(plan.nsettings, 2);
	assert_int_equal(plan.nseeds, 3);
	assert_int_equal(plan.ntasks, 6);
	assert_int_equal(plan_seed_of(&plan, 0), 5);
	plan_release(&plan);
	cfg_release(&cfg);
	strbuf_release(&out);
}

/* The two ways the old text is refused, each with its message. */
static void test_cfg_rewrite_errors(void **state)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
	    {"name: [a\n", "error: the sweep file of sweep 12 no longer reads"},
	    {"- a\n- b\n", "error: the sweep file of sweep 12 is not a mapping"},
	    {"", "error: the sweep file of sweep 12 is not a mapping"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct strbuf out = STRBUF_INIT;
		struct cfg_rewrite rw;

		fill(&rw);
		capture_errors();
		assert_int_equal(cfg_rewrite(&out, cases[i].text, &rw), SWEEP_ERR);
		assert_string_equal(captured.buf, cases[i].msg);
		release_captured();
		strbuf_release(&out);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cfg_rewrite_replaces_settings_and_seeds),
	    cmocka_unit_test(test_cfg_rewrite_no_link_absolute_template),
	    cmocka_unit_test(test_cfg_rewrite_reads_back),
	    cmocka_unit_test(test_cfg_rewrite_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
