#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "curve.h"
#include "plan.h"
#include "helpers.h"
#include "plot.h"
#include "result.h"
#include "strbuf.h"

#include "banned.h"

static void parse_ok(struct curve *c, const char *text)
{
	if (curve_parse(c, text, strlen(text), "step") < 0)
		fail_msg("%s: %s", text, c->error);
}

static void test_curve_parse(void **state)
{
	struct curve c;

	(void)state;
	curve_init(&c);
	parse_ok(&c, "{\"step\": 0, \"loss\": 2.5}\n\n  \n{\"step\": 10, \"loss\": 1.5, "
	             "\"note\": \"x\"}\r\n{\"step\": 20, \"loss\": NaN}");
	assert_int_equal(c.n, 3);
	assert_true(c.lines[1].step == 10);
	assert_true(result_find(&c.lines[1].row, "loss")->value == 1.5);
	assert_int_equal(result_find(&c.lines[2].row, "loss")->kind, RESULT_NONFINITE);
	curve_release(&c);
	curve_release(&c);
	/* A byte order mark, a step past int64. */
	parse_ok(&c, "\xEF\xBB\xBF{\"step\": 0, \"loss\": 2}\n{\"step\": 18446744073709551616}\n");
	assert_int_equal(c.n, 2);
	assert_true(c.lines[1].step == 18446744073709551616.0);
	curve_release(&c);
}

static void test_curve_parse_errors(void **state)
{
	static const struct {
		const char *text, *error;
	} bad[] = {
	    {"", "no lines"},
	    {"\n \n", "no lines"},
	    {"{\"step\": 1}\n{\"loss\": 2}\n", "line 2: no 'step'"},
	    {"{\"step\": \"ten\"}", "line 1: 'step' is a string, not a number"},
	    {"{\"step\": NaN}", "line 1: 'step' is NaN, not a number"},
	    {"{\"step\": 1}\n\n[1, 2]\n", "line 3: an array, not an object"},
	};
	struct curve c;

	(void)state;
	curve_init(&c);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(curve_parse(&c, bad[i].text, strlen(bad[i].text), "step"), -1);
		if (strcmp(c.error, bad[i].error))
			fail_msg("%s: got '%s', want '%s'", bad[i].text, c.error, bad[i].error);
	}
	assert_int_equal(curve_parse(&c, "{\"step\": 1", 10, "step"), -1);
	assert_non_null(strstr(c.error, "line 1: invalid JSON: "));
	curve_release(&c);
}

static void test_curve_read(void **state)
{
	char *dir = make_tmpdir(), *path = xstrfmt("%s/c.jsonl", dir);
	struct curve c;
	FILE *f;

	(void)state;
	curve_init(&c);
	assert_int_equal(curve_read(&c, path, "it"), -1);
	assert_string_equal(c.error, strstr(c.error, "no curve file '"));
	assert_non_null(strstr(c.error, path));
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("{\"it\": 1, \"a\": 1}\n{\"step\": 2}\n", f);
	fclose(f);
	assert_int_equal(curve_read(&c, path, "it"), -1);
	{
		char *want = xstrfmt("%s: line 2: no 'it'", path);

		assert_string_equal(c.error, want);
		free(want);
	}
	curve_release(&c);
	remove_tree(dir);
	free(path);
	free(dir);
}

static char *params[] = {"lr", "opt"};
static char *values[] = {"0.1", "adam", "0.01", "sgd"};
static int64_t seeds[] = {7, 8};
static unsigned char varies[] = {1, 1};
static const struct plan plan = {
    .params = params,
    .nparams = 2,
    .values = values,
    .nsettings = 2,
    .seeds = seeds,
    .nseeds = 2,
    .ntasks = 4,
    .varies = varies,
};

