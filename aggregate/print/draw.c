#include "draw.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "error.h"
#include "strbuf.h"

#include "banned.h"

/* Sizes in points (pixels for PNG). */
#define FIG_WIDTH        880.0
#define PANEL_HEIGHT     430.0
#define FIG_TITLE_HEIGHT 34.0
#define TITLE_LINE       20.0 /* each further line of a long title */
#define MARGIN_LEFT      84.0 /* at least; more for wide tick labels */
#define MARGIN_TOP       34.0
#define MARGIN_BOTTOM    62.0
#define LEGEND_MIN       150.0
#define LEGEND_MAX       300.0
#define LEGEND_GAP       18.0 /* from the plot to the legend */
#define LEGEND_TEXT      36.0 /* from the legend's left to its labels */
#define LEGEND_RIGHT     8.0  /* room right of the labels */
#define LEGEND_ROW       20.0 /* a one-line entry */
#define LEGEND_LINE      15.0 /* each further line of a label */
#define NOTE_LINE        16.0
#define FONT             "DejaVu Sans"
#define PI               3.14159265358979323846

/* Colour-blind safe, distinct in grey too (Okabe and Ito). */
static const double palette[][3] = {
    {0.000, 0.447, 0.698}, {0.835, 0.369, 0.000}, {0.000, 0.620, 0.451}, {0.800, 0.475, 0.655},
    {0.902, 0.624, 0.000}, {0.337, 0.706, 0.914}, {0.941, 0.894, 0.259}, {0.0, 0.0, 0.0},
};
#define NCOLOURS (sizeof(palette) / sizeof(palette[0]))

int draw_format_of(enum draw_format *out, const char *path)
{
	const char *dot = strrchr(path, '.');

	if (dot && !strchr(dot, '/')) {
		if (!strcasecmp(dot, ".png"))
			*out = DRAW_PNG;
		else if (!strcasecmp(dot, ".svg"))
			*out = DRAW_SVG;
		else if (!strcasecmp(dot, ".pdf"))
			*out = DRAW_PDF;
		else
			dot = NULL;
		if (dot)
			return 0;
	}
	return error("cannot tell the format of '%s': end its name with .png, .svg or .pdf", path);
}

/* Where a panel's plot area lies, and how data maps into it. */
struct frame {
	double left, top, width, height;
	double ylabel_x; /* the centre of the rotated y label */
	const struct plot_axis *x, *y;
};

static double axis_pos(const struct plot_axis *a, double v)
{
	if (a->log)
		return (log10(v) - log10(a->min)) / (log10(a->max) - log10(a->min));
	return (v - a->min) / (a->max - a->min);
}

/* Room inside the frame, so that points at the ends of a range are not cut. */
#define PAD_X 26.0
#define PAD_Y 12.0

static double px(const struct frame *f, double v)
{
	return f->left + PAD_X + axis_pos(f->x, v) * (f->width - 2 * PAD_X);
}

static double py(const struct frame *f, double v)
{
	return f->top + PAD_Y + (1.0 - axis_pos(f->y, v)) * (f->height - 2 * PAD_Y);
}

static void set_font(cairo_t *cr, double size, bool bold)
{
	cairo_select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL,
	                       bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, size);
}

static double text_width(cairo_t *cr, const char *text)
{
	cairo_text_extents_t ext;

	cairo_text_extents(cr, text, &ext);
	return ext.x_advance;
}

/* Text with its anchor at (x, y): ax 0 left, 0.5 centre, 1 right; ay likewise top to bottom. */
static void text_at(cairo_t *cr, const char *text, double x, double y, double ax, double ay)
{
	cairo_font_extents_t fe;

	cairo_font_extents(cr, &fe);
	cairo_move_to(cr, x - ax * text_width(cr, text),
	              y + fe.ascent - ay * (fe.ascent + fe.descent));
	cairo_show_text(cr, text);
}

/* text cut with "..." to fit width; the caller frees it. */
static char *fit_text(cairo_t *cr, const char *text, double width)
{
	size_t len = strlen(text);
	char *s = xstrdup(text);

	while (len > 0 && text_width(cr, s) > width) {
		len--;
		/* Cut at a UTF-8 character boundary. */
		while (len > 0 && ((unsigned char)text[len] & 0xc0) == 0x80)
			len--;
		free(s);
		s = xstrfmt("%.*s...", (int)len, text);
	}
	return s;
}

