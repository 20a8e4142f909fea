#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <cairo.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "curve.h"
#include "draw.h"
#include "gate.h"
#include "plan.h"
#include "helpers.h"
#include "outcome.h"
#include "plot.h"
#include "report.h"
#include "result.h"

#include "banned.h"

/*
 * A recorded sweep: lr in {0.001, 0.01, 0.1, 1} (a factor 1000: log axis)
 * x width in {16, 64}, wd fixed; five seeds. acc rises with width and
 * peaks at lr = 0.1; loss is its mirror. The numbers are made up, fixed,
 * and the same on every machine.
 */
#define NSET  8
#define NSEED 5
static char *params[] = {"lr", "width", "wd"};
static char *values[] = {
    "0.001", "16", "0", "0.001", "64", "0", "0.01", "16", "0", "0.01", "64", "0",
    "0.1",   "16", "0", "0.1",   "64", "0", "1",    "16", "0", "1",    "64", "0",
};
static int64_t seeds[] = {0, 1, 2, 3, 4};
static unsigned char varies[] = {1, 1, 0};
static const struct plan plan = {
    .params = params,
    .nparams = 3,
    .values = values,
    .nsettings = NSET,
    .seeds = seeds,
    .nseeds = NSEED,
    .ntasks = NSET * NSEED,
    .varies = varies,
};
static const double acc_mean[NSET] = {0.52, 0.55, 0.71, 0.76, 0.83, 0.90, 0.40, 0.61};
static const double noise[NSEED] = {-0.02, 0.01, 0.0, 0.015, -0.005};

struct fixture {
	struct task_outcome o[NSET * NSEED];
	struct result res[NSET * NSEED];
	struct gate_result g;
	struct report r;
};

static void fixture_build(struct fixture *fx, const enum compare_goal *goals)
{
	memset(fx, 0, sizeof(*fx));
	for (size_t i = 0; i < NSET * NSEED; i++) {
		double acc = acc_mean[i / NSEED] + noise[i % NSEED] * (1 + (double)(i / NSEED) / 4);
		char *text = xstrfmt("{\"acc\": %.6f, \"loss\": %.6f}", acc, 2.0 * (1.0 - acc));

		fx->o[i].state = TS_COMPLETED;
		result_init(&fx->res[i]);
		result_parse(&fx->res[i], text, strlen(text));
		free(text);
	}
	gate_result_init(&fx->g);
	gate_check(&fx->g, &plan, fx->o, fx->res, NULL, 0);
	assert_true(gate_complete(&fx->g));
	report_init(&fx->r);
	fx->r.name = "plot-fixture";
	report_build(&fx->r, &plan, &fx->g, fx->res);
	if (goals)
		report_rank(&fx->r, goals);
}

static void fixture_release(struct fixture *fx)
{
	report_release(&fx->r);
	gate_result_release(&fx->g);
	for (size_t i = 0; i < NSET * NSEED; i++)
		result_release(&fx->res[i]);
}

static void assert_ticks(const struct plot_axis *a, const char *const *want, size_t n)
{
	struct strbuf got = STRBUF_INIT;

	for (size_t i = 0; i < a->nticks; i++)
		strbuf_addf(&got, "%s%s", i ? " " : "", a->ticks[i].label);
	for (size_t i = 0; i < n; i++) {
		if (i >= a->nticks || strcmp(a->ticks[i].label, want[i]))
			fail_msg("ticks: got %s; tick %zu should be %s", got.buf, i, want[i]);
	}
	if (a->nticks != n)
		fail_msg("ticks: got %s (%zu), want %zu", got.buf, a->nticks, n);
	strbuf_release(&got);
}

static void test_plot_choose_x(void **state)
{
	unsigned char none[] = {0, 0, 0}, last[] = {0, 0, 1};
	struct plan p = plan;
	size_t x = 99;

	(void)state;
	assert_int_equal(plot_choose_x(&x, &plan, NULL), 0);
	assert_int_equal(x, 0);
	p.varies = last;
	assert_int_equal(plot_choose_x(&x, &p, NULL), 0);
	assert_int_equal(x, 2);
	p.varies = none; /* nothing varies: the first */
	assert_int_equal(plot_choose_x(&x, &p, NULL), 0);
	assert_int_equal(x, 0);
	assert_int_equal(plot_choose_x(&x, &plan, "width"), 0);
	assert_int_equal(x, 1);
	capture_errors();
	assert_true(plot_choose_x(&x, &plan, "depth") < 0);
	assert_string_equal(
	    captured.buf,
	    "error: no parameter 'depth' to plot against; the sweep has: lr, width, wd");
	p.nparams = 0;
	assert_true(plot_choose_x(&x, &p, NULL) < 0);
	assert_non_null(strstr(captured.buf, "error: the sweep has no parameter to plot against"));
	release_captured();
}

static void test_plot_numeric_and_log(void **state)
{
	static const char *const nums[] = {"1e-3", "0.01", "3"}, *const words[] = {"adam", "2"},
	                         *const empty[] = {""}, *const inf[] = {"inf"};
	static const double span100[] = {1, 100}, span101[] = {1, 101}, negative[] = {-1, 1000};
	double out[3];

	(void)state;
	assert_true(plot_numeric(out, nums, 3));
	assert_true(out[0] == 1e-3 && out[2] == 3);
	assert_false(plot_numeric(out, words, 2));
	assert_false(plot_numeric(out, empty, 1));
	assert_false(plot_numeric(out, inf, 1));
	/* More than a factor 100, all positive. */
	assert_false(plot_wants_log(span100, 2));
	assert_true(plot_wants_log(span101, 2));
	assert_false(plot_wants_log(negative, 2));
	assert_false(plot_wants_log(NULL, 0));
}

