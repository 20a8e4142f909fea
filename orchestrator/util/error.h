#ifndef SWEEP_ERROR_H
#define SWEEP_ERROR_H

#include <stdarg.h>

/*
 * Error reporting. Functions return 0 on success or a negative code; the
 * place that knows the cause reports it with error() and returns its value.
 * Messages are lower-case and go to stderr as "sweep: error: ...".
 *
 * Tests (and anything that wants to inspect messages) can install a
 * handler that receives the formatted text instead of stderr.
 */

#define SWEEP_ERR -1 /* generic failure, already reported */

/* Exit codes of the sweep binary (documented in README.md). */
enum {
	EXIT_OK = 0,
	EXIT_ERROR = 1,
	EXIT_USAGE = 2,
	EXIT_INCOMPLETE = 3, /* report: the sweep has missing or failed tasks */
};

/* Report an error; always returns SWEEP_ERR. */
int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Report a warning (non-fatal). */
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Report and exit with status 1. Only at the top of a command. */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/*
 * Where messages go. kind is "error" or "warning"; msg is the formatted text
 * without prefix or newline, valid only during the call. NULL restores the
 * default (stderr).
 */
/* The text of the most recent error() message (borrowed, static), or "". */
const char *error_last(void);

typedef void (*error_handler_fn)(const char *kind, const char *msg);
/* Returns the handler it replaces, for a caller that puts it back. */
error_handler_fn error_set_handler(error_handler_fn fn);

/*
 * A handler that prints every message as a warning ("sweep: warning: ..."),
 * for a step a command can do without (a dry run without a cluster).
 */
void error_as_warning(const char *kind, const char *msg);

#endif