static void draw_axes(cairo_t *cr, const struct frame *f)
{
	char *label;

	cairo_set_line_width(cr, 1.0);
	/* Grid lines at the ticks, light. */
	cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
	for (size_t i = 0; i < f->y->nticks; i++) {
		double y = round(py(f, f->y->ticks[i].at)) + 0.5;

		cairo_move_to(cr, f->left, y);
		cairo_line_to(cr, f->left + f->width, y);
	}
	for (size_t i = 0; i < f->x->nticks; i++) {
		double x = round(px(f, f->x->ticks[i].at)) + 0.5;

		cairo_move_to(cr, x, f->top);
		cairo_line_to(cr, x, f->top + f->height);
	}
	cairo_stroke(cr);
	cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
	cairo_rectangle(cr, round(f->left) + 0.5, round(f->top) + 0.5, round(f->width),
	                round(f->height));
	cairo_stroke(cr);

	set_font(cr, 12, false);
	cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
	for (size_t i = 0; i < f->y->nticks; i++) {
		double y = py(f, f->y->ticks[i].at);

		cairo_move_to(cr, f->left - 5, round(y) + 0.5);
		cairo_line_to(cr, f->left, round(y) + 0.5);
		cairo_stroke(cr);
		text_at(cr, f->y->ticks[i].label, f->left - 8, y, 1.0, 0.5);
	}
	for (size_t i = 0; i < f->x->nticks; i++) {
		double x = px(f, f->x->ticks[i].at);

		cairo_move_to(cr, round(x) + 0.5, f->top + f->height);
		cairo_line_to(cr, round(x) + 0.5, f->top + f->height + 5);
		cairo_stroke(cr);
		text_at(cr, f->x->ticks[i].label, x, f->top + f->height + 8, 0.5, 0.0);
	}
	set_font(cr, 13, false);
	label = fit_text(cr, f->x->label, f->width);
	text_at(cr, label, f->left + f->width / 2, f->top + f->height + 32, 0.5, 0.0);
	free(label);
	label = fit_text(cr, f->y->label, f->height);
	cairo_save(cr);
	cairo_translate(cr, f->ylabel_x, f->top + f->height / 2);
	cairo_rotate(cr, -PI / 2);
	text_at(cr, label, 0, 0, 0.5, 0.5);
	cairo_restore(cr);
	free(label);
}

static void set_colour(cairo_t *cr, size_t i, double alpha)
{
	const double *c = palette[i % NCOLOURS];

	cairo_set_source_rgba(cr, c[0], c[1], c[2], alpha);
}

static void marker(cairo_t *cr, double x, double y)
{
	cairo_new_sub_path(cr);
	cairo_arc(cr, x, y, 4.0, 0, 2 * PI);
	cairo_fill(cr);
}

static void best_ring(cairo_t *cr, double x, double y)
{
	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_set_line_width(cr, 2.0);
	cairo_new_sub_path(cr);
	cairo_arc(cr, x, y, 9.0, 0, 2 * PI);
	cairo_stroke(cr);
}

/* The end of a bar cut at a bound: an arrow pointing past it (dir -1 up, +1 down). */
static void cut_arrow(cairo_t *cr, double x, double y, double dir)
{
	cairo_move_to(cr, x - 4.5, y - dir * 7);
	cairo_line_to(cr, x + 4.5, y - dir * 7);
	cairo_line_to(cr, x, y);
	cairo_close_path(cr);
	cairo_fill(cr);
}

/* Series side by side at one x, so that their bars do not hide each other. */
static double series_dodge(const struct plot_panel *pn, size_t i)
{
	return pn->style == PLOT_ERROR_BARS && pn->nseries > 1
	           ? ((double)i - (double)(pn->nseries - 1) / 2.0) *
	                 fmin(6.0, 36.0 / (double)pn->nseries)
	           : 0.0;
}

/*
 * Per point of every series, how far right of its x it is drawn: the
 * series' dodge, and for best points that would cover one another (tied
 * settings at one place) a spread, side by side, so that each is seen.
 * shift[i][k]; the caller frees shift[i] and shift.
 */