static void test_curve_path(void **state)
{
	static const struct {
		const char *pattern, *want;
	} ok[] = {
	    {"curve.jsonl", "/sub mit/curve.jsonl"},
	    {"logs/{opt}-{lr}.jsonl", "/sub mit/logs/sgd-0.01.jsonl"},
	    {"/data/{setting}/{seed}/{index}.jsonl", "/data/1/8/3.jsonl"},
	    {"runs/{sweep}/{task}.jsonl", "/sub mit/runs/42/3.jsonl"},
	    {"{task_dir}/x{{1}}.jsonl", "/s/tasks/3/x{1}.jsonl"},
	    {"{opt}/c.jsonl", "/sub mit/sgd/c.jsonl"},
	    {"/abs/{{lr}}", "/abs/{lr}"},
	};
	static const struct {
		const char *pattern, *error;
	} bad[] = {
	    {"{epoch}.jsonl", "error: unknown placeholder '{epoch}' in the curve file "
	                      "'{epoch}.jsonl': use {index}, {task}, {sweep}, {seed}, {setting}, "
	                      "{task_dir} or a parameter's name ('{{' for a brace)"},
	    {"a{b", "error: unknown placeholder '{b' in the curve file 'a{b': use {index}, "
	            "{task}, {sweep}, {seed}, {setting}, {task_dir} or a parameter's name ('{{' "
	            "for a brace)"},
	    {"", "error: the curve file's name is empty"},
	};
	static const struct curve_where w = {"/sub mit", "/s/tasks/3", 42};
	char *path;

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(curve_path(&path, ok[i].pattern, &w, &plan, 3), 0);
		assert_string_equal(path, ok[i].want);
		free(path);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		capture_errors();
		assert_true(curve_path(&path, bad[i].pattern, &w, &plan, 3) < 0);
		assert_null(path);
		assert_string_equal(captured.buf, bad[i].error);
	}
	release_captured();
}

/* Seeds that stop at different steps: the band ends where the shortest does. */
static void test_curve_band_truncated_to_shortest(void **state)
{
	struct curve a, b, c;
	const struct curve *group[3] = {&a, &b, &c};
	struct curve_band band;

	(void)state;
	curve_init(&a);
	curve_init(&b);
	curve_init(&c);
	parse_ok(&a, "{\"step\": 0, \"loss\": 3}\n{\"step\": 10, \"loss\": 2}\n"
	             "{\"step\": 20, \"loss\": 1}\n{\"step\": 30, \"loss\": 0.5}\n");
	parse_ok(&b, "{\"step\": 0, \"loss\": 5}\n{\"step\": 10, \"loss\": 4}\n"
	             "{\"step\": 20, \"loss\": 3}\n");
	/* Restarted after step 10: the second 10 wins; step 5 only here. */
	parse_ok(&c, "{\"step\": 0, \"loss\": 4}\n{\"step\": 5, \"loss\": 9}\n"
	             "{\"step\": 10, \"loss\": 100}\n{\"step\": 10, \"loss\": 3}\n"
	             "{\"step\": 20, \"loss\": 2}\n{\"step\": 30, \"loss\": 1}\n");
	curve_band(&band, group, 3, "loss");
	assert_int_equal(band.n, 3);
	assert_true(band.steps[0] == 0 && band.steps[1] == 10 && band.steps[2] == 20);
	assert_true(band.mean[0] == 4 && band.mean[1] == 3 && band.mean[2] == 2);
	assert_true(band.std[1] == 1);
	curve_band_release(&band);

	/* A metric a seed lacks at a step leaves that step out. */
	curve_band(&band, group, 3, "accuracy");
	assert_int_equal(band.n, 0);
	curve_band_release(&band);
	/* One seed: its own curve, no std. */
	curve_band(&band, group, 1, "loss");
	assert_int_equal(band.n, 4);
	assert_true(isnan(band.std[0]));
	curve_band_release(&band);
	curve_band(&band, group, 0, "loss");
	assert_int_equal(band.n, 0);
	curve_band_release(&band);
	curve_release(&a);
	curve_release(&b);
	curve_release(&c);
}

static void test_curve_keys(void **state)
{
	struct curve a, b;
	char **keys = NULL;
	size_t n = 0, alloc = 0;

	(void)state;
	curve_init(&a);
	curve_init(&b);
	parse_ok(&a, "{\"step\": 0, \"loss\": 3, \"tag\": \"x\"}\n{\"step\": 1, \"acc\": 0.1}\n");
	parse_ok(&b, "{\"step\": 0, \"loss\": 3, \"lr\": NaN}\n");
	curve_keys(&keys, &n, &alloc, &a, "step");
	curve_keys(&keys, &n, &alloc, &b, "step");
	assert_int_equal(n, 3);
	assert_string_equal(keys[0], "acc");
	assert_string_equal(keys[1], "loss");
	assert_string_equal(keys[2], "lr");
	for (size_t i = 0; i < n; i++)
		free(keys[i]);
	free(keys);
	curve_release(&a);
	curve_release(&b);
}

