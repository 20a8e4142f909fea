#ifndef SWEEP_PLACEHOLDER_H
#define SWEEP_PLACEHOLDER_H

#include <stddef.h>

/*
 * The placeholders of a sweep's `command`, defined once for the reader
 * (cfg.c, which checks them against the parameters) and the script writer
 * (which fills them in). "{name}" with name an identifier
 * ([A-Za-z_][A-Za-z0-9_]*) is a placeholder; "{{" and "}}" stand for one
 * literal brace each; anything else, a lone '{' included, is literal text.
 */
enum placeholder_kind {
	PLACEHOLDER_TEXT, /* start[0..len) is literal text */
	PLACEHOLDER_NAME, /* start[0..len) is the name, braces excluded */
};

struct placeholder_piece {
	enum placeholder_kind kind;
	const char *start; /* borrowed from the string being split */
	size_t len;
};

/*
 * Splits the first piece off s into *out and returns how many bytes of s it
 * covers (more than out->len for "{{", "}}" and placeholders), or 0 when s
 * is empty. Loop: for (p = s; (n = placeholder_next(&pc, p)); p += n) ...
 */
size_t placeholder_next(struct placeholder_piece *out, const char *s);

/*
 * Whether s[0..len) is an identifier, i.e. could stand between the braces
 * of a placeholder (the same rule as shell variable names).
 */
int placeholder_is_name(const char *s, size_t len);

#endif