static double **point_shifts(const struct frame *f, const struct plot_panel *pn)
{
	double **shift = xcalloc(pn->nseries + 1, sizeof(*shift));
	struct at {
		double x, y;
		size_t i, k, group;
	} *best = NULL;
	size_t nbest = 0, alloc = 0;

	for (size_t i = 0; i < pn->nseries; i++) {
		const struct plot_series *s = &pn->series[i];

		shift[i] = xcalloc(s->n + 1, sizeof(double));
		for (size_t k = 0; k < s->n; k++) {
			shift[i][k] = series_dodge(pn, i);
			if (!s->best || !s->best[k])
				continue;
			ALLOC_GROW(best, nbest + 1, alloc);
			best[nbest] =
			    (struct at){px(f, s->x[k]) + shift[i][k], py(f, s->y[k]), i, k, nbest};
			for (size_t j = 0; j < nbest; j++)
				if (fabs(best[j].x - best[nbest].x) < 6 &&
				    fabs(best[j].y - best[nbest].y) < 6) {
					best[nbest].group = best[j].group;
					break;
				}
			nbest++;
		}
	}
	for (size_t j = 0; j < nbest; j++) {
		size_t size = 0, rank = 0;

		for (size_t q = 0; q < nbest; q++) {
			size += best[q].group == best[j].group;
			rank += best[q].group == best[j].group && q < j;
		}
		shift[best[j].i][best[j].k] += ((double)rank - (double)(size - 1) / 2.0) * 20.0;
	}
	free(best);
	return shift;
}

static void draw_series(cairo_t *cr, const struct frame *f, const struct plot_panel *pn, size_t i,
                        const double *shift)
{
	const struct plot_series *s = &pn->series[i];

	cairo_save(cr);
	cairo_rectangle(cr, f->left, f->top, f->width, f->height);
	cairo_clip(cr);
	if (pn->style == PLOT_BANDS) {
		bool open = false;

		set_colour(cr, i, 0.2);
		for (size_t k = 0; k <= s->n; k++) {
			/* One polygon per run of points that have a band. */
			if (k < s->n && !isnan(s->lo[k])) {
				if (!open)
					cairo_move_to(cr, px(f, s->x[k]), py(f, s->hi[k]));
				else
					cairo_line_to(cr, px(f, s->x[k]), py(f, s->hi[k]));
				open = true;
				continue;
			}
			if (!open)
				continue;
			for (size_t j = k; j-- > 0 && !isnan(s->lo[j]);)
				cairo_line_to(cr, px(f, s->x[j]), py(f, s->lo[j]));
			cairo_close_path(cr);
			cairo_fill(cr);
			open = false;
		}
	}
	set_colour(cr, i, 1.0);
	cairo_set_line_width(cr, 2.0);
	cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
	for (size_t k = 0; pn->style != PLOT_SCATTER && k < s->n; k++) {
		if (k == 0)
			cairo_move_to(cr, px(f, s->x[k]) + shift[k], py(f, s->y[k]));
		else
			cairo_line_to(cr, px(f, s->x[k]) + shift[k], py(f, s->y[k]));
	}
	cairo_stroke(cr);
	if (pn->style != PLOT_BANDS) {
		cairo_set_line_width(cr, 1.5);
		for (size_t k = 0; k < s->n; k++) {
			double x = px(f, s->x[k]) + shift[k];

			if (isnan(s->lo[k]))
				continue;
			cairo_move_to(cr, x, py(f, s->lo[k]));
			cairo_line_to(cr, x, py(f, s->hi[k]));
			if (!s->cut || !(s->cut[k] & PLOT_CUT_LO)) {
				cairo_move_to(cr, x - 4, py(f, s->lo[k]));
				cairo_line_to(cr, x + 4, py(f, s->lo[k]));
			}
			if (!s->cut || !(s->cut[k] & PLOT_CUT_HI)) {
				cairo_move_to(cr, x - 4, py(f, s->hi[k]));
				cairo_line_to(cr, x + 4, py(f, s->hi[k]));
			}
		}
		cairo_stroke(cr);
		for (size_t k = 0; s->cut && k < s->n; k++) {
			if (s->cut[k] & PLOT_CUT_LO)
				cut_arrow(cr, px(f, s->x[k]) + shift[k], py(f, s->lo[k]), 1);
			if (s->cut[k] & PLOT_CUT_HI)
				cut_arrow(cr, px(f, s->x[k]) + shift[k], py(f, s->hi[k]), -1);
		}
		for (size_t k = 0; k < s->n; k++)
			marker(cr, px(f, s->x[k]) + shift[k], py(f, s->y[k]));
	}
	for (size_t k = 0; s->best && k < s->n; k++)
		if (s->best[k])
			best_ring(cr, px(f, s->x[k]) + shift[k], py(f, s->y[k]));
	cairo_restore(cr);
}

