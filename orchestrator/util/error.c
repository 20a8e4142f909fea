#include "error.h"

#include <stdio.h>
#include <stdlib.h>

#include "banned.h"

static error_handler_fn handler;
static char last[4096];

const char *error_last(void)
{
	return last;
}

error_handler_fn error_set_handler(error_handler_fn fn)
{
	error_handler_fn was = handler;

	handler = fn;
	return was;
}

void error_as_warning(const char *kind, const char *msg)
{
	(void)kind;
	fflush(stdout);
	fprintf(stderr, "sweep: warning: %s\n", msg);
}

static void report(const char *kind, const char *fmt, va_list ap)
{
	char msg[4096];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (handler) {
		handler(kind, msg);
		return;
	}
	fflush(stdout);
	fprintf(stderr, "sweep: %s: %s\n", kind, msg);
}

int error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last, sizeof(last), fmt, ap);
	va_end(ap);
	va_start(ap, fmt);
	report("error", fmt, ap);
	va_end(ap);
	return SWEEP_ERR;
}

void warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report("warning", fmt, ap);
	va_end(ap);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report("error", fmt, ap);
	va_end(ap);
	exit(EXIT_ERROR);
}