static void test_curve_figure(void **state)
{
	static const char *const metrics[] = {"loss"};
	double steps[] = {0, 10, 20}, mean[] = {3, 2, 1}, std[] = {1, 0.5, 0.25};
	struct curve_band bands[2] = {
	    {.n = 3, .steps = steps, .mean = mean, .std = std},
	    {.n = 0},
	};
	size_t nseeds[] = {2, 1};
	struct plot_figure fig;

	(void)state;
	plot_figure_init(&fig);
	plot_from_curves(&fig, "t", &plan, metrics, NULL, 1, bands, nseeds, "epoch");
	assert_int_equal(fig.npanels, 1);
	assert_int_equal(fig.panels[0].style, PLOT_BANDS);
	assert_string_equal(fig.panels[0].x.label, "epoch");
	assert_string_equal(fig.panels[0].series[0].label,
	                    "lr=0.1 opt=adam (2 seeds, to epoch 20)");
	assert_string_equal(fig.panels[0].series[1].label,
	                    "lr=0.01 opt=sgd (no epoch all 1 seeds reached)");
	assert_true(fig.panels[0].series[0].lo[2] == 0.75);
	assert_true(fig.panels[0].y.min <= 0.75 && fig.panels[0].y.max >= 4);
	plot_figure_release(&fig);
}

/* The scanner's patterns: epoch N, val_acc X, loss Y. */
struct log_patterns {
	regex_t step;
	struct result_log_spec spec;
};

static void log_patterns_init(struct log_patterns *p)
{
	static const char *const names[] = {"loss", "val_acc"};
	static const char *const res[] = {"loss[ =]([0-9.eE+-]+)", "val_acc ([0-9.]+)"};

	assert_int_equal(regcomp(&p->step, "epoch ([0-9]+)", REG_EXTENDED), 0);
	assert_int_equal(result_log_spec_init(&p->spec, names, res, 2), 0);
}

static void log_patterns_release(struct log_patterns *p)
{
	regfree(&p->step);
	result_log_spec_release(&p->spec);
}

/* The value of metric at step in c; NAN when c has no such point. */
static double point(const struct curve *c, double step, const char *metric)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct result_entry *e;

		if (c->lines[i].step != step)
			continue;
		e = result_find(&c->lines[i].row, metric);
		return e ? e->value : NAN;
	}
	return NAN;
}

static void scan(struct curve *c, const struct log_patterns *p, const char *text, size_t len)
{
	curve_release(c);
	curve_scan_log(c, text, len, &p->step, &p->spec, NULL);
}

static void test_curve_scan_log(void **state)
{
	/* Values before any step are ignored; a step holds until the next one. */
	static const char text[] = "starting, loss 9\n"
	                           "val_acc 0.1\n"
	                           "epoch 1\n"
	                           "  loss 2.5\n"
	                           "  val_acc 0.5\n"
	                           "epoch 2 loss 1.5 val_acc 0.7\n"
	                           "epoch 3 val_acc 0.8 val_acc 0.85\n"
	                           "loss=1.0\n"
	                           "val_acc 0.9\n"
	                           "epoch 4\n"
	                           "epoch 5\n"
	                           "val_acc nan-ish\n"
	                           "val_acc 0.95";
	static const char restart[] =
	    "epoch 1 loss 3\nepoch 2 loss 2\nepoch 1 loss 2.8 val_acc 0.2\n";
	static const char nostep[] = "loss 1\nval_acc 0.5\n";
	struct log_patterns p;
	struct curve c;

	(void)state;
	log_patterns_init(&p);
	curve_init(&c);
	scan(&c, &p, text, strlen(text));
	/* Epoch 4 and 5 have no value: no line. */
	assert_int_equal(c.n, 4);
	assert_true(c.lines[0].step == 1 && c.lines[3].step == 5);
	assert_true(point(&c, 1, "loss") == 2.5);
	assert_true(point(&c, 1, "val_acc") == 0.5);
	/* Several metrics on the step's own line. */
	assert_true(point(&c, 2, "loss") == 1.5);
	assert_true(point(&c, 2, "val_acc") == 0.7);
	/* The last value of a step wins, on its line and after it. */
	assert_true(point(&c, 3, "val_acc") == 0.9);
	assert_true(point(&c, 3, "loss") == 1.0);
	assert_true(point(&c, 5, "val_acc") == 0.95);
	assert_true(isnan(point(&c, 5, "loss")));
	assert_true(curve_has(&c, "loss"));
	assert_false(curve_has(&c, "accuracy"));

	/* A step that comes again (a restart) is one point per metric: the last value. */
	scan(&c, &p, restart, strlen(restart));
	assert_int_equal(c.n, 2);
	assert_true(point(&c, 1, "loss") == 2.8);
	assert_true(point(&c, 1, "val_acc") == 0.2);

	/* No step yet: nothing. */
	scan(&c, &p, nostep, strlen(nostep));
	assert_int_equal(c.n, 0);
	assert_false(curve_has(&c, "loss"));
	curve_release(&c);
	log_patterns_release(&p);
}