/* ---- layout ---- */

static void text_add(struct draw_text *t, const char *s, size_t len)
{
	ALLOC_GROW(t->lines, t->n + 1, t->alloc);
	t->lines[t->n++] = xstrndup(s, len);
}

static void text_release(struct draw_text *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->lines[i]);
	free(t->lines);
	memset(t, 0, sizeof(*t));
}

static bool is_break_after(char c)
{
	return c == ',' || c == '/' || c == '_' || c == '-' || c == '=';
}

/*
 * The length of the longest head of word[0..len) that fits width: up to
 * its last break character if it has one, else whole characters, and at
 * least one character.
 */
static size_t fitting_head(cairo_t *cr, const char *word, size_t len, double width)
{
	size_t fits = 0, brk = 0, i = 0;

	while (i < len) {
		size_t next = i + 1;
		char *head;
		bool ok;

		while (next < len && ((unsigned char)word[next] & 0xc0) == 0x80)
			next++;
		head = xstrndup(word, next);
		ok = text_width(cr, head) <= width;
		free(head);
		if (!ok)
			break;
		fits = next;
		if (is_break_after(word[i]) && next < len)
			brk = next;
		i = next;
	}
	if (brk)
		return brk;
	if (fits)
		return fits;
	i = 1;
	while (i < len && ((unsigned char)word[i] & 0xc0) == 0x80)
		i++;
	return i;
}

/*
 * The length of the word at p: up to the next space, but a group in
 * parentheses, "(2 seeds, to step 500)", counts as one word where it fits
 * a line, so that it is not split.
 */
static size_t word_len(cairo_t *cr, const char *p, double width)
{
	const char *close = *p == '(' ? strchr(p, ')') : NULL;
	size_t n = strcspn(p, " ");

	if (close) {
		size_t group = (size_t)(close - p) + 1;
		char *text;
		bool fits;

		group += strcspn(p + group, " ");
		text = xstrndup(p, group);
		fits = text_width(cr, text) <= width;
		free(text);
		if (fits)
			return group;
	}
	return n;
}

/* Breaks text at spaces into lines no wider than width (a long word after a break character). */
static void wrap(struct draw_text *out, cairo_t *cr, const char *text, double width)
{
	struct strbuf line = STRBUF_INIT;
	const char *p = text;

	while (*p == ' ')
		p++;
	while (*p) {
		size_t word = word_len(cr, p, width), keep = line.len;

		if (line.len)
			strbuf_addch(&line, ' ');
		strbuf_add(&line, p, word);
		if (text_width(cr, line.buf) > width) {
			strbuf_setlen(&line, keep);
			if (keep)
				text_add(out, line.buf, line.len);
			strbuf_setlen(&line, 0);
			/* The word alone: in heads that fit, the rest starts the next line. */
			while (word) {
				size_t head;

				strbuf_setlen(&line, 0);
				strbuf_add(&line, p, word);
				if (text_width(cr, line.buf) <= width)
					break;
				head = fitting_head(cr, p, word, width);
				text_add(out, p, head);
				p += head;
				word -= head;
				strbuf_setlen(&line, 0);
			}
		}
		p += word;
		while (*p == ' ')
			p++;
	}
	if (line.len)
		text_add(out, line.buf, line.len);
	strbuf_release(&line);
}

static bool has_best(const struct plot_panel *pn)
{
	for (size_t i = 0; i < pn->nseries; i++)
		for (size_t k = 0; pn->series[i].best && k < pn->series[i].n; k++)
			if (pn->series[i].best[k])
				return true;
	return false;
}

static const char *series_label(const struct plot_panel *pn, size_t i)
{
	if (*pn->series[i].label)
		return pn->series[i].label;
	return pn->style == PLOT_BANDS ? "mean" : "all settings";
}

/* The width the legend needs, within LEGEND_MIN..LEGEND_MAX: longer labels wrap. */
static double legend_width(cairo_t *cr, const struct plot_figure *fig)
{
	double w = LEGEND_MIN;

	set_font(cr, 12, false);
	for (size_t p = 0; p < fig->npanels; p++)
		for (size_t i = 0; i < fig->panels[p].nseries; i++)
			w = fmax(w, text_width(cr, series_label(&fig->panels[p], i)) + LEGEND_TEXT +
			                LEGEND_RIGHT);
	return fmin(w, LEGEND_MAX);
}

