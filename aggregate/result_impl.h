#ifndef SWEEP_RESULT_IMPL_H
#define SWEEP_RESULT_IMPL_H

/* Shared between result.c and result_log.c, nowhere else. */

struct result_entry;

/* qsort/bsearch order of a result's entries: by key. */
int result_compare_entries(const void *a, const void *b);

/* Reads text (trimmed of blanks) as a number into e: a number, non-finite, or other. */
void result_entry_from_text(struct result_entry *e, const char *text, const char *other);

#endif