static void test_plot_axis_linear(void **state)
{
	static const double v[] = {0.12, NAN, 0.93};
	static const char *const want[] = {"0.0", "0.2", "0.4", "0.6", "0.8", "1.0"};
	static const double big[] = {1200, 9800};
	static const char *const want_big[] = {"0", "2000", "4000", "6000", "8000", "10000"};
	static const double quarter[] = {0.25, 1.75};
	static const char *const want_quarter[] = {"0.2", "0.4", "0.6", "0.8", "1.0",
	                                           "1.2", "1.4", "1.6", "1.8"};
	static const double one[] = {3.0}, zero[] = {0.0}, neg[] = {-0.3, 0.1};
	struct plot_axis a;

	(void)state;
	memset(&a, 0, sizeof(a));
	plot_axis_fit(&a, v, 3, false);
	assert_true(a.min == 0.0 && fabs(a.max - 1.0) < 1e-12);
	assert_ticks(&a, want, 6);
	plot_figure_release(&(struct plot_figure){0});
	{
		struct plot_figure fig = {0};
		struct plot_panel pn = {0};

		pn.y = a;
		fig.panels = xcalloc(1, sizeof(pn));
		fig.panels[0] = pn;
		fig.npanels = 1;
		plot_figure_release(&fig);
	}
	memset(&a, 0, sizeof(a));
	plot_axis_fit(&a, big, 2, false);
	assert_ticks(&a, want_big, 6);
	for (size_t i = 0; i < a.nticks; i++)
		free(a.ticks[i].label);
	free(a.ticks);
	memset(&a, 0, sizeof(a));
	plot_axis_fit(&a, quarter, 2, false);
	assert_ticks(&a, want_quarter, 9);
	for (size_t i = 0; i < a.nticks; i++)
		free(a.ticks[i].label);
	free(a.ticks);
	/* One value: widened by 10%; zero: by 1. No "-0". */
	memset(&a, 0, sizeof(a));
	plot_axis_fit(&a, one, 1, false);
	assert_true(a.min <= 2.7 && a.max >= 3.3 && a.max - a.min < 2);
	for (size_t i = 0; i < a.nticks; i++)
		free(a.ticks[i].label);
	free(a.ticks);
	memset(&a, 0, sizeof(a));
	plot_axis_fit(&a, zero, 1, false);
	assert_true(a.min == -1 && a.max == 1);
	for (size_t i = 0; i < a.nticks; i++) {
		assert_null(strstr(a.ticks[i].label, "-0.0"));
		free(a.ticks[i].label);
	}
	free(a.ticks);
	memset(&a, 0, sizeof(a));
	plot_axis_fit(&a, neg, 2, false);
	assert_true(a.min <= -0.3 && a.max >= 0.1);
	for (size_t i = 0; i < a.nticks; i++) {
		if (fabs(a.ticks[i].at) < 1e-12)
			assert_string_equal(a.ticks[i].label, "0.0");
		free(a.ticks[i].label);
	}
	free(a.ticks);
}

static void free_axis(struct plot_axis *a)
{
	for (size_t i = 0; i < a->nticks; i++)
		free(a->ticks[i].label);
	free(a->ticks);
	memset(a, 0, sizeof(*a));
}

static void test_plot_axis_log(void **state)
{
	static const double v[] = {0.001, 0.01, 0.1, 1};
	static const char *const want[] = {"0.001", "0.01", "0.1", "1"};
	static const double narrow[] = {3, 40};
	static const char *const want_narrow[] = {"5", "10", "20"};
	static const double one[] = {5};
	static const char *const want_one[] = {"3", "4", "5", "6", "7", "8", "9", "10"};
	static const double tiny[] = {3.1, 3.6};
	static const double many[] = {1e-12, 1e6};
	struct plot_axis a = {0};

	(void)state;
	plot_axis_fit(&a, v, 4, true);
	assert_true(a.log);
	assert_true(a.min == 0.001 && a.max == 1);
	assert_ticks(&a, want, 4);
	free_axis(&a);
	/* Fewer than three powers of ten inside: 2 and 5 times them too. */
	plot_axis_fit(&a, narrow, 2, true);
	assert_true(a.min == 3 && a.max == 40);
	assert_ticks(&a, want_narrow, 3);
	free_axis(&a);
	/* One value: a factor 2 each way, every digit. */
	plot_axis_fit(&a, one, 1, true);
	assert_true(a.min == 2.5 && a.max == 10);
	assert_ticks(&a, want_one, 8);
	free_axis(&a);
	/* No digit inside but 3: the ends. */
	plot_axis_fit(&a, tiny, 2, true);
	assert_true(a.min == 3.1 && a.max == 3.6);
	assert_int_equal(a.nticks, 2);
	assert_string_equal(a.ticks[0].label, "3.1");
	assert_string_equal(a.ticks[1].label, "3.6");
	free_axis(&a);
	/* Nineteen decades: every third labelled, no more than about eight. */
	plot_axis_fit(&a, many, 2, true);
	assert_true(a.nticks >= 5 && a.nticks <= 8);
	free_axis(&a);
}

/*
 * --logx pads to the data, not to whole decades: widths 3..700 are drawn
 * from 3 to 700 (before: 1 to 1000, a fifth of the plot empty).
 */
static void test_plot_axis_log_pads_to_data(void **state)
{
	static const double v[] = {3, 10, 30, 100, 300, 700};
	static const char *const want[] = {"5", "10", "20", "50", "100", "200", "500"};
	struct plot_axis a = {0};

	(void)state;
	plot_axis_fit(&a, v, 6, true);
	assert_true(a.min == 3 && a.max == 700);
	assert_ticks(&a, want, 7);
	for (size_t i = 0; i < a.nticks; i++)
		assert_true(a.ticks[i].at >= a.min && a.ticks[i].at <= a.max);
	free_axis(&a);
}

