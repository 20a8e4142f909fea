#ifndef SWEEP_RESULT_H
#define SWEEP_RESULT_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

#include "taskdir.h"

struct strbuf;

/*
 * A task's result file: the flat JSON object of metrics the task writes to
 * $SWEEP_RESULT = <task folder>/result.json (taskdir.h), for example
 *
 *     {"accuracy": 0.912, "loss": 0.31, "epochs": 20, "checkpoint": "ck/7.pt"}
 *
 * Numbers (integer or real, an integer of any size read as a double; a
 * UTF-8 byte order mark at the start of any result file is skipped) are
 * metrics; other values (strings, booleans,
 * null, nested objects and arrays) are kept only so that a message can say
 * what a key held instead of a number. NaN and infinities, which Python's
 * json.dump writes as the bare tokens NaN, Infinity and -Infinity (and C's
 * printf as nan, inf), are not JSON; they are read anyway and kept as
 * non-finite values, so that the gate can name the metric that diverged
 * instead of refusing the whole file.
 *
 * Other sources, for programs that know nothing of sweep (the sweep file's
 * `results:` key): a JSON Lines file (its last line is the object), a CSV
 * file with a header (its last row; names trimmed of white space), and the
 * task's own log, where a
 * regular expression per metric finds the value (last match, first group).
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
	RESULT_TOO_LARGE,  /* larger than result_max_bytes() */
};

enum result_format {
	RESULT_JSON,  /* one JSON object */
	RESULT_JSONL, /* JSON Lines: the last non-blank line is the object */
	RESULT_CSV,   /* RFC 4180 with a header: the last row */
};

/* The most of a result file (or the end of a log) that sweep reads, by default. */
#define RESULT_MAX_BYTES ((size_t)16 << 20)

enum result_kind {
	RESULT_NUMBER,    /* a finite number: value */
	RESULT_NONFINITE, /* NaN or an infinity; what holds the token as written */
	RESULT_OTHER,     /* not a number; what says what it is, e.g. "a string" */
	RESULT_MISSING,   /* a metric from the log that has no value; why says why */
};

struct result_entry {
	char *key;
	enum result_kind kind;
	double value; /* RESULT_NUMBER only; else NAN */
	/* Static text for the others: "NaN", "-Infinity", "a string", "null"...; else NULL. */
	const char *what;
	/*
	 * For a metric the log was searched for and that has no number, why,
	 * in words ("pattern for 'acc' not found in LOG"); owned, else NULL.
	 */
	char *why;
	bool from_log; /* asked for by the sweep file: a metric even without a value */
	bool step;     /* a series file's step key: its x axis, never a metric */
};

struct result {
	enum result_status status;
	char *detail; /* see enum result_status; may be NULL */
	char *file;   /* the file as named in messages; NULL for $SWEEP_RESULT */
	/*
	 * Something the reader took but the user should know, in words, owned,
	 * else NULL: "line 12 of LOG holds a NUL byte; 'acc' was read from that
	 * line" (result_scan_log sets it once, for the first such metric).
	 */
	char *warning;
	struct result_entry *entries; /* sorted by key (strcmp) */
	size_t nentries;
};

void result_init(struct result *res);
/* Frees the contents; res is left as after result_init. */
void result_release(struct result *res);
/* Releases n results and frees the array; NULL does nothing. */
void results_free(struct result *res, size_t n);

/* result.json in the task folder of index (taskdir_path); the caller frees it. */
char *result_path(const char *sweep_dir, enum taskdir_layout layout, size_t index);

/*
 * The one function that reads what tasks wrote (result files, logs). The
 * task wrote it, so it is read as hostile: a regular file only (never waits
 * on a FIFO: EINVAL), never through a symbolic link in its last part (a
 * link to /dev/zero or a secret: ELOOP), at most result_max_bytes() bytes.
 * With tail false a larger file is refused (errno EFBIG); with tail true
 * its last result_max_bytes() are read, from the start of a line. Returns
 * 0, or -1 with errno set.
 */
int result_read_text(struct strbuf *out, const char *path, bool tail);
/* The same, reading only the last max bytes (at most result_max_bytes()) of a larger file. */
int result_read_tail(struct strbuf *out, const char *path, size_t max);
/* Why result_read_text failed, in words, from its errno. */
const char *result_read_error(int err);

/*
 * The most bytes read: RESULT_MAX_BYTES unless result_set_max_bytes says
 * otherwise (the sweep binary takes SWEEP_RESULT_MAX from the environment,
 * as "64M"; 0 restores the default). A result has at most RESULT_MAX_KEYS
 * keys (more: RESULT_INVALID). Messages never quote a result file's bytes,
 * only its keys when it is valid.
 */
#define RESULT_MAX_KEYS 1024
void result_set_max_bytes(size_t max);
size_t result_max_bytes(void);

/*
 * Reads the result file at path into res (initialised, or released before).
 * Never fails: res->status says whether the file could be used, and why not.
 */
void result_read(struct result *res, const char *path);

/*
 * The default key of a series file (JSON Lines, CSV) that counts its
 * lines: the x axis of curves, never a metric (report --step names
 * another). Its entry is kept, with step set, so that the gate does not
 * count it.
 */
#define RESULT_STEP_KEY "step"

/*
 * The same for a file in format (JSON Lines and CSV: the last line or row,
 * whose step_key is marked step; NULL: RESULT_STEP_KEY).
 */
void result_read_format(struct result *res, const char *path, enum result_format format,
                        const char *step_key);

/* The same from text in memory (len bytes, need not be NUL-terminated). */
void result_parse(struct result *res, const char *text, size_t len);
void result_parse_format(struct result *res, const char *text, size_t len,
                         enum result_format format, const char *step_key);

/*
 * Metrics from a task's log: one compiled POSIX ERE per metric. The value
 * is the first group of the last match (lines are matched one by one, from
 * the end, in one pass over the text: a tqdm bar's one long line of
 * '\r'-separated updates costs its length), read as a number. A NUL byte
 * is a byte like any other; a group that holds one is not a number.
 */
struct result_log_spec {
	char **names;
	regex_t *patterns;
	size_t n;
};

/*
 * Compiles patterns[i] for names[i] (REG_EXTENDED). Returns 0, or an error
 * naming the metric (the sweep file reader checked them at submit already).
 */
int result_log_spec_init(struct result_log_spec *out, const char *const *names,
                         const char *const *patterns, size_t n);
void result_log_spec_release(struct result_log_spec *spec);

/*
 * Adds spec's metrics from the log text (log_name names it in messages) to
 * res, whose status must be RESULT_OK (a result without a file starts as
 * one with result_init_empty). A metric whose pattern does not match, or
 * whose group is not a number, gets an entry with why set; a log metric
 * replaces a file's key of the same name. When a value comes from a line
 * holding a NUL byte, res->warning says which line (once per call).
 */
void result_scan_log(struct result *res, const char *text, size_t len, const char *log_name,
                     const struct result_log_spec *spec);
/* The same reading the log at path (its end, result_read_text); NULL: there is no log yet. */
void result_read_log(struct result *res, const char *path, const struct result_log_spec *spec);

/* An empty RESULT_OK result, for metrics that come only from the log. */
void result_init_empty(struct result *res);

/* Borrowed from res: the entry for key, or NULL when the object has none. */
const struct result_entry *result_find(const struct result *res, const char *key);

/*
 * Describes in words why res cannot be used at all ("no result file",
 * "invalid result file: line 1 column 9: ...", with res->file named when
 * set), appended to the buffer out; does nothing for RESULT_OK.
 */
void result_describe(struct strbuf *out, const struct result *res);

#endif
