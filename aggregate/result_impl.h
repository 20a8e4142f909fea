#ifndef SWEEP_RESULT_IMPL_H
#define SWEEP_RESULT_IMPL_H

/* Shared between result.c, result_log.c and curve.c, nowhere else. */
#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

struct result_entry;

/* qsort/bsearch order of a result's entries: by key. */
int result_compare_entries(const void *a, const void *b);

/* Reads text (trimmed of blanks) as a number into e: a number, non-finite, or other. */
void result_entry_from_text(struct result_entry *e, const char *text, const char *other);

/*
 * The last match of re in line (len bytes, line[len] a NUL; NUL bytes
 * before it are bytes like any other) whose first group took part: that
 * group in [*gs, *ge). False when the line has none.
 */
bool result_log_last_match(const regex_t *re, const char *line, size_t len, size_t *gs, size_t *ge);
#endif
