#ifndef SWEEP_FUZZ_H
#define SWEEP_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

/* The libFuzzer entry point every harness defines. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Messages are expected (most inputs are bad): keep them off stderr. */
static void fuzz_quiet(const char *kind, const char *msg)
{
	(void)kind;
	(void)msg;
}

static inline void fuzz_setup(void)
{
	error_set_handler(fuzz_quiet);
}

/* A NUL-terminated copy of the input; the caller frees it. */
static inline char *fuzz_string(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

#endif