/* The widest tick label of the y axes. */
static double widest_y_tick(cairo_t *cr, const struct plot_figure *fig)
{
	double w = 0;

	set_font(cr, 12, false);
	for (size_t p = 0; p < fig->npanels; p++)
		for (size_t i = 0; i < fig->panels[p].y.nticks; i++)
			w = fmax(w, text_width(cr, fig->panels[p].y.ticks[i].label));
	return w;
}

/* The legend's lines and its height, at its place (x, y) of width w. */
static void layout_legend(struct draw_panel *out, cairo_t *cr, const struct plot_panel *pn,
                          double x, double y, double w)
{
	double h = 0;

	out->labels = xcalloc(pn->nseries + 1, sizeof(*out->labels));
	if (pn->no_legend) {
		out->legend = (struct draw_box){x, y, w, 0};
		return;
	}
	out->nlabels = pn->nseries;
	set_font(cr, 12, false);
	for (size_t i = 0; i < pn->nseries; i++) {
		wrap(&out->labels[i], cr, series_label(pn, i), w - LEGEND_TEXT - LEGEND_RIGHT);
		h += LEGEND_ROW +
		     LEGEND_LINE * (double)(out->labels[i].n ? out->labels[i].n - 1 : 0);
	}
	if (has_best(pn))
		h += LEGEND_ROW;
	if (pn->note) {
		set_font(cr, 11, false);
		wrap(&out->note, cr, pn->note, w - LEGEND_RIGHT);
		h += 8 + NOTE_LINE * (double)out->note.n;
	}
	out->legend = (struct draw_box){x, y, w, h};
}

void draw_layout(struct draw_layout *out, const struct plot_figure *fig)
{
	cairo_surface_t *scratch = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
	cairo_t *cr = cairo_create(scratch);
	double legend_w = legend_width(cr, fig), tick_w = fmax(40.0, widest_y_tick(cr, fig));
	double left = fmax(MARGIN_LEFT, 8 + tick_w + 14 + 8 + 14), top;

	memset(out, 0, sizeof(*out));
	out->width = FIG_WIDTH;
	if (fig->title && *fig->title) {
		set_font(cr, 16, true);
		wrap(&out->title, cr, fig->title, FIG_WIDTH - 32);
		out->title_height = FIG_TITLE_HEIGHT + TITLE_LINE * (double)(out->title.n - 1);
	}
	top = out->title_height;
	out->panels = xcalloc(fig->npanels + 1, sizeof(*out->panels));
	out->npanels = fig->npanels;
	for (size_t p = 0; p < fig->npanels; p++) {
		struct draw_panel *dp = &out->panels[p];
		double fw = FIG_WIDTH - left - legend_w - LEGEND_GAP - 6, h;

		layout_legend(dp, cr, &fig->panels[p], left + fw + LEGEND_GAP, top + MARGIN_TOP + 4,
		              legend_w);
		/* As tall as the legend needs: no entry is left out. */
		h = fmax(PANEL_HEIGHT, MARGIN_TOP + 4 + dp->legend.height + MARGIN_BOTTOM);
		dp->area = (struct draw_box){0, top, FIG_WIDTH, h};
		dp->frame =
		    (struct draw_box){left, top + MARGIN_TOP, fw, h - MARGIN_TOP - MARGIN_BOTTOM};
		dp->ylabel_x = left - 8 - tick_w - 14;
		top += h;
	}
	out->height = fig->npanels ? top : top + PANEL_HEIGHT;
	cairo_destroy(cr);
	cairo_surface_destroy(scratch);
}

void draw_layout_release(struct draw_layout *layout)
{
	text_release(&layout->title);
	for (size_t p = 0; p < layout->npanels; p++) {
		struct draw_panel *dp = &layout->panels[p];

		for (size_t i = 0; i < dp->nlabels; i++)
			text_release(&dp->labels[i]);
		free(dp->labels);
		text_release(&dp->note);
	}
	free(layout->panels);
	memset(layout, 0, sizeof(*layout));
}

/* ---- drawing ---- */