/* A curve's steps: the axis from the first step to the last, nice ticks inside. */
static void test_plot_axis_span(void **state)
{
	static const double steps[] = {1000, 1500, NAN, 10000};
	static const char *const want[] = {"2000", "4000", "6000", "8000", "10000"};
	static const double small[] = {0.25, 0.5, 0.75};
	static const char *const want_small[] = {"0.3", "0.4", "0.5", "0.6", "0.7"};
	static const double one[] = {1000};
	struct plot_axis a = {0};

	(void)state;
	plot_axis_fit_span(&a, steps, 4);
	assert_false(a.log);
	assert_true(a.min == 1000 && a.max == 10000);
	assert_ticks(&a, want, 5);
	free_axis(&a);
	plot_axis_fit_span(&a, small, 3);
	assert_true(a.min == 0.25 && a.max == 0.75);
	assert_ticks(&a, want_small, 5);
	free_axis(&a);
	/* One step: widened as plot_axis_fit does. */
	plot_axis_fit_span(&a, one, 1);
	assert_true(a.min < 1000 && a.max > 1000);
	free_axis(&a);
}

static void test_plot_axis_categories(void **state)
{
	static const char *const names[] = {"adam", "sgd", "lion"};
	struct plot_axis a = {0};

	(void)state;
	plot_axis_categories(&a, names, 3);
	assert_true(a.min == 0.5 && a.max == 3.5);
	assert_ticks(&a, names, 3);
	assert_true(a.ticks[2].at == 3.0);
	free_axis(&a);
}

static void test_plot_from_report(void **state)
{
	static const enum compare_goal goals[] = {GOAL_MAX, GOAL_MIN};
	struct fixture fx;
	struct plot_figure fig;
	const struct plot_panel *pn;

	(void)state;
	fixture_build(&fx, goals);
	plot_figure_init(&fig);
	assert_int_equal(plot_from_report(&fig, &fx.r, 0, false), 0);
	assert_int_equal(fig.npanels, 2);
	pn = &fig.panels[0];
	assert_string_equal(pn->y.label, "acc");
	assert_string_equal(pn->x.label, "lr (log scale)");
	assert_true(pn->x.log);
	/* One series per width, each over the four lr values in order. */
	assert_int_equal(pn->nseries, 2);
	assert_string_equal(pn->series[0].label, "width=16 (n = 5)");
	assert_string_equal(pn->series[1].label, "width=64 (n = 5)");
	assert_int_equal(pn->series[1].n, 4);
	assert_true(pn->series[1].x[0] == 0.001 && pn->series[1].x[3] == 1);
	/* The best acc is lr=0.1 width=64 (setting 5), the best loss the same. */
	assert_true(pn->series[1].best[2]);
	assert_int_equal(pn->series[1].best[0] + pn->series[1].best[1] + pn->series[1].best[3] +
	                     pn->series[0].best[0] + pn->series[0].best[1] + pn->series[0].best[2] +
	                     pn->series[0].best[3],
	                 0);
	assert_true(fig.panels[1].series[1].best[2]);
	/* Error bars: mean ± ci95, inside the y range. */
	{
		const struct stats_summary *st = report_stats(&fx.r, 5, 0);

		assert_true(pn->series[1].y[2] == st->mean);
		assert_true(pn->series[1].hi[2] == st->mean + st->ci95);
		assert_true(pn->y.min <= pn->series[1].lo[2] && pn->y.max >= pn->series[1].hi[2]);
	}
	assert_non_null(strstr(pn->title, "goal: max"));
	plot_figure_release(&fig);
	/* The sweep file's label names the y axis; a metric without one, its name. */
	fx.r.labels = (const char *const[]){"accuracy (%)", NULL};
	assert_int_equal(plot_from_report(&fig, &fx.r, 0, false), 0);
	assert_string_equal(fig.panels[0].y.label, "accuracy (%)");
	assert_string_equal(fig.panels[1].y.label, "loss");
	assert_non_null(strstr(fig.panels[0].title, "acc (goal: max"));
	plot_figure_release(&fig);
	/* The random search's scatter too, and its title can be replaced. */
	assert_int_equal(plot_from_sampled(&fig, &fx.r, 2, (const bool[]){true, false}), 0);
	assert_string_equal(fig.panels[0].y.label, "accuracy (%)");
	assert_string_equal(fig.panels[1].y.label, "accuracy (%)");
	assert_string_equal(fig.title, "sweep 'plot-fixture': acc against each sampled parameter");
	plot_set_title(&fig, "Figure 2");
	assert_string_equal(fig.title, "Figure 2");
	fx.r.labels = NULL;
	plot_figure_release(&fig);

	/* Along width: two values, linear; one series per lr. */
	assert_int_equal(plot_from_report(&fig, &fx.r, 1, false), 0);
	assert_false(fig.panels[0].x.log);
	assert_int_equal(fig.panels[0].nseries, 4);
	assert_string_equal(fig.panels[0].series[0].label, "lr=0.001 (n = 5)");
	plot_figure_release(&fig);
	/* Forced log along width is fine: its values are positive. */
	assert_int_equal(plot_from_report(&fig, &fx.r, 1, true), 0);
	assert_true(fig.panels[0].x.log);
	plot_figure_release(&fig);
	/* wd = 0 is not positive. */
	capture_errors();
	assert_true(plot_from_report(&fig, &fx.r, 2, true) < 0);
	assert_string_equal(captured.buf, "error: --logx: parameter 'wd' has the value '0', not a "
	                                  "positive number");
	release_captured();
	plot_figure_release(&fig);
	fixture_release(&fx);
}

/*
 * lr=1: 1e308 and -1e308, mean 0, std 1.41e308, a CI half-width past the
 * largest double; lr=2: 1 and 2. The first has no bar, and the y axis is
 * fitted to the finite values: before, an infinite bar (or, before the
 * statistics were scaled, an infinite mean) left the axis NaN.
 */
