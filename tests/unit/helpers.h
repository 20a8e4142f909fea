#ifndef SWEEP_TEST_HELPERS_H
#define SWEEP_TEST_HELPERS_H

/*
 * Shared by the unit tests (header-only, so each test stays one file):
 * capturing error() messages, temporary folders, running bash, and the
 * small plan that the aggregate tests share.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "error.h"
#include "plan.h"
#include "proc.h"
#include "strbuf.h"

static struct strbuf captured = STRBUF_INIT;

static inline void capture_handler(const char *kind, const char *msg)
{
	if (captured.len)
		strbuf_addch(&captured, '\n');
	strbuf_addf(&captured, "%s: %s", kind, msg);
}

/* Starts capturing error()/warning() text into `captured`. */
static inline void capture_errors(void)
{
	strbuf_reset(&captured);
	error_set_handler(capture_handler);
}

static inline void release_captured(void)
{
	error_set_handler(NULL);
	strbuf_release(&captured);
}

/* A fresh temporary folder; the caller frees the path. */
static inline char *make_tmpdir(void)
{
	char *tmpl = xstrdup("/tmp/sweep-test-XXXXXX");

	assert_non_null(mkdtemp(tmpl));
	return tmpl;
}

static inline void remove_tree(const char *path)
{
	const char *argv[] = {"rm", "-rf", path, NULL};
	struct proc_result res;

	proc_result_init(&res);
	assert_int_equal(proc_run(&res, argv, NULL, 30), 0);
	proc_result_release(&res);
}

/* Runs bash -c script with args; returns its stdout (caller frees). */
static inline char *run_bash(const char *script, const char *const *args)
{
	const char *argv[16] = {"bash", "-c", script, "bash"};
	size_t n = 4;
	struct proc_result res;
	char *out;

	while (args && *args && n < 15)
		argv[n++] = *args++;
	argv[n] = NULL;
	proc_result_init(&res);
	assert_int_equal(proc_run(&res, argv, NULL, 30), 0);
	if (!res.exited || res.status != 0)
		fail_msg("bash failed (%d): %s", res.status, res.err.buf);
	out = strbuf_detach(&res.out, NULL);
	proc_result_release(&res);
	return out;
}

/*
 * A plan as the grid expander makes it: lr varies over two settings (0.1,
 * 0.01), wd (0) does not; seeds 11, 22, 33; six tasks. Static, borrowed.
 */
static inline const struct plan *fixture_plan2x3(void)
{
	static char *params[] = {"lr", "wd"};
	static char *values[] = {"0.1", "0", "0.01", "0"};
	static int64_t seeds[] = {11, 22, 33};
	static unsigned char varies[] = {1, 0};
	static const struct plan plan = {
	    .params = params,
	    .nparams = 2,
	    .values = values,
	    .nsettings = 2,
	    .seeds = seeds,
	    .nseeds = 3,
	    .ntasks = 6,
	    .varies = varies,
	};

	return &plan;
}

#endif
