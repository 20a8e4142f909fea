#include "table.h"

#include <assert.h>
#include <stdlib.h>

#include "strbuf.h"

#include "banned.h"

void table_init(struct table *t, size_t ncols)
{
	t->ncols = ncols;
	t->right = NULL;
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
	free(t->right);
	table_init(t, 0);
}

/*
 * Control bytes from values and keys (an escape sequence, a newline) would
 * reach the terminal and break the columns, and bytes that are not UTF-8
 * break them too: shown as \n, \t, \xHH (strbuf_add_escaped). A backslash
 * is doubled only in cells that needed escaping, so ordinary text reads as
 * written.
 */
static char *escape_controls(char *text)
{
	struct strbuf sb = STRBUF_INIT;

	if (strbuf_is_plain(text))
		return text;
	strbuf_add_escaped(&sb, text);
	free(text);
	return strbuf_detach(&sb, NULL);
}

void table_add(struct table *t, char *text)
{
	ALLOC_GROW(t->cells, t->ncells + 1, t->alloc);
	t->cells[t->ncells++] = escape_controls(text);
}

void table_addstr(struct table *t, const char *text)
{
	table_add(t, xstrdup(text));
}

void table_align_right(struct table *t, size_t col)
{
	assert(col < t->ncols);
	if (!t->right)
		t->right = xcalloc(t->ncols, sizeof(*t->right));
	t->right[col] = true;
}

static void pad(struct strbuf *line, size_t from, size_t to)
{
	for (; from < to; from++)
		strbuf_addch(line, ' ');
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
	struct strbuf line = STRBUF_INIT;
	size_t *width;

	assert(t->ncols && t->ncells % t->ncols == 0);
	width = xcalloc(t->ncols, sizeof(*width));
	for (size_t i = 0; i < t->ncells; i++) {
		size_t w = display_width(t->cells[i]);

		if (w > width[i % t->ncols])
			width[i % t->ncols] = w;
	}
	for (size_t i = 0; i < t->ncells; i++) {
		size_t c = i % t->ncols, w = display_width(t->cells[i]);
		bool right = t->right && t->right[c];

		if (c)
			strbuf_addstr(&line, "  ");
		if (right)
			pad(&line, w, width[c]);
		strbuf_addstr(&line, t->cells[i]);
		if (!right)
			pad(&line, w, width[c]);
		if (c + 1 < t->ncols)
			continue;
		/* Empty cells at the end leave no blanks behind. */
		while (line.len && line.buf[line.len - 1] == ' ')
			strbuf_setlen(&line, line.len - 1);
		fprintf(f, "%s\n", line.buf);
		strbuf_reset(&line);
	}
	strbuf_release(&line);
	free(width);
}
