/*
 * The libyaml event stream becomes a tree first (rather than checking the
 * schema event by event) so that checks which need the whole file, like
 * placeholders against parameters, can still point at a line.
 */
#include "yamltree.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "error.h"
#include "strbuf.h"
#include "banned.h"

struct reader {
	const char *file; /* for messages */
	const char *text;
	size_t len;
	yaml_parser_t parser;
};

int ytree_error_at(const char *file, unsigned line, unsigned column, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	error("%s:%u:%u: %s", file, line, column, sb.buf);
	strbuf_release(&sb);
	return SWEEP_ERR;
}

/* The position of a libyaml mark, 1-based. */
#define MARK(mark) (unsigned)(mark).line + 1, (unsigned)(mark).column + 1

const char *ytree_kind_name(const struct ytree_node *n)
{
	switch (n->kind) {
	case YTREE_MAP:
		return "a mapping";
	case YTREE_LIST:
		return "a list";
	case YTREE_SCALAR:
		break;
	}
	return n->null ? "an empty value" : "a scalar";
}

void ytree_free(struct ytree_node *n)
{
	size_t i;

	if (!n)
		return;
	for (i = 0; i < n->n; i++)
		ytree_free(n->items[i]);
	free(n->items);
	free(n->text);
	free(n);
}

static struct ytree_node *node_new(enum ytree_kind kind, const yaml_mark_t *mark)
{
	struct ytree_node *n = xcalloc(1, sizeof(*n));

	n->kind = kind;
	n->line = (unsigned)mark->line + 1;
	n->column = (unsigned)mark->column + 1;
	return n;
}

/* Line and column (1-based, in characters) of a byte offset in the input. */
static void offset_position(const struct reader *rd, size_t offset, unsigned *line,
                            unsigned *column)
{
	size_t i;

	*line = 1;
	*column = 1;
	for (i = 0; i < offset && i < rd->len; i++) {
		unsigned char c = (unsigned char)rd->text[i];

		if (c == '\n') {
			(*line)++;
			*column = 1;
		} else if ((c & 0xc0) != 0x80) {
			(*column)++;
		}
	}
}

/*
 * What to do about libyaml's common complaints, which name the grammar
 * rather than the mistake: most come from a command or pattern written as
 * a plain value.
 */
static const struct {
	const char *problem; /* the start of libyaml's problem text */
	const char *hint;
} yaml_hints[] = {
    {"mapping values are not allowed",
     "a value holding ': ' must be quoted ('...') or written as a block scalar (command: |)"},
    {"found character that cannot start any token",
     "indent with spaces, not tabs, and quote a value that starts with '@', '`', '%' or '!'"},
    {"found a tab character", "indent with spaces, not tabs"},
    {"found unknown escape character",
     "inside double quotes a backslash starts an escape: use single quotes for regexes and "
     "paths"},
    {"did not find expected ',' or",
     "a value starting with '[' or '{' is read as a list or mapping: quote it"},
    {"did not find expected key",
     "check this line's indentation; a value starting with a quote must end with it, else "
     "quote the whole value"},
    {"did not find expected node content",
     "a value starting with '[', '{', '-', '?' or ',' is read as YAML syntax: quote it"},
    {"could not find expected ':'",
     "a key needs ': ' after it; a long value must be quoted or written as a block scalar"},
    {"found unexpected end of stream", "a quote or bracket opened here is never closed"},
    {"block sequence entries are not allowed",
     "a '- ' list item must start a line of its own under its key"},
    {"did not find expected alphabetic or numeric character",
     "a value starting with '*' or '&' must be quoted"},
    {"did not find expected '-' indicator",
     "the items of a list must all start at the same column"},
};

/* The hint for a problem text, or NULL. */
static const char *yaml_hint(const char *problem)
{
	if (!problem)
		return NULL;
	for (size_t i = 0; i < sizeof(yaml_hints) / sizeof(yaml_hints[0]); i++)
		if (!strncmp(problem, yaml_hints[i].problem, strlen(yaml_hints[i].problem)))
			return yaml_hints[i].hint;
	return NULL;
}

static int yaml_problem(struct reader *rd)
{
	const yaml_parser_t *p = &rd->parser;
	const char *hint = yaml_hint(p->problem);
	unsigned line, column;

	if (p->error == YAML_MEMORY_ERROR)
		return error("%s: out of memory while reading YAML", rd->file);
	if (p->error == YAML_READER_ERROR) {
		offset_position(rd, p->problem_offset, &line, &column);
		if (p->problem_value != -1)
			return ytree_error_at(rd->file, line, column, "%s (byte 0x%02x)",
			                      p->problem, (unsigned)p->problem_value & 0xff);
		return ytree_error_at(rd->file, line, column, "%s", p->problem);
	}
	line = (unsigned)p->problem_mark.line + 1;
	column = (unsigned)p->problem_mark.column + 1;
	if (p->context)
		return ytree_error_at(rd->file, line, column, "%s (%s at line %u, column %u)%s%s",
		                      p->problem ? p->problem : "invalid YAML", p->context,
		                      MARK(p->context_mark), hint ? ": " : "", hint ? hint : "");
	return ytree_error_at(rd->file, line, column, "%s%s%s",
	                      p->problem ? p->problem : "invalid YAML", hint ? ": " : "",
	                      hint ? hint : "");
}

static int next_event(struct reader *rd, yaml_event_t *ev)
{
	if (!yaml_parser_parse(&rd->parser, ev))
		return yaml_problem(rd);
	return 0;
}

