#ifndef SWEEP_CFG_REWRITE_H
#define SWEEP_CFG_REWRITE_H

#include <stddef.h>
#include <stdint.h>

struct strbuf;

/*
 * A sweep file written from another: the same keys, in the same order,
 * except those that say which settings and seeds run (name, seeds, grid,
 * zip, cases, sample, trials, sample_seed, sample_digits, confirm_of),
 * which are replaced. For sweep confirm, which runs a sweep's best settings
 * again on fresh seeds. Everything borrowed.
 */
struct cfg_rewrite {
	const char *name;       /* the new `name:` */
	const char *confirm_of; /* `confirm_of:`, or NULL for none */
	const int64_t *seeds;   /* the new `seeds:`, a flow list */
	size_t nseeds;
	/*
	 * The new `cases:`, ncases rows of nparams values each (row-major; a
	 * NULL value leaves its parameter out of that case), each value double
	 * quoted, as the command received it.
	 */
	const char *const *params;
	size_t nparams;
	const char *const *values;
	size_t ncases;
	/* The old file's path: a relative `template:` is made absolute against its folder. */
	const char *source;
	/* Names the old file in messages: "the sweep file of sweep 12". */
	const char *what;
};

/*
 * Appends to out the sweep file text rewritten as rw says. Fails (after
 * error(): "<what> no longer reads", "<what> is not a mapping", "cannot
 * write the sweep file of the confirm: ...") when text is not one YAML
 * mapping or the emitter fails. The text is not checked as a sweep file:
 * cfg_load_string does that when it is submitted.
 */
int cfg_rewrite(struct strbuf *out, const char *text, const struct cfg_rewrite *rw);

#endif
