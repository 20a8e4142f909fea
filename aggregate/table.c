#include "table.h"

#include <assert.h>
#include <stdlib.h>

#include "strbuf.h"

#include "banned.h"

void table_init(struct table *t, size_t ncols)
{
	t->ncols = ncols;
	t->cells = NULL;
	t->ncells = 0;
	t->alloc = 0;
}

void table_init_head(struct table *t, const char *const *head, size_t ncols)
{
	table_init(t, ncols);
	for (size_t c = 0; c < ncols; c++)
		table_addstr(t, head[c]);
}

void table_release(struct table *t)
{
	for (size_t i = 0; i < t->ncells; i++)
		free(t->cells[i]);
	free(t->cells);
	table_init(t, 0);
}

void table_add(struct table *t, char *text)
{
	ALLOC_GROW(t->cells, t->ncells + 1, t->alloc);
	t->cells[t->ncells++] = text;
}

void table_addstr(struct table *t, const char *text)
{
	table_add(t, xstrdup(text));
}

/* Columns on a terminal: UTF-8 continuation bytes take none. */
static size_t display_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xC0) != 0x80)
			w++;
	return w;
}

void table_print(FILE *f, const struct table *t)
{
	size_t *width;

	assert(t->ncols && t->ncells % t->ncols == 0);
	width = xcalloc(t->ncols, sizeof(*width));
	for (size_t i = 0; i < t->ncells; i++) {
		size_t w = display_width(t->cells[i]);

		if (w > width[i % t->ncols])
			width[i % t->ncols] = w;
	}
	for (size_t i = 0; i < t->ncells; i++) {
		size_t c = i % t->ncols;

		fputs(t->cells[i], f);
		if (c + 1 == t->ncols) {
			fputc('\n', f);
			continue;
		}
		for (size_t pad = display_width(t->cells[i]); pad < width[c] + 2; pad++)
			fputc(' ', f);
	}
	free(width);
}
