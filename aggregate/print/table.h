#ifndef SWEEP_TABLE_H
#define SWEEP_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * A table of text cells for people, printed with every column as wide as
 * its widest cell (UTF-8 aware: "±" is one column) and two spaces between
 * columns. Cells are added row by row, left to right. Columns are
 * left-aligned unless table_align_right says otherwise (numbers); no line
 * ends in blanks.
 */
struct table {
	size_t ncols;
	bool *right;  /* per column: right-aligned; NULL when none is */
	char **cells; /* row-major, owned */
	size_t ncells;
	size_t alloc;
};

void table_init(struct table *t, size_t ncols);
/* table_init with a first row of ncols cells: copies of head[0..ncols-1]. */
void table_init_head(struct table *t, const char *const *head, size_t ncols);
/* Frees the cells; t is left empty with no columns. */
void table_release(struct table *t);
/*
 * Adds the next cell, taking ownership of text (allocated with malloc).
 * Control bytes are shown escaped (\n, \t, \x1b), never printed raw.
 */
void table_add(struct table *t, char *text);
/* Adds the next cell, a copy of text. */
void table_addstr(struct table *t, const char *text);
/* Right-aligns column col (< ncols), header included: for numbers. */
void table_align_right(struct table *t, size_t col);
/* Prints the table to f; the last row must be full (assert). */
void table_print(FILE *f, const struct table *t);

#endif
