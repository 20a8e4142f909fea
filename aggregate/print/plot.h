#ifndef SWEEP_PLOT_H
#define SWEEP_PLOT_H

#include <stdbool.h>
#include <stddef.h>

struct curve_band;
struct plan;
struct report;

/*
 * What a figure shows, worked out without drawing: series grouped from the
 * settings, axis ranges, ticks and their labels. Pure, so that tests check
 * the layout from recorded data; draw.h turns a figure into PNG, SVG or PDF.
 *
 * Every string and array is owned by the struct that holds it;
 * plot_figure_release frees them all.
 */

struct plot_series {
	char *label; /* "width=16", or "" when there is one series */
	size_t n;
	double *x;  /* axis units: the value, or the category's position 1..k */
	double *y;  /* the mean */
	double *lo; /* the lower end of the error bar or band; NAN when none */
	double *hi;
	unsigned char *best; /* per point: 1 marks the best setting */
	/*
	 * Per point, for a metric bounded to [0, 1] whose CI passes a bound:
	 * PLOT_CUT_LO when lo was cut to 0, PLOT_CUT_HI when hi was cut to 1
	 * (both may be set); drawn as an arrow. NULL: nothing cut.
	 */
	unsigned char *cut;
};

#define PLOT_CUT_LO 1
#define PLOT_CUT_HI 2

struct plot_tick {
	double at; /* in data units, within the axis range */
	char *label;
};

struct plot_axis {
	char *label;
	bool log;        /* positions are drawn by log10 */
	double min, max; /* the range drawn, in data units */
	struct plot_tick *ticks;
	size_t nticks, alloc;
};

enum plot_style {
	PLOT_ERROR_BARS, /* markers joined by lines, with error bars lo..hi */
	PLOT_BANDS,      /* lines with a shaded band lo..hi */
	PLOT_SCATTER,    /* markers with error bars lo..hi, not joined */
};

struct plot_panel {
	char *title;
	char *note; /* a line under the legend, or NULL */
	enum plot_style style;
	struct plot_axis x, y;
	struct plot_series *series;
	size_t nseries;
	bool no_legend; /* the figure's first panel holds the legend for this one too */
};

struct plot_figure {
	char *title;
	struct plot_panel *panels; /* drawn one below another */
	size_t npanels;
};

void plot_figure_init(struct plot_figure *fig);
void plot_figure_release(struct plot_figure *fig);

/*
 * Replaces fig's title with a copy of title (report --title), or leaves
 * it without one when title is NULL (--no-title): then draw.h gives it no
 * room.
 */
void plot_set_title(struct plot_figure *fig, const char *title);

/*
 * The parameter a report plots along x: the one named want (an error when
 * the plan has none of that name), or by default the first that takes
 * more than one value (the first parameter when none does). Returns its
 * index or SWEEP_ERR.
 */
int plot_choose_x(size_t *out, const struct plan *plan, const char *want);

/*
 * Whether values v[0..n-1] all read as numbers (strtod over the whole
 * text); their numbers into out when so.
 */
bool plot_numeric(double *out, const char *const *v, size_t n);

/*
 * Whether an axis over positive values v[0..n-1] should be logarithmic:
 * every value positive and max / min > 100.
 */
bool plot_wants_log(const double *v, size_t n);

/*
 * Fits a numeric axis to the data values v[0..n-1] (NANs ignored). Linear:
 * "nice" ticks (1, 2 or 5 times a power of ten, about five of them) and a
 * range from the tick below the least value to the tick above the
 * greatest. With log, the range is the data's own, least to greatest value
 * (3..700 stays 3..700, not 1..1000), with ticks at the powers of ten in
 * it, or at 1, 2 and 5 times them, or at every digit, whichever first
 * gives three (the two ends when none does). A range of one value is
 * widened (log: by a factor 2 each way). log needs every value positive
 * (assert).
 */
void plot_axis_fit(struct plot_axis *axis, const double *v, size_t n, bool log);

/* The same, linear, for whole numbers (an integer parameter): no tick between two. */
void plot_axis_fit_integers(struct plot_axis *axis, const double *v, size_t n);

/*
 * A linear axis over the data's own span, from the least value to the
 * greatest (a learning curve's first and last step), with nice ticks
 * inside it. A span of one value is fitted as plot_axis_fit does.
 */
void plot_axis_fit_span(struct plot_axis *axis, const double *v, size_t n);

/* A categorical axis: labels at positions 1..n, range 0.5..n+0.5. */
void plot_axis_categories(struct plot_axis *axis, const char *const *labels, size_t n);

/*
 * The figure of report r: per metric one panel, the mean with its 95% CI
 * as error bars against parameter xparam, one series per combination of
 * the other varying parameters, the best setting marked where r was
 * ranked. A series' label ends with its n, the seeds per point ("width=16
 * (n = 5)", "all settings (n = 3-5)"). A metric whose name says it is a
 * fraction (accuracy, error...) and whose means are all in [0, 1] has its
 * bars cut at 0 and 1 (plot_series.cut, and the panel's note says so). An
 * x parameter of whole numbers gets whole-number ticks. A panel's y axis
 * is labelled r->labels[m] where r has one, else the metric's name. x is
 * logarithmic when logx, or when its values are numbers that
 * plot_wants_log. Settings without a mean are left out; a series with no
 * point is dropped. Fails (error()) when logx is asked of an axis with a
 * value that is not a positive number.
 */
int plot_from_report(struct plot_figure *out, const struct report *r, size_t xparam, bool logx);

/*
 * The figure of a sampled sweep (random search): for the first metric with
 * a goal (the first metric when none has one), one panel per sampled
 * parameter, the plan's first nsampled: each setting's mean with its 95% CI
 * as a scatter against the parameter's value, x logarithmic where
 * logx[p], the best setting ringed where r was ranked. One legend, the
 * first panel's (the others have no_legend). Fails (error()) as
 * plot_from_report does.
 */
int plot_from_sampled(struct plot_figure *out, const struct report *r, size_t nsampled,
                      const bool *logx);

/*
 * The learning-curve figure: per metric (metrics[0..nmetrics-1]) one
 * panel, per setting of plan one series, the mean over its seeds with a
 * band of ±1 std, from bands[s * nmetrics + m] over nseeds[s] seeds. The
 * legend says how many seeds and the last step they all reached. The x
 * axis runs from the first step recorded to the last; the y axis is
 * labelled labels[m] where labels (may be NULL) has one, else metrics[m].
 */
void plot_from_curves(struct plot_figure *out, const char *title, const struct plan *plan,
                      const char *const *metrics, const char *const *labels, size_t nmetrics,
                      const struct curve_band *bands, const size_t *nseeds, const char *step_key);

#endif
