#ifndef SWEEP_YAMLTREE_H
#define SWEEP_YAMLTREE_H

#include <stddef.h>

/*
 * One YAML document (libyaml) as a small tree of nodes that remember where
 * they stood, so that a schema checked after reading can still point at a
 * line. Knows nothing of sweeps: the sweep schema is cfg.c.
 *
 * Refused while reading, each with "FILE:LINE:COLUMN: message" through
 * error(): YAML syntax errors, anchors and aliases (hence merge keys), tags
 * other than !!str, !!seq and !!map, NUL bytes in scalars, keys that are not
 * scalars, nesting deeper than YTREE_MAX_DEPTH, and a second document.
 */

#define YTREE_MAX_DEPTH 64

enum ytree_kind {
	YTREE_SCALAR,
	YTREE_LIST,
	YTREE_MAP,
};

struct ytree_node {
	enum ytree_kind kind;
	unsigned line, column;     /* 1-based, from the parser's marks */
	char *text;                /* scalar: its text, NUL-free */
	int null;                  /* scalar: an empty plain scalar, ~ or null */
	struct ytree_node **items; /* list: items; map: key, value, key, value... */
	size_t n, alloc;
};

/*
 * Reads the one document of text[0..len) into *out: NULL for a file with no
 * document (empty, or only comments). file names the input in messages. On
 * failure *out is NULL and a negative code is returned after error().
 * The caller frees the tree with ytree_free.
 */
int ytree_parse(struct ytree_node **out, const char *file, const char *text, size_t len);

/* Frees n and everything below it; ytree_free(NULL) does nothing. */
void ytree_free(struct ytree_node *n);

/* "a mapping", "a list", "a scalar" or "an empty value", for messages. */
const char *ytree_kind_name(const struct ytree_node *n);

/*
 * Reports "FILE:LINE:COLUMN: message" through error(); returns SWEEP_ERR.
 */
int ytree_error_at(const char *file, unsigned line, unsigned column, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