static void test_curve_scan_log_only_and_merge(void **state)
{
	static const bool only[] = {false, true};
	static const char out[] = "epoch 1 loss 2\nepoch 2 loss 1\n";
	static const char err[] = "epoch 1 loss 7 val_acc 0.5\nepoch 3 val_acc 0.6\n";
	struct log_patterns p;
	struct curve c;

	(void)state;
	log_patterns_init(&p);
	curve_init(&c);
	curve_scan_log(&c, out, strlen(out), &p.step, &p.spec, NULL);
	/* The second log adds the metrics asked for to the points there are. */
	curve_scan_log(&c, err, strlen(err), &p.step, &p.spec, only);
	assert_int_equal(c.n, 3);
	assert_true(point(&c, 1, "loss") == 2);
	assert_true(point(&c, 1, "val_acc") == 0.5);
	assert_true(point(&c, 3, "val_acc") == 0.6);
	assert_true(isnan(point(&c, 3, "loss")));
	curve_release(&c);
	log_patterns_release(&p);
}

static void test_curve_scan_log_hostile(void **state)
{
	/* NUL bytes are bytes; the text need not end in one. */
	static const char nul[] = "epoch 1\0 loss 4\nepoch\0 2 loss 3\n\0val_acc 0.5\nepoch 3";
	struct strbuf sb = STRBUF_INIT;
	struct log_patterns p;
	struct curve c;
	char *copy;

	(void)state;
	log_patterns_init(&p);
	curve_init(&c);
	copy = xmalloc(sizeof(nul) - 1);
	memcpy(copy, nul, sizeof(nul) - 1);
	scan(&c, &p, copy, sizeof(nul) - 1);
	free(copy);
	/* "epoch\0 2" is no step: loss 3 is epoch 1's; a NUL does not end a line. */
	assert_int_equal(c.n, 1);
	assert_true(point(&c, 1, "loss") == 3);
	assert_true(point(&c, 1, "val_acc") == 0.5);

	/* A tqdm bar: one 4 MB line of '\r'-separated updates, then the metrics. */
	strbuf_addstr(&sb, "epoch 7 ");
	for (size_t i = 0; i < 400000; i++)
		strbuf_addstr(&sb, "\r 50%|###|");
	strbuf_addstr(&sb, " loss 0.25\nval_acc 0.75\n");
	scan(&c, &p, sb.buf, sb.len);
	assert_int_equal(c.n, 1);
	assert_true(point(&c, 7, "loss") == 0.25);
	assert_true(point(&c, 7, "val_acc") == 0.75);
	strbuf_release(&sb);
	curve_release(&c);
	log_patterns_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_curve_parse),
	    cmocka_unit_test(test_curve_parse_errors),
	    cmocka_unit_test(test_curve_read),
	    cmocka_unit_test(test_curve_path),
	    cmocka_unit_test(test_curve_band_truncated_to_shortest),
	    cmocka_unit_test(test_curve_keys),
	    cmocka_unit_test(test_curve_figure),
	    cmocka_unit_test(test_curve_scan_log),
	    cmocka_unit_test(test_curve_scan_log_only_and_merge),
	    cmocka_unit_test(test_curve_scan_log_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