static void test_plot_huge_values(void **state)
{
	static char *p1[] = {"lr"};
	static char *v2[] = {"1", "2"};
	static int64_t s2[] = {0, 1};
	static unsigned char vary[] = {1};
	static const struct plan plan2x2 = {
	    .params = p1,
	    .nparams = 1,
	    .values = v2,
	    .nsettings = 2,
	    .seeds = s2,
	    .nseeds = 2,
	    .ntasks = 4,
	    .varies = vary,
	};
	static const char *const texts[] = {"{\"t\": 1e308}", "{\"t\": -1e308}", "{\"t\": 1}",
	                                    "{\"t\": 2}"};
	struct task_outcome o[4];
	struct result res[4];
	struct gate_result g;
	struct report r;
	struct plot_figure fig;
	const struct plot_panel *pn;

	(void)state;
	memset(o, 0, sizeof(o));
	for (size_t i = 0; i < 4; i++) {
		o[i].state = TS_COMPLETED;
		result_init(&res[i]);
		result_parse(&res[i], texts[i], strlen(texts[i]));
	}
	gate_result_init(&g);
	gate_check(&g, &plan2x2, o, res, NULL, 0);
	report_init(&r);
	r.name = "huge";
	report_build(&r, &plan2x2, &g, res);
	plot_figure_init(&fig);
	assert_int_equal(plot_from_report(&fig, &r, 0, false), 0);
	pn = &fig.panels[0];
	assert_int_equal(pn->nseries, 1);
	assert_true(pn->series[0].y[0] == 0.0);
	assert_true(isnan(pn->series[0].lo[0]) && isnan(pn->series[0].hi[0]));
	assert_true(pn->series[0].y[1] == 1.5 && pn->series[0].hi[1] > 2.0);
	assert_true(isfinite(pn->y.min) && isfinite(pn->y.max) && pn->y.nticks > 1);
	assert_true(pn->y.min <= pn->series[0].lo[1] && pn->y.max >= pn->series[0].hi[1]);
	plot_figure_release(&fig);
	report_release(&r);
	gate_result_release(&g);
	for (size_t i = 0; i < 4; i++)
		result_release(&res[i]);
}

static void test_plot_unranked_and_categorical(void **state)
{
	static char *cat_values[] = {"adam", "16",  "0",    "adam", "64",   "0",    "sgd", "16",
	                             "0",    "sgd", "64",   "0",    "lion", "16",   "0",   "lion",
	                             "64",   "0",   "adam", "16",   "1",    "adam", "64",  "1"};
	struct fixture fx;
	struct plot_figure fig;
	struct plan p = plan;

	(void)state;
	fixture_build(&fx, NULL);
	p.values = cat_values;
	p.varies = (unsigned char[]){1, 1, 1};
	fx.r.plan = &p;
	plot_figure_init(&fig);
	assert_int_equal(plot_from_report(&fig, &fx.r, 0, false), 0);
	/* Categories in order of first appearance; no best without a goal. */
	assert_false(fig.panels[0].x.log);
	assert_int_equal(fig.panels[0].x.nticks, 3);
	assert_string_equal(fig.panels[0].x.ticks[2].label, "lion");
	assert_int_equal(fig.panels[0].nseries, 4);
	assert_string_equal(fig.panels[0].series[3].label, "width=64, wd=1 (n = 5)");
	for (size_t s = 0; s < fig.panels[0].nseries; s++)
		for (size_t k = 0; k < fig.panels[0].series[s].n; k++)
			assert_false(fig.panels[0].series[s].best[k]);
	assert_string_equal(fig.panels[0].title, "acc");
	plot_figure_release(&fig);
	capture_errors();
	assert_true(plot_from_report(&fig, &fx.r, 0, true) < 0);
	assert_string_equal(captured.buf, "error: --logx: parameter 'lr' has the value 'adam', not "
	                                  "a positive number");
	release_captured();
	plot_figure_release(&fig);
	fixture_release(&fx);
}

static void test_plot_format_of(void **state)
{
	enum draw_format f;

	(void)state;
	assert_int_equal(draw_format_of(&f, "a.png"), 0);
	assert_int_equal(f, DRAW_PNG);
	assert_int_equal(draw_format_of(&f, "dir.x/a b.SVG"), 0);
	assert_int_equal(f, DRAW_SVG);
	assert_int_equal(draw_format_of(&f, "a.pdf"), 0);
	assert_int_equal(f, DRAW_PDF);
	capture_errors();
	assert_true(draw_format_of(&f, "a.jpg") < 0);
	assert_string_equal(captured.buf, "error: cannot tell the format of 'a.jpg': end its name "
	                                  "with .png, .svg or .pdf");
	assert_true(draw_format_of(&f, "dir.png/plot") < 0);
	release_captured();
}

static void test_plot_write_fails(void **state)
{
	struct plot_figure fig;
	struct fixture fx;

	(void)state;
	fixture_build(&fx, NULL);
	plot_figure_init(&fig);
	assert_int_equal(plot_from_report(&fig, &fx.r, 0, false), 0);
	capture_errors();
	assert_true(draw_figure(&fig, "/nonexistent-dir/plot.png") < 0);
	assert_non_null(
	    strstr(captured.buf, "error: cannot write the plot '/nonexistent-dir/plot.png'"));
	release_captured();
	plot_figure_release(&fig);
	fixture_release(&fx);
}

/*
 * The share of pixels of a and b (same size) whose channels differ by
 * more than 64 of 255: a tolerance for antialiasing, none for a moved
 * line or a missing label.
 */
