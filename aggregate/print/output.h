#ifndef SWEEP_OUTPUT_H
#define SWEEP_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

/*
 * What the printers (report, rightsize, advise, and the commands' own
 * output) share besides the table (table.h): plural words and JSON.
 */

/* one when n is 1, else many: output_plural(n, "", "s"), (n, "it", "they"). */
const char *output_plural(size_t n, const char *one, const char *many);

/* x as a JSON number, or null where it is undefined or not finite (JSON has no NaN). */
json_t *output_json_number_or_null(bool defined, double x);

/*
 * Prints root to f with jansson's flags (JSON_INDENT(2) and the like), then
 * a newline, and drops the caller's reference to root.
 */
void output_json_print(FILE *f, json_t *root, size_t flags);

#endif
