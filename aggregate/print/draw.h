#ifndef SWEEP_DRAW_H
#define SWEEP_DRAW_H

#include "plot.h"

/*
 * Draws a figure (plot.h) with cairo, into a PNG image, or an SVG or PDF
 * document, chosen by the file's extension. Needs no display.
 */

enum draw_format {
	DRAW_PNG,
	DRAW_SVG,
	DRAW_PDF,
};

/* The format of path by its extension (.png, .svg, .pdf, any case); error() if none. */
int draw_format_of(enum draw_format *out, const char *path);

/* A rectangle in points (pixels in a PNG) from the image's top left corner. */
struct draw_box {
	double x, y, width, height;
};

/* Text broken into lines that fit a width; each line owned. */
struct draw_text {
	char **lines;
	size_t n, alloc;
};

/* Where one panel of the figure lies, and its legend's text. */
struct draw_panel {
	struct draw_box area;     /* the whole panel: its title, plot, axes, legend */
	struct draw_box frame;    /* the plot area */
	struct draw_box legend;   /* the legend with its note */
	double ylabel_x;          /* the centre of the rotated y label, left of the tick labels */
	struct draw_text *labels; /* per series (nlabels): its label's lines, never cut */
	size_t nlabels;
	struct draw_text note;
};

/*
 * Where draw_figure puts everything: the legend beside its plot, each
 * label broken at spaces (or, for a long word, after ',', '/', '_', '-' or
 * '=') to the legend's width, and a panel as tall as its legend needs; the
 * title on as many lines as it takes, and no room for it when fig has none.
 */
struct draw_layout {
	double width, height; /* the image */
	struct draw_text title;
	double title_height; /* 0 without a title */
	struct draw_panel *panels;
	size_t npanels;
};

/* Lays fig out (text measured with cairo); draw_layout_release frees it. */
void draw_layout(struct draw_layout *out, const struct plot_figure *fig);
void draw_layout_release(struct draw_layout *layout);

/*
 * Writes fig to path (replacing it). Returns 0, or SWEEP_ERR after
 * error() said why (an unknown extension, a file that cannot be written).
 */
int draw_figure(const struct plot_figure *fig, const char *path);

#endif