static double pixel_difference(cairo_surface_t *a, cairo_surface_t *b)
{
	int w = cairo_image_surface_get_width(a), h = cairo_image_surface_get_height(a);
	int sa = cairo_image_surface_get_stride(a), sb = cairo_image_surface_get_stride(b);
	const unsigned char *pa, *pb;
	size_t differ = 0;

	cairo_surface_flush(a);
	cairo_surface_flush(b);
	pa = cairo_image_surface_get_data(a);
	pb = cairo_image_surface_get_data(b);
	for (int y = 0; y < h; y++) {
		for (int x = 0; x < w; x++) {
			for (int c = 0; c < 4; c++) {
				int d = pa[y * sa + 4 * x + c] - pb[y * sb + 4 * x + c];

				if (d > 64 || d < -64) {
					differ++;
					break;
				}
			}
		}
	}
	return (double)differ / ((double)w * (double)h);
}

/*
 * Renders the recorded sweep and compares it with tests/data/plot/
 * report.png. After a deliberate change of the drawing, regenerate it
 * with SWEEP_REGENERATE=1 build/tests/test_plot and look at it.
 */
static void test_plot_matches_reference(void **state)
{
	static const enum compare_goal goals[] = {GOAL_MAX, GOAL_MIN};
	const char *reference = SWEEP_TEST_DATA "/plot/report.png";
	char *dir = make_tmpdir(), *path = xstrfmt("%s/report.png", dir);
	struct plot_figure fig;
	struct fixture fx;
	cairo_surface_t *got, *want;
	double diff;

	(void)state;
	fixture_build(&fx, goals);
	plot_figure_init(&fig);
	assert_int_equal(plot_from_report(&fig, &fx.r, 0, false), 0);
	if (getenv("SWEEP_REGENERATE")) {
		assert_int_equal(draw_figure(&fig, reference), 0);
		print_message("wrote %s\n", reference);
	}
	assert_int_equal(draw_figure(&fig, path), 0);
	got = cairo_image_surface_create_from_png(path);
	want = cairo_image_surface_create_from_png(reference);
	assert_int_equal(cairo_surface_status(got), CAIRO_STATUS_SUCCESS);
	if (cairo_surface_status(want) != CAIRO_STATUS_SUCCESS)
		fail_msg("cannot read the reference %s", reference);
	assert_int_equal(cairo_image_surface_get_width(got), cairo_image_surface_get_width(want));
	assert_int_equal(cairo_image_surface_get_height(got), cairo_image_surface_get_height(want));
	diff = pixel_difference(got, want);
	if (diff > 0.002)
		fail_msg("%s differs from %s in %.3f%% of its pixels", path, reference, 100 * diff);
	/* The comparison can fail: without the best ring the picture differs. */
	for (size_t p = 0; p < fig.npanels; p++)
		for (size_t s = 0; s < fig.panels[p].nseries; s++)
			memset(fig.panels[p].series[s].best, 0, fig.panels[p].series[s].n);
	assert_int_equal(draw_figure(&fig, path), 0);
	cairo_surface_destroy(got);
	got = cairo_image_surface_create_from_png(path);
	assert_true(pixel_difference(got, want) > 0.0005);
	cairo_surface_destroy(got);
	cairo_surface_destroy(want);
	plot_figure_release(&fig);
	fixture_release(&fx);
	remove_tree(dir);
	free(path);
	free(dir);
}

/* The black pixels (best rings) inside panel p's plot area. */
static size_t ring_pixels(const struct plot_figure *fig, size_t p, const char *path)
{
	struct draw_layout l;
	cairo_surface_t *img;
	const unsigned char *data;
	size_t n = 0;
	int stride;

	assert_int_equal(draw_figure(fig, path), 0);
	draw_layout(&l, fig);
	img = cairo_image_surface_create_from_png(path);
	assert_int_equal(cairo_surface_status(img), CAIRO_STATUS_SUCCESS);
	data = cairo_image_surface_get_data(img);
	stride = cairo_image_surface_get_stride(img);
	for (int y = (int)l.panels[p].frame.y + 2;
	     y < (int)(l.panels[p].frame.y + l.panels[p].frame.height) - 2; y++)
		for (int x = (int)l.panels[p].frame.x + 2;
		     x < (int)(l.panels[p].frame.x + l.panels[p].frame.width) - 2; x++) {
			uint32_t px =
			    *(const uint32_t *)(data + (size_t)y * (size_t)stride + 4 * (size_t)x);

			n += (px & 0xffffff) == 0;
		}
	cairo_surface_destroy(img);
	draw_layout_release(&l);
	return n;
}

/*
 * Plots a reader can trust (issue 34). The fixture: accuracies near 0 with
 * seeds far apart (width=16: the CI passes 0), and 0.5-0.9 (width=64).
 */
static void trust_fixture(struct fixture *fx)
{
	memset(fx, 0, sizeof(*fx));
	for (size_t i = 0; i < NSET * NSEED; i++) {
		double acc = (i / NSEED) % 2  ? 0.5 + 0.1 * (double)(i % NSEED)
		             : i % NSEED == 4 ? 0.4
		                              : 0.005 * (double)(i % NSEED);
		char *text = xstrfmt("{\"accuracy\": %.6f, \"loss\": %.6f}", acc, 3.0 - acc);

		fx->o[i].state = TS_COMPLETED;
		result_init(&fx->res[i]);
		result_parse(&fx->res[i], text, strlen(text));
		free(text);
	}
	gate_result_init(&fx->g);
	gate_check(&fx->g, &plan, fx->o, fx->res, NULL, 0);
	report_init(&fx->r);
	fx->r.name = "trust";
	report_build(&fx->r, &plan, &fx->g, fx->res);
}