static int check_tag(struct reader *rd, const yaml_event_t *ev, const unsigned char *tag,
                     const char *allowed)
{
	struct strbuf shown = STRBUF_INIT;

	if (!tag || !strcmp((const char *)tag, allowed))
		return 0;
	strbuf_add_shown(&shown, (const char *)tag);
	ytree_error_at(rd->file, MARK(ev->start_mark), "unsupported YAML tag '%s'", shown.buf);
	strbuf_release(&shown);
	return SWEEP_ERR;
}

static int refuse_anchor(struct reader *rd, const yaml_event_t *ev, const unsigned char *anchor)
{
	if (!anchor)
		return 0;
	return ytree_error_at(rd->file, MARK(ev->start_mark),
	                      "YAML anchors and aliases are not supported: write the values out");
}

static int is_null_scalar(const yaml_event_t *ev)
{
	const char *v = (const char *)ev->data.scalar.value;

	if (ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE || ev->data.scalar.tag)
		return 0;
	return !*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") ||
	       !strcmp(v, "NULL");
}

/* Builds the node of ev (consumed) and, for a collection, its children. */
static int build(struct reader *rd, yaml_event_t *ev, struct ytree_node **out, unsigned depth)
{
	struct ytree_node *n = NULL;
	yaml_event_t child;
	yaml_event_type_t end = YAML_NO_EVENT;
	int ret = SWEEP_ERR;

	*out = NULL;
	switch (ev->type) {
	case YAML_ALIAS_EVENT:
		refuse_anchor(rd, ev, ev->data.alias.anchor);
		goto out;
	case YAML_SCALAR_EVENT:
		if (refuse_anchor(rd, ev, ev->data.scalar.anchor) ||
		    check_tag(rd, ev, ev->data.scalar.tag, YAML_STR_TAG))
			goto out;
		n = node_new(YTREE_SCALAR, &ev->start_mark);
		if (memchr(ev->data.scalar.value, '\0', ev->data.scalar.length)) {
			ytree_error_at(rd->file, n->line, n->column, "NUL bytes are not allowed");
			goto out;
		}
		n->text = xstrndup((const char *)ev->data.scalar.value, ev->data.scalar.length);
		n->null = is_null_scalar(ev);
		ret = 0;
		goto out;
	case YAML_SEQUENCE_START_EVENT:
		if (refuse_anchor(rd, ev, ev->data.sequence_start.anchor) ||
		    check_tag(rd, ev, ev->data.sequence_start.tag, YAML_SEQ_TAG))
			goto out;
		n = node_new(YTREE_LIST, &ev->start_mark);
		end = YAML_SEQUENCE_END_EVENT;
		break;
	case YAML_MAPPING_START_EVENT:
		if (refuse_anchor(rd, ev, ev->data.mapping_start.anchor) ||
		    check_tag(rd, ev, ev->data.mapping_start.tag, YAML_MAP_TAG))
			goto out;
		n = node_new(YTREE_MAP, &ev->start_mark);
		end = YAML_MAPPING_END_EVENT;
		break;
	default:
		ytree_error_at(rd->file, MARK(ev->start_mark), "unexpected YAML event");
		goto out;
	}

	if (depth >= YTREE_MAX_DEPTH) {
		ytree_error_at(rd->file, n->line, n->column, "nested deeper than %d levels",
		               YTREE_MAX_DEPTH);
		goto out;
	}
	for (;;) {
		struct ytree_node *item;

		if (next_event(rd, &child))
			goto out;
		if (child.type == end) {
			yaml_event_delete(&child);
			break;
		}
		if (build(rd, &child, &item, depth + 1))
			goto out;
		ALLOC_GROW(n->items, n->n + 1, n->alloc);
		n->items[n->n++] = item;
		if (n->kind == YTREE_MAP && n->n % 2 == 1 && item->kind != YTREE_SCALAR) {
			ytree_error_at(rd->file, item->line, item->column,
			               "mapping keys must be scalars, not %s",
			               ytree_kind_name(item));
			goto out;
		}
	}
	ret = 0;
out:
	yaml_event_delete(ev);
	if (ret)
		ytree_free(n);
	else
		*out = n;
	return ret;
}

/* Reads the one document of the input into *root (NULL for an empty file). */
static int read_document(struct reader *rd, struct ytree_node **root)
{
	yaml_event_t ev;
	int ret = SWEEP_ERR;

	*root = NULL;
	if (next_event(rd, &ev))
		return SWEEP_ERR;
	yaml_event_delete(&ev); /* stream start */
	if (next_event(rd, &ev))
		return SWEEP_ERR;
	if (ev.type == YAML_STREAM_END_EVENT) {
		yaml_event_delete(&ev);
		return 0;
	}
	yaml_event_delete(&ev); /* document start */
	if (next_event(rd, &ev) || build(rd, &ev, root, 0))
		goto out;
	if (next_event(rd, &ev))
		goto out;
	yaml_event_delete(&ev); /* document end */
	if (next_event(rd, &ev))
		goto out;
	if (ev.type == YAML_DOCUMENT_START_EVENT) {
		ytree_error_at(rd->file, MARK(ev.start_mark),
		               "only one YAML document is allowed in a sweep file");
		yaml_event_delete(&ev);
		goto out;
	}
	yaml_event_delete(&ev);
	ret = 0;
out:
	if (ret) {
		ytree_free(*root);
		*root = NULL;
	}
	return ret;
}

int ytree_parse(struct ytree_node **out, const char *file, const char *text, size_t len)
{
	struct reader rd = {.file = file, .text = text, .len = len};
	int ret;

	*out = NULL;
	if (!yaml_parser_initialize(&rd.parser))
		return error("%s: out of memory while reading YAML", file);
	yaml_parser_set_input_string(&rd.parser, (const unsigned char *)text, len);
	ret = read_document(&rd, out);
	yaml_parser_delete(&rd.parser);
	return ret;
}
