#ifndef SWEEP_STRBUF_H
#define SWEEP_STRBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * A growable string. buf is never NULL: after strbuf_init it points to a
 * static empty string, so it can always be printed. len excludes the
 * terminating NUL, which is always present.
 *
 * Allocation failure aborts (as git's xmalloc does): sweep has no sensible
 * way to go on without memory.
 */
struct strbuf {
	size_t alloc;
	size_t len;
	char *buf;
};

extern char strbuf_slopbuf[];
#define STRBUF_INIT                                                                                \
	{                                                                                          \
		0, 0, strbuf_slopbuf                                                               \
	}

void strbuf_init(struct strbuf *sb, size_t hint);
/* Frees the contents and leaves sb empty and reusable. */
void strbuf_release(struct strbuf *sb);
/* Hands the buffer over to the caller, who frees it; sb is left empty. */
char *strbuf_detach(struct strbuf *sb, size_t *len);
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_setlen(struct strbuf *sb, size_t len);
#define strbuf_reset(sb) strbuf_setlen(sb, 0)

void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, int c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
void strbuf_trim_trailing_newlines(struct strbuf *sb);

/*
 * Appends a user's text as a message shows it: newline, tab and other
 * control bytes escaped (\n, \t, \x01), bytes outside valid UTF-8 too
 * (\xe9), cut after 60 bytes with "...".
 */
void strbuf_add_shown(struct strbuf *sb, const char *s);

/*
 * Whether s is plain text: valid UTF-8 without control characters (C0,
 * DEL, C1), so that printing it cannot move a terminal's cursor, split a
 * line or break a JSON writer.
 */
bool strbuf_is_plain(const char *s);
/*
 * Appends s unchanged when it is plain; else escaped, whole: \n, \t, a
 * backslash doubled, any other control byte or byte outside valid UTF-8
 * as \xHH. The result is always plain.
 */
void strbuf_add_escaped(struct strbuf *sb, const char *s);

/* Reads the whole file into sb (appending). Returns 0 or -1 with errno set. */
int strbuf_read_file(struct strbuf *sb, const char *path);

/*
 * Reads a file that someone else may have made into sb (appending), once,
 * without hanging and without exhausting memory: only a regular file, or
 * with STRBUF_READ_PIPE a pipe or FIFO, read to its end (a FIFO nobody
 * writes to reads as empty); never more than max bytes; with
 * STRBUF_READ_NOFOLLOW never through a symbolic link in the last part of
 * path. Returns 0, or -1 with errno set: EFBIG when the file holds more
 * than max bytes, EINVAL when it is not a regular file (or pipe), ELOOP
 * for a link, and open's or read's own errors. sb then holds what was
 * read so far.
 */
#define STRBUF_READ_NOFOLLOW 1
#define STRBUF_READ_PIPE     2
int strbuf_read_file_max(struct strbuf *sb, const char *path, size_t max, int flags);

/* Allocation helpers that never return NULL. */
void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* Returns a newly allocated formatted string; the caller frees it. */
char *xstrfmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Grows *array (of *alloc elements of elem_size) to hold at least n. */
void *xgrow(void *array, size_t *alloc, size_t n, size_t elem_size);
#define ALLOC_GROW(arr, n, alloc) ((arr) = xgrow((arr), &(alloc), (n), sizeof(*(arr))))

#endif