/* An accuracy's CI is cut at its bound 0 and said so, not drawn below 0. */
static void test_plot_bounded_metric_cut(void **state)
{
	struct fixture fx;
	struct plot_figure fig;
	bool cut = false;

	(void)state;
	trust_fixture(&fx);
	plot_figure_init(&fig);
	assert_int_equal(plot_from_report(&fig, &fx.r, 0, false), 0);
	assert_string_equal(fig.panels[0].title, "accuracy");
	for (size_t i = 0; i < fig.panels[0].nseries; i++)
		for (size_t k = 0; k < fig.panels[0].series[i].n; k++) {
			assert_true(fig.panels[0].series[i].lo[k] >= 0.0);
			cut |= fig.panels[0].series[i].lo[k] == 0.0;
		}
	assert_true(cut);
	assert_true(fig.panels[0].y.min >= 0.0);
	assert_non_null(strstr(fig.panels[0].note, "cut at 0 or 1"));
	/* loss is no fraction: its bars are as they are. */
	assert_null(strstr(fig.panels[1].note, "cut"));
	plot_figure_release(&fig);
	fixture_release(&fx);
}

/* The legend gives n. */
static void test_plot_legend_gives_n(void **state)
{
	struct fixture fx;
	struct plot_figure fig;

	(void)state;
	trust_fixture(&fx);
	plot_figure_init(&fig);
	assert_int_equal(plot_from_report(&fig, &fx.r, 0, false), 0);
	assert_string_equal(fig.panels[0].series[0].label, "width=16 (n = 5)");
	plot_figure_release(&fig);
	assert_int_equal(plot_from_sampled(&fig, &fx.r, 2, (const bool[]){true, false}), 0);
	assert_string_equal(fig.panels[0].series[0].label, "all settings (n = 5)");
	plot_figure_release(&fig);
	fixture_release(&fx);
}

/* An integer parameter: integer ticks, none between (1.0 1.5 2.0 ... before). */
static void test_plot_integer_ticks(void **state)
{
	static char *int_values[] = {"1",  "16", "0",  "1",  "64", "0",  "2",  "16",
	                             "0",  "2",  "64", "0",  "3",  "16", "0",  "3",
	                             "64", "0",  "4",  "16", "0",  "4",  "64", "0"};
	static const char *const int_ticks[] = {"1", "2", "3", "4"};
	struct fixture fx;
	struct plot_figure fig;
	struct plan p = plan;

	(void)state;
	trust_fixture(&fx);
	p.values = int_values;
	fx.r.plan = &p;
	plot_figure_init(&fig);
	assert_int_equal(plot_from_report(&fig, &fx.r, 0, false), 0);
	assert_ticks(&fig.panels[0].x, int_ticks, 4);
	plot_figure_release(&fig);
	fx.r.plan = &plan;
	fixture_release(&fx);
}

/* The random search's scatter: one legend, the first panel's. */
static void test_plot_sampled_one_legend(void **state)
{
	static const enum compare_goal goals[] = {GOAL_MAX, GOAL_MIN};
	struct fixture fx;
	struct plot_figure fig;
	struct draw_layout l;

	(void)state;
	trust_fixture(&fx);
	report_rank(&fx.r, goals);
	plot_figure_init(&fig);
	assert_int_equal(plot_from_sampled(&fig, &fx.r, 2, (const bool[]){true, false}), 0);
	draw_layout(&l, &fig);
	assert_true(l.panels[0].nlabels > 0);
	assert_int_equal(l.panels[1].nlabels, 0);
	assert_true(l.panels[1].legend.height == 0);
	draw_layout_release(&l);
	plot_figure_release(&fig);
	fixture_release(&fx);
}

/* Two best points at one place (a tie): both are seen, two rings. */
static void test_plot_tie_both_seen(void **state)
{
	static const enum compare_goal goals[] = {GOAL_MAX, GOAL_MIN};
	char *dir = make_tmpdir(), *path = xstrfmt("%s/tie.png", dir);
	struct fixture fx;
	struct plot_figure fig;
	const struct plot_series *s;
	size_t one, two;

	(void)state;
	trust_fixture(&fx);
	report_rank(&fx.r, goals);
	plot_figure_init(&fig);
	assert_int_equal(plot_from_sampled(&fig, &fx.r, 2, (const bool[]){true, false}), 0);
	s = &fig.panels[1].series[0];
	memset(s->best, 0, s->n);
	s->best[0] = 1;
	one = ring_pixels(&fig, 1, path);
	for (size_t k = 1; k < s->n; k++)
		if (s->x[k] == s->x[0]) {
			s->y[k] = s->y[0];
			s->lo[k] = s->lo[0];
			s->hi[k] = s->hi[0];
			s->best[k] = 1;
			break;
		}
	two = ring_pixels(&fig, 1, path);
	if (two < one * 3 / 2)
		fail_msg("a tie at one place shows one ring: %zu black pixels, one ring %zu", two,
		         one);
	plot_figure_release(&fig);
	fixture_release(&fx);
	remove_tree(dir);
	free(path);
	free(dir);
}

/*
 * Eight settings with long names, as a user's sweep has them, and their
 * learning curves from step 1000 to 10000.
 */
static char *long_params[] = {"lr", "batch", "opt"};
static char *long_values[] = {
    "0.0003", "256",  "adamw", "0.0003", "256",  "sgd_momentum_nesterov",
    "0.0003", "1024", "adamw", "0.0003", "1024", "sgd_momentum_nesterov",
    "0.001",  "256",  "adamw", "0.001",  "256",  "sgd_momentum_nesterov",
    "0.001",  "1024", "adamw", "0.001",  "1024", "sgd_momentum_nesterov",
};
static unsigned char long_varies[] = {1, 1, 1};
static const struct plan long_plan = {
    .params = long_params,
    .nparams = 3,
    .values = long_values,
    .nsettings = 8,
    .seeds = seeds,
    .nseeds = 2,
    .ntasks = 16,
    .varies = long_varies,
};

#define NSTEPS 19