static void draw_legend(cairo_t *cr, const struct plot_panel *pn, const struct draw_panel *dp)
{
	double x = dp->legend.x, y = dp->legend.y;

	if (pn->no_legend)
		return;
	set_font(cr, 12, false);
	for (size_t i = 0; i < pn->nseries; i++) {
		const struct draw_text *label = &dp->labels[i];

		set_colour(cr, i, 1.0);
		if (pn->style == PLOT_BANDS) {
			set_colour(cr, i, 0.2);
			cairo_rectangle(cr, x, y + 2, 28, 12);
			cairo_fill(cr);
			set_colour(cr, i, 1.0);
		}
		cairo_set_line_width(cr, 2.0);
		if (pn->style != PLOT_SCATTER) {
			cairo_move_to(cr, x, y + 8);
			cairo_line_to(cr, x + 28, y + 8);
			cairo_stroke(cr);
		}
		if (pn->style != PLOT_BANDS)
			marker(cr, x + 14, y + 8);
		cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
		for (size_t k = 0; k < label->n; k++)
			text_at(cr, label->lines[k], x + LEGEND_TEXT,
			        y + 8 + LEGEND_LINE * (double)k, 0, 0.5);
		y += LEGEND_ROW + LEGEND_LINE * (double)(label->n ? label->n - 1 : 0);
	}
	if (has_best(pn)) {
		best_ring(cr, x + 14, y + 8);
		cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
		text_at(cr, "best setting", x + LEGEND_TEXT, y + 8, 0, 0.5);
		y += LEGEND_ROW;
	}
	set_font(cr, 11, false);
	cairo_set_source_rgb(cr, 0.35, 0.35, 0.35);
	for (size_t k = 0; k < dp->note.n; k++)
		text_at(cr, dp->note.lines[k], x, y + 8 + NOTE_LINE * (double)k, 0, 0);
}

static void draw_panel(cairo_t *cr, const struct plot_panel *pn, const struct draw_panel *dp)
{
	struct frame f = {
	    .left = dp->frame.x,
	    .top = dp->frame.y,
	    .width = dp->frame.width,
	    .height = dp->frame.height,
	    .ylabel_x = dp->ylabel_x,
	    .x = &pn->x,
	    .y = &pn->y,
	};
	double **shift;
	char *title;

	set_font(cr, 14, true);
	cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
	title = fit_text(cr, pn->title, FIG_WIDTH - f.left - 16);
	text_at(cr, title, f.left, f.top - 10, 0, 1);
	free(title);
	draw_axes(cr, &f);
	shift = point_shifts(&f, pn);
	for (size_t i = 0; i < pn->nseries; i++) {
		draw_series(cr, &f, pn, i, shift[i]);
		free(shift[i]);
	}
	free(shift);
	draw_legend(cr, pn, dp);
}

static void draw_all(cairo_t *cr, const struct plot_figure *fig, const struct draw_layout *l)
{
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_rectangle(cr, 0, 0, l->width, l->height);
	cairo_fill(cr);
	set_font(cr, 16, true);
	cairo_set_source_rgb(cr, 0, 0, 0);
	for (size_t k = 0; k < l->title.n; k++)
		text_at(cr, l->title.lines[k], FIG_WIDTH / 2,
		        FIG_TITLE_HEIGHT / 2 + 4 + TITLE_LINE * (double)k, 0.5, 0.5);
	for (size_t p = 0; p < fig->npanels; p++)
		draw_panel(cr, &fig->panels[p], &l->panels[p]);
}

int draw_figure(const struct plot_figure *fig, const char *path)
{
	struct draw_layout layout;
	enum draw_format format;
	cairo_surface_t *surface;
	cairo_status_t status;
	cairo_t *cr;

	if (draw_format_of(&format, path) < 0)
		return SWEEP_ERR;
	draw_layout(&layout, fig);
	switch (format) {
	case DRAW_SVG:
		surface = cairo_svg_surface_create(path, layout.width, layout.height);
		break;
	case DRAW_PDF:
		surface = cairo_pdf_surface_create(path, layout.width, layout.height);
		break;
	default:
		surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)ceil(layout.width),
		                                     (int)ceil(layout.height));
		break;
	}
	cr = cairo_create(surface);
	draw_all(cr, fig, &layout);
	draw_layout_release(&layout);
	status = cairo_status(cr);
	cairo_destroy(cr);
	if (status == CAIRO_STATUS_SUCCESS && format == DRAW_PNG)
		status = cairo_surface_write_to_png(surface, path);
	cairo_surface_finish(surface);
	if (status == CAIRO_STATUS_SUCCESS)
		status = cairo_surface_status(surface);
	cairo_surface_destroy(surface);
	if (status != CAIRO_STATUS_SUCCESS)
		return error("cannot write the plot '%s': %s", path,
		             cairo_status_to_string(status));
	return 0;
}
