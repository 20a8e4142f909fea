#ifndef SWEEP_RESULT_H
#define SWEEP_RESULT_H

#include <stddef.h>

struct strbuf;

/*
 * A task's result file: the flat JSON object of metrics the task writes to
 * $SWEEP_RESULT = <sweep dir>/tasks/<index>/result.json, for example
 *
 *     {"accuracy": 0.912, "loss": 0.31, "epochs": 20, "checkpoint": "ck/7.pt"}
 *
 * Numbers (integer or real) are metrics; other values (strings, booleans,
 * null, nested objects and arrays) are kept only so that a message can say
 * what a key held instead of a number. NaN and infinities, which Python's
 * json.dump writes as the bare tokens NaN, Infinity and -Infinity (and C's
 * printf as nan, inf), are not JSON; they are read anyway and kept as
 * non-finite values, so that the gate can name the metric that diverged
 * instead of refusing the whole file.
 *
 * A file that cannot be used is not an error of sweep but a fact about the
 * task: result_read records why in the struct and the gate reports it.
 */

enum result_status {
	RESULT_NOT_READ = 0, /* result_init's state: nobody read the file */
	RESULT_OK,
	RESULT_ABSENT,     /* no such file */
	RESULT_UNREADABLE, /* detail: the system's reason */
	RESULT_EMPTY,      /* the file is empty or only white space */
	RESULT_INVALID,    /* detail: "line L column C: <jansson's message>" */
	RESULT_NOT_OBJECT, /* detail: what the file holds instead, e.g. "an array" */
};

enum result_kind {
	RESULT_NUMBER,    /* a finite number: value */
	RESULT_NONFINITE, /* NaN or an infinity; what holds the token as written */
	RESULT_OTHER,     /* not a number; what says what it is, e.g. "a string" */
};

struct result_entry {
	char *key;
	enum result_kind kind;
	double value; /* RESULT_NUMBER only; else NAN */
	/* Static text for the others: "NaN", "-Infinity", "a string", "null"...; else NULL. */
	const char *what;
};

struct result {
	enum result_status status;
	char *detail;                 /* see enum result_status; may be NULL */
	struct result_entry *entries; /* sorted by key (strcmp) */
	size_t nentries;
};

void result_init(struct result *res);
/* Frees the contents; res is left as after result_init. */
void result_release(struct result *res);
/* Releases n results and frees the array; NULL does nothing. */
void results_free(struct result *res, size_t n);

/* <sweep_dir>/tasks/<index>/result.json; the caller frees it. */
char *result_path(const char *sweep_dir, size_t index);

/*
 * The limits a result file is read with. The task wrote it, so it is read
 * as hostile: only a regular file, never through a symbolic link (a link
 * to /dev/zero or a secret, a FIFO: RESULT_UNREADABLE), at most
 * RESULT_MAX_BYTES unless result_set_max_bytes says otherwise (the sweep
 * binary takes SWEEP_RESULT_MAX from the environment, as "64M"), and at
 * most RESULT_MAX_KEYS keys (more: RESULT_INVALID). Messages never quote
 * the file's bytes, only its keys when it is valid.
 */
#define RESULT_MAX_BYTES ((size_t)16 << 20)
#define RESULT_MAX_KEYS  1024
void result_set_max_bytes(size_t max);

/*
 * Reads the result file at path into res (initialised, or released before).
 * Never fails: res->status says whether the file could be used, and why not.
 */
void result_read(struct result *res, const char *path);

/* The same from text in memory (len bytes, need not be NUL-terminated). */
void result_parse(struct result *res, const char *text, size_t len);

/* Borrowed from res: the entry for key, or NULL when the object has none. */
const struct result_entry *result_find(const struct result *res, const char *key);

/*
 * Describes in words why res cannot be used at all ("no result file",
 * "invalid result file: line 1 column 9: ..."), appended to the buffer
 * out; does nothing for RESULT_OK.
 */
void result_describe(struct strbuf *out, const struct result *res);

#endif