static void curves_figure(struct plot_figure *fig, const char *const *labels)
{
	static const char *const metrics[] = {"loss"};
	static double steps[NSTEPS], mean[NSTEPS], std[NSTEPS];
	struct curve_band bands[8];
	size_t nseeds[8];

	for (size_t i = 0; i < NSTEPS; i++) {
		steps[i] = 1000 + 500 * (double)i;
		mean[i] = 0.4 + 2.0 * exp(-(double)i / 6);
		std[i] = 0.05;
	}
	for (size_t s = 0; s < 8; s++) {
		bands[s] =
		    (struct curve_band){.n = NSTEPS, .steps = steps, .mean = mean, .std = std};
		nseeds[s] = 2;
	}
	plot_figure_init(fig);
	plot_from_curves(fig, "sweep 'long': learning curves", &long_plan, metrics, labels, 1,
	                 bands, nseeds, "step");
}

/* A curve that starts at step 1000 is drawn from 1000, not from 0. */
static void test_plot_curves_from_first_step(void **state)
{
	static const char *const labels[] = {"train loss (nats)"};
	struct plot_figure fig;

	(void)state;
	curves_figure(&fig, labels);
	assert_true(fig.panels[0].x.min == 1000);
	assert_true(fig.panels[0].x.max == 10000);
	assert_string_equal(fig.panels[0].y.label, "train loss (nats)");
	assert_string_equal(fig.panels[0].x.label, "step");
	plot_figure_release(&fig);
	curves_figure(&fig, NULL);
	assert_string_equal(fig.panels[0].y.label, "loss");
	plot_figure_release(&fig);
}

/* Text without its spaces: a wrapped label is the label, nothing cut or added. */
static char *without_spaces(const char *s)
{
	struct strbuf sb = STRBUF_INIT;

	for (; *s; s++)
		if (*s != ' ')
			strbuf_addch(&sb, *s);
	return strbuf_detach(&sb, NULL);
}

static void assert_lines_are(const struct draw_text *t, const char *text, double width, double size,
                             bool bold)
{
	cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
	cairo_t *cr = cairo_create(surface);
	struct strbuf joined = STRBUF_INIT;
	char *a, *b;

	cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
	                       bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, size);
	assert_true(t->n >= 1);
	for (size_t k = 0; k < t->n; k++) {
		cairo_text_extents_t ext;

		cairo_text_extents(cr, t->lines[k], &ext);
		if (ext.x_advance > width + 0.5)
			fail_msg("'%s' is %.1f wide, more than %.1f", t->lines[k], ext.x_advance,
			         width);
		strbuf_addstr(&joined, t->lines[k]);
	}
	a = without_spaces(text);
	b = without_spaces(joined.buf);
	if (strcmp(a, b))
		fail_msg("the lines '%s' are not the text '%s'", joined.buf, text);
	free(a);
	free(b);
	strbuf_release(&joined);
	cairo_destroy(cr);
	cairo_surface_destroy(surface);
}

static void assert_inside(const struct draw_box *in, const struct draw_box *out)
{
	if (in->x < out->x || in->y < out->y || in->x + in->width > out->x + out->width + 1e-9 ||
	    in->y + in->height > out->y + out->height + 1e-9)
		fail_msg("box %.0f,%.0f %.0fx%.0f is not inside %.0f,%.0f %.0fx%.0f", in->x, in->y,
		         in->width, in->height, out->x, out->y, out->width, out->height);
}

/* Every legend lies inside its panel, right of the plot, the panels inside the image. */
static void assert_layout_fits(const struct plot_figure *fig, const struct draw_layout *l)
{
	struct draw_box image = {0, 0, l->width, l->height};
	double bottom = l->title_height;

	assert_int_equal(l->npanels, fig->npanels);
	for (size_t p = 0; p < l->npanels; p++) {
		const struct draw_panel *dp = &l->panels[p];

		assert_inside(&dp->area, &image);
		assert_inside(&dp->frame, &dp->area);
		assert_inside(&dp->legend, &dp->area);
		assert_true(dp->legend.x >= dp->frame.x + dp->frame.width);
		assert_true(dp->ylabel_x > 0 && dp->ylabel_x < dp->frame.x);
		assert_true(dp->area.y >= bottom - 1e-9);
		bottom = dp->area.y + dp->area.height;
		assert_int_equal(dp->nlabels, fig->panels[p].nseries);
		for (size_t i = 0; i < dp->nlabels; i++)
			assert_lines_are(&dp->labels[i], fig->panels[p].series[i].label,
			                 dp->legend.width - 44, 12, false);
	}
	assert_true(bottom <= l->height + 1e-9);
}

/*
 * Long legends are not cut off: each label wraps onto lines that fit the
 * legend (before: "lr=0.0003 batch=256 opt=sgd_momen..."), and the
 * drawing is as big as the layout says.
 */
static void test_plot_long_legend_fits(void **state)
{
	struct plot_figure fig;
	struct draw_layout l;
	char *dir = make_tmpdir(), *path = xstrfmt("%s/curves.png", dir);
	cairo_surface_t *png;
	size_t wrapped = 0;

	(void)state;
	curves_figure(&fig, NULL);
	assert_string_equal(
	    fig.panels[0].series[1].label,
	    "lr=0.0003 batch=256 opt=sgd_momentum_nesterov (2 seeds, to step 10000)");
	draw_layout(&l, &fig);
	assert_layout_fits(&fig, &l);
	for (size_t i = 0; i < l.panels[0].nlabels; i++) {
		const struct draw_text *t = &l.panels[0].labels[i];

		wrapped += t->n > 1;
		/* The seeds and the last step stay together on their own line. */
		assert_string_equal(t->lines[t->n - 1], "(2 seeds, to step 10000)");
	}
	assert_int_equal(wrapped, 8);
	assert_int_equal(draw_figure(&fig, path), 0);
	png = cairo_image_surface_create_from_png(path);
	assert_int_equal(cairo_surface_status(png), CAIRO_STATUS_SUCCESS);
	assert_int_equal(cairo_image_surface_get_width(png), (int)ceil(l.width));
	assert_int_equal(cairo_image_surface_get_height(png), (int)ceil(l.height));
	cairo_surface_destroy(png);
	draw_layout_release(&l);
	plot_figure_release(&fig);
	remove_tree(dir);
	free(path);
	free(dir);
}

