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

/*
 * Writes fig to path (replacing it). Returns 0, or SWEEP_ERR after
 * error() said why (an unknown extension, a file that cannot be written).
 */
int draw_figure(const struct plot_figure *fig, const char *path);

#endif