/*
 * More entries than a panel's height holds, and a word longer than the
 * legend: the panel grows to the legend, the word breaks after '_' or
 * wherever it must.
 */
static void test_plot_many_entries_fit(void **state)
{
	struct plot_figure fig;
	struct draw_layout l;
	const size_t n = 40;

	(void)state;
	plot_figure_init(&fig);
	fig.panels = xcalloc(2, sizeof(*fig.panels));
	fig.npanels = 2;
	for (size_t p = 0; p < 2; p++) {
		struct plot_panel *pn = &fig.panels[p];

		pn->title = xstrdup("loss by step");
		pn->note = xstrdup("mean over seeds, band ±1 std");
		pn->style = PLOT_BANDS;
		pn->series = xcalloc(n, sizeof(*pn->series));
		pn->nseries = p ? 2 : n;
		for (size_t i = 0; i < pn->nseries; i++)
			pn->series[i].label =
			    i == 1   ? xstrdup("arch=resnet50_pretrained_imagenet_finetuned_"
			                         "with_a_very_long_name_indeed lr=0.1")
			    : i == 0 ? xstrdup("wwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwww")
			             : xstrfmt("setting %zu with a label of several words", i);
		plot_axis_fit(&pn->x, (double[]){0, 1}, 2, false);
		plot_axis_fit(&pn->y, (double[]){0, 1}, 2, false);
	}
	draw_layout(&l, &fig);
	assert_layout_fits(&fig, &l);
	assert_true(l.panels[0].area.height > 430);
	assert_true(l.panels[1].area.height == 430);
	assert_true(l.panels[0].labels[1].n >= 2);
	assert_true(l.panels[0].labels[0].n >= 2);
	/* The long word breaks after a '_'. */
	{
		const char *first = l.panels[0].labels[1].lines[0];

		assert_true(first[strlen(first) - 1] == '_');
	}
	draw_layout_release(&l);
	plot_figure_release(&fig);
}

/*
 * --title replaces the title, and wraps when long; --no-title leaves no
 * room for one; wide tick labels widen the left margin.
 */
static void test_plot_title(void **state)
{
	static const char *const long_title =
	    "Figure 3: validation accuracy of the small convolutional network on CIFAR-10 "
	    "against the learning rate, five seeds per setting";
	struct plot_figure fig;
	struct draw_layout l;
	struct fixture fx;

	(void)state;
	fixture_build(&fx, NULL);
	plot_figure_init(&fig);
	assert_int_equal(plot_from_report(&fig, &fx.r, 0, false), 0);
	assert_string_equal(fig.title, "sweep 'plot-fixture'");
	draw_layout(&l, &fig);
	assert_true(l.title_height == 34);
	assert_int_equal(l.title.n, 1);
	assert_true(l.height == 34 + 2 * 430);
	assert_true(l.panels[0].frame.x == 84);
	draw_layout_release(&l);

	plot_set_title(&fig, "Figure 3");
	assert_string_equal(fig.title, "Figure 3");
	plot_set_title(&fig, long_title);
	draw_layout(&l, &fig);
	assert_true(l.title.n >= 2);
	assert_true(l.title_height > 34);
	assert_lines_are(&l.title, long_title, 880 - 32, 16, true);
	assert_true(l.panels[0].area.y == l.title_height);
	assert_layout_fits(&fig, &l);
	draw_layout_release(&l);

	plot_set_title(&fig, NULL);
	assert_null(fig.title);
	draw_layout(&l, &fig);
	assert_true(l.title_height == 0);
	assert_int_equal(l.title.n, 0);
	assert_true(l.panels[0].area.y == 0);
	assert_true(l.height == 2 * 430);
	draw_layout_release(&l);

	/* Tick labels such as 0.000125 push the plot right, not into the y label. */
	free(fig.panels[0].y.ticks[0].label);
	fig.panels[0].y.ticks[0].label = xstrdup("0.000125000");
	draw_layout(&l, &fig);
	assert_true(l.panels[0].frame.x > 84);
	assert_true(l.panels[0].frame.x == l.panels[1].frame.x);
	assert_layout_fits(&fig, &l);
	draw_layout_release(&l);
	plot_figure_release(&fig);
	fixture_release(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_plot_choose_x),
	    cmocka_unit_test(test_plot_numeric_and_log),
	    cmocka_unit_test(test_plot_axis_linear),
	    cmocka_unit_test(test_plot_axis_log),
	    cmocka_unit_test(test_plot_axis_log_pads_to_data),
	    cmocka_unit_test(test_plot_axis_span),
	    cmocka_unit_test(test_plot_curves_from_first_step),
	    cmocka_unit_test(test_plot_long_legend_fits),
	    cmocka_unit_test(test_plot_many_entries_fit),
	    cmocka_unit_test(test_plot_title),
	    cmocka_unit_test(test_plot_axis_categories),
	    cmocka_unit_test(test_plot_from_report),
	    cmocka_unit_test(test_plot_huge_values),
	    cmocka_unit_test(test_plot_unranked_and_categorical),
	    cmocka_unit_test(test_plot_format_of),
	    cmocka_unit_test(test_plot_write_fails),
	    cmocka_unit_test(test_plot_matches_reference),
	    cmocka_unit_test(test_plot_bounded_metric_cut),
	    cmocka_unit_test(test_plot_legend_gives_n),
	    cmocka_unit_test(test_plot_integer_ticks),
	    cmocka_unit_test(test_plot_sampled_one_legend),
	    cmocka_unit_test(test_plot_tie_both_seen),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
