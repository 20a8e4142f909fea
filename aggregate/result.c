#include "result.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "result_impl.h"
#include "strbuf.h"

#include "banned.h"

/*
 * The bare tokens writers use for values JSON cannot hold. Longer tokens
 * that share a prefix come first. The text stays as written: "is nan" in a
 * message is what the user will find in the file.
 */
static const char *const nonfinite_tokens[] = {
    "-Infinity", "Infinity", "-NaN", "NaN", "-inf", "inf", "-nan", "nan",
};
#define NTOKENS (sizeof(nonfinite_tokens) / sizeof(nonfinite_tokens[0]))

void result_init(struct result *res)
{
	res->status = RESULT_NOT_READ;
	res->detail = NULL;
	res->file = NULL;
	res->warning = NULL;
	res->entries = NULL;
	res->nentries = 0;
}

void result_init_empty(struct result *res)
{
	result_init(res);
	res->status = RESULT_OK;
}

void result_release(struct result *res)
{
	for (size_t i = 0; i < res->nentries; i++) {
		free(res->entries[i].key);
		free(res->entries[i].why);
	}
	free(res->entries);
	free(res->detail);
	free(res->file);
	free(res->warning);
	result_init(res);
}

void results_free(struct result *res, size_t n)
{
	if (!res)
		return;
	for (size_t i = 0; i < n; i++)
		result_release(&res[i]);
	free(res);
}

char *result_path(const char *sweep_dir, enum taskdir_layout layout, size_t index)
{
	return taskdir_file(sweep_dir, layout, index, "result.json");
}

/* Reads fd to its end into out, expecting about size bytes; more than limit fails (EFBIG). */
static int read_all(struct strbuf *out, int fd, size_t size, size_t limit)
{
	strbuf_grow(out, (size < limit ? size : limit) + 1);
	for (;;) {
		ssize_t n;

		if (out->alloc - out->len <= 1)
			strbuf_grow(out, 8192);
		n = read(fd, out->buf + out->len, out->alloc - out->len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		out->len += (size_t)n;
		if (out->len > limit) {
			errno = EFBIG;
			return -1;
		}
	}
	out->buf[out->len] = '\0';
	return 0;
}

static size_t max_bytes = RESULT_MAX_BYTES;

void result_set_max_bytes(size_t max)
{
	max_bytes = max ? max : RESULT_MAX_BYTES;
}

size_t result_max_bytes(void)
{
	return max_bytes;
}

static int read_text(struct strbuf *out, const char *path, bool tail, size_t max)
{
	/*
	 * The task wrote the file, so it is read as hostile. O_NONBLOCK: opening
	 * a FIFO must not wait for a writer; O_NOFOLLOW: never through a link
	 * (to /dev/zero, to someone's secret), ELOOP.
	 */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	int ret = -1, saved;

	strbuf_reset(out);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0)
		goto out;
	if (!S_ISREG(st.st_mode)) {
		errno = EINVAL;
		goto out;
	}
	if ((uint64_t)st.st_size > max) {
		if (!tail) {
			errno = EFBIG;
			goto out;
		}
		if (lseek(fd, st.st_size - (off_t)max, SEEK_SET) < 0)
			goto out;
	}
	if (read_all(out, fd, (size_t)st.st_size, max) < 0)
		goto out;
	if ((uint64_t)st.st_size > max) {
		/* Start at a whole line. */
		char *nl = memchr(out->buf, '\n', out->len);
		size_t skip = nl ? (size_t)(nl - out->buf) + 1 : 0;

		memmove(out->buf, out->buf + skip, out->len - skip + 1);
		out->len -= skip;
	}
	ret = 0;
out:
	saved = errno;
	close(fd);
	errno = saved;
	return ret;
}

int result_read_text(struct strbuf *out, const char *path, bool tail)
{
	return read_text(out, path, tail, max_bytes);
}

int result_read_tail(struct strbuf *out, const char *path, size_t max)
{
	return read_text(out, path, true, max < max_bytes ? max : max_bytes);
}

const char *result_read_error(int err)
{
	if (err == ELOOP)
		return "a symbolic link, not a regular file";
	if (err == EINVAL)
		return "not a regular file";
	return strerror(err);
}

void result_read(struct result *res, const char *path)
{
	result_read_format(res, path, RESULT_JSON, NULL);
}

void result_read_format(struct result *res, const char *path, enum result_format format,
                        const char *step_key)
{
	struct strbuf sb = STRBUF_INIT;

	result_release(res);
	if (result_read_text(&sb, path, format == RESULT_JSONL) < 0) {
		if (errno == ENOENT || errno == ENOTDIR) {
			res->status = RESULT_ABSENT;
		} else if (errno == EFBIG) {
			res->status = RESULT_TOO_LARGE;
		} else {
			res->status = RESULT_UNREADABLE;
			res->detail = xstrdup(result_read_error(errno));
		}
		goto out;
	}
	result_parse_format(res, sb.buf, sb.len, format, step_key);
out:
	strbuf_release(&sb);
}

static bool is_word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.';
}

static bool is_number_char(char c)
{
	return isdigit((unsigned char)c) || c == '-' || c == '+' || c == '.' || c == 'e' ||
	       c == 'E';
}

/* The length of the run of number characters at text (len bytes left). */
static size_t number_span(const char *text, size_t len)
{
	size_t n = 0;

	while (n < len && is_number_char(text[n]))
		n++;
	return n;
}

/*
 * Whether the n bytes at text are a number past the largest double as
 * strtod reads them (1e999, -1e400, a 400-digit integer), with its sign in
 * *negative.
 */
static bool overflows(bool *negative, const char *text, size_t n)
{
	char *copy = xstrndup(text, n), *end;
	double v;
	bool past;

	errno = 0;
	v = strtod(copy, &end);
	past = errno == ERANGE && isinf(v) && !*end;
	free(copy);
	*negative = v < 0;
	return past;
}

/*
 * Copies text to out with every non-finite token outside a string turned
 * into the string "\u0000<token>", which no writer of a metric produces and
 * which jansson accepts under JSON_ALLOW_NUL; a number past the largest
 * double becomes "\u0000Infinity" (or -Infinity), the words the CSV and log
 * readers use for it, where jansson would refuse the whole file ("real
 * number overflow"). Returns whether any token was replaced; the positions
 * of later errors then no longer match the file, so the caller reports
 * errors from the original text only.
 */
static bool rewrite_nonfinite(struct strbuf *out, const char *text, size_t len)
{
	bool in_string = false, replaced = false;
	size_t i = 0;

	while (i < len) {
		char c = text[i];
		size_t k;

		if (in_string) {
			if (c == '\\' && i + 1 < len) {
				strbuf_add(out, text + i, 2);
				i += 2;
				continue;
			}
			if (c == '"')
				in_string = false;
			strbuf_addch(out, c);
			i++;
			continue;
		}
		if (c == '"') {
			in_string = true;
			strbuf_addch(out, c);
			i++;
			continue;
		}
		for (k = 0; k < NTOKENS; k++) {
			const char *tok = nonfinite_tokens[k];
			size_t n = strlen(tok);

			if (n <= len - i && !memcmp(text + i, tok, n) &&
			    (i == 0 || !is_word_char(text[i - 1])) &&
			    (i + n == len || !is_word_char(text[i + n])))
				break;
		}
		if (k < NTOKENS) {
			strbuf_addf(out, "\"\\u0000%s\"", nonfinite_tokens[k]);
			i += strlen(nonfinite_tokens[k]);
			replaced = true;
			continue;
		}
		k = number_span(text + i, len - i);
		if (k) {
			bool negative, whole = (i == 0 || !is_word_char(text[i - 1])) &&
			                       (i + k == len || !is_word_char(text[i + k]));

			/* A whole run at once: each byte is looked at once. */
			if (whole && overflows(&negative, text + i, k)) {
				strbuf_addstr(out, negative ? "\"\\u0000-Infinity\""
				                            : "\"\\u0000Infinity\"");
				replaced = true;
			} else {
				strbuf_add(out, text + i, k);
			}
			i += k;
			continue;
		}
		strbuf_addch(out, c);
		i++;
	}
	return replaced;
}

/* The token a rewritten string stands for (static), or NULL for a real string. */
static const char *nonfinite_marker(const json_t *v)
{
	const char *s = json_string_value(v);
	size_t len = json_string_length(v);

	if (len < 2 || s[0] != '\0')
		return NULL;
	for (size_t k = 0; k < NTOKENS; k++)
		if (len - 1 == strlen(nonfinite_tokens[k]) &&
		    !memcmp(s + 1, nonfinite_tokens[k], len - 1))
			return nonfinite_tokens[k];
	return NULL;
}

static const char *describe_json(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return nonfinite_marker(v) ? "a non-finite number" : "a string";
	case JSON_INTEGER:
	case JSON_REAL:
		return "a number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	case JSON_NULL:
		return "null";
	}
	return "an unknown value";
}

int result_compare_entries(const void *a, const void *b)
{
	const struct result_entry *x = a, *y = b;

	return strcmp(x->key, y->key);
}

/*
 * A key as sweep keeps it: as written when it is plain text, else escaped
 * (strbuf_add_escaped), so that no printer (a table, CSV, JSON, shell
 * completion) receives a control byte or a byte that is not UTF-8 from a
 * task. The caller frees it.
 */
static char *key_of(const char *name)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_add_escaped(&sb, name);
	return strbuf_detach(&sb, NULL);
}

/* The first key of sorted entries that two entries share once escaped, or NULL. */
static const char *repeated_key(const struct result *res)
{
	for (size_t i = 1; i < res->nentries; i++)
		if (!strcmp(res->entries[i].key, res->entries[i - 1].key))
			return res->entries[i].key;
	return NULL;
}

static void collect_entries(struct result *res, json_t *obj)
{
	const char *key;
	json_t *value;

	res->entries = xcalloc(json_object_size(obj), sizeof(*res->entries));
	json_object_foreach(obj, key, value)
	{
		struct result_entry *e = &res->entries[res->nentries++];

		e->key = key_of(key);
		e->value = NAN;
		e->what = NULL;
		if (json_is_number(value)) {
			/* jansson refuses numbers that overflow (rewritten above), so this is
			 * finite. */
			e->kind = RESULT_NUMBER;
			e->value = json_number_value(value);
		} else if (json_is_string(value) && nonfinite_marker(value)) {
			e->kind = RESULT_NONFINITE;
			e->what = nonfinite_marker(value);
		} else {
			e->kind = RESULT_OTHER;
			e->what = describe_json(value);
		}
	}
	qsort(res->entries, res->nentries, sizeof(*res->entries), result_compare_entries);
}

static bool is_blank(const char *text, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!isspace((unsigned char)text[i]))
			return false;
	return true;
}

/* A JSON object; where names the text in error details ("" or "last line, "). */
static void parse_json(struct result *res, const char *text, size_t len, const char *where)
{
	/*
	 * JSON_DECODE_INT_AS_REAL: every number is a double here anyway, and an
	 * integer past int64 (Python's json.dump(2**64)) is still a number.
	 */
	const size_t flags = JSON_DECODE_ANY | JSON_REJECT_DUPLICATES | JSON_DECODE_INT_AS_REAL;
	struct strbuf fixed = STRBUF_INIT;
	json_error_t err;
	json_t *root;

	result_release(res);
	if (is_blank(text, len)) {
		res->status = RESULT_EMPTY;
		return;
	}
	root = json_loadb(text, len, flags, &err);
	if (!root && rewrite_nonfinite(&fixed, text, len))
		root = json_loadb(fixed.buf, fixed.len, flags | JSON_ALLOW_NUL, NULL);
	if (!root) {
		res->status = RESULT_INVALID;
		/* jansson quotes the offending token ("near 'x'"): never show the file's bytes. */
		char *near = strstr(err.text, " near '");

		if (near)
			*near = '\0';
		if (*where)
			res->detail = xstrfmt("%scolumn %d: %s", where, err.column, err.text);
		else if (err.line > 0)
			res->detail =
			    xstrfmt("line %d column %d: %s", err.line, err.column, err.text);
		else
			res->detail = xstrdup(err.text);
		goto out;
	}
	if (json_is_object(root) && json_object_size(root) > RESULT_MAX_KEYS) {
		res->status = RESULT_INVALID;
		res->detail =
		    xstrfmt("%zu keys, more than %d", json_object_size(root), RESULT_MAX_KEYS);
		goto out;
	}
	if (!json_is_object(root)) {
		res->status = RESULT_NOT_OBJECT;
		res->detail = xstrdup(describe_json(root));
		goto out;
	}
	collect_entries(res, root);
	if (repeated_key(res)) {
		char *key = xstrdup(repeated_key(res));

		result_release(res);
		res->status = RESULT_INVALID;
		res->detail =
		    xstrfmt("two keys read '%s' once their control bytes are escaped", key);
		free(key);
		goto out;
	}
	res->status = RESULT_OK;
out:
	json_decref(root);
	strbuf_release(&fixed);
}

/* Skips the UTF-8 byte order mark that Windows programs put at the start of a text. */
static void skip_bom(const char **text, size_t *len)
{
	if (*len >= 3 && !memcmp(*text, "\xEF\xBB\xBF", 3)) {
		*text += 3;
		*len -= 3;
	}
}

void result_parse(struct result *res, const char *text, size_t len)
{
	skip_bom(&text, &len);
	parse_json(res, text, len, "");
}

/* A series file counts its lines with its step key: no metric (result.h). */
static void mark_step(struct result *res, const char *step_key)
{
	struct result_entry *e =
	    (struct result_entry *)result_find(res, step_key ? step_key : RESULT_STEP_KEY);

	if (e)
		e->step = true;
}

/* JSON Lines: the last line that is not blank holds the latest metrics. */
static void parse_jsonl(struct result *res, const char *text, size_t len, const char *step_key)
{
	size_t end = len, start;

	for (;;) {
		while (end > 0 && isspace((unsigned char)text[end - 1]))
			end--;
		start = end;
		while (start > 0 && text[start - 1] != '\n')
			start--;
		if (end == 0 || !is_blank(text + start, end - start))
			break;
		end = start;
	}
	parse_json(res, text + start, end - start, "last line, ");
	mark_step(res, step_key);
}

/* ---- CSV (RFC 4180) ---- */

struct csv_row {
	char **fields;
	size_t n, alloc;
	size_t line; /* where it starts, 1-based */
};

static void csv_row_clear(struct csv_row *row)
{
	for (size_t i = 0; i < row->n; i++)
		free(row->fields[i]);
	row->n = 0;
}

/*
 * Reads one record from text[*pos..len) into row: fields separated by ',',
 * the record ended by CRLF, LF or the end; a field in double quotes may
 * hold commas, line breaks and "" for a quote. Returns 0, or -1 with *why
 * set (a quote that is never closed, text after a closing quote).
 */
static int csv_record(struct csv_row *row, const char *text, size_t len, size_t *pos, size_t *line,
                      const char **why)
{
	struct strbuf field = STRBUF_INIT;
	size_t i = *pos;
	int ret = 0;

	csv_row_clear(row);
	row->line = *line;
	for (;;) {
		bool quoted = i < len && text[i] == '"';

		strbuf_reset(&field);
		if (quoted) {
			for (i++;; i++) {
				if (i >= len) {
					*why = "a quoted field is never closed";
					ret = -1;
					goto out;
				}
				if (text[i] == '"' && i + 1 < len && text[i + 1] == '"') {
					strbuf_addch(&field, '"');
					i++;
				} else if (text[i] == '"') {
					i++;
					break;
				} else {
					if (text[i] == '\n')
						(*line)++;
					strbuf_addch(&field, text[i]);
				}
			}
			if (i < len && text[i] != ',' && text[i] != '\n' &&
			    !(text[i] == '\r' && i + 1 < len && text[i + 1] == '\n') &&
			    !(text[i] == '\r' && i + 1 == len)) {
				*why = "text after a closing quote";
				ret = -1;
				goto out;
			}
		} else {
			while (i < len && text[i] != ',' && text[i] != '\n' &&
			       !(text[i] == '\r' && (i + 1 == len || text[i + 1] == '\n')))
				strbuf_addch(&field, text[i++]);
		}
		ALLOC_GROW(row->fields, row->n + 1, row->alloc);
		row->fields[row->n++] = strbuf_detach(&field, NULL);
		if (i < len && text[i] == ',') {
			i++;
			continue;
		}
		if (i < len && text[i] == '\r')
			i++;
		if (i < len && text[i] == '\n') {
			i++;
			(*line)++;
		}
		break;
	}
out:
	*pos = i;
	strbuf_release(&field);
	return ret;
}

/* Removes the white space around s, in place. */
static void trim_blanks(char *s)
{
	size_t start = 0, len = strlen(s);

	while (isspace((unsigned char)s[start]))
		start++;
	while (len > start && isspace((unsigned char)s[len - 1]))
		len--;
	memmove(s, s + start, len - start);
	s[len - start] = '\0';
}

static bool is_blank_row(const struct csv_row *row)
{
	return row->n == 1 && is_blank(row->fields[0], strlen(row->fields[0]));
}

/* Static words for a non-finite number as strtod reads it, or NULL. */
static const char *nonfinite_name(double v)
{
	if (isnan(v))
		return "NaN";
	if (isinf(v))
		return v > 0 ? "Infinity" : "-Infinity";
	return NULL;
}

/* Reads text (trimmed of blanks) as a number into e: a number, non-finite, or other. */
void result_entry_from_text(struct result_entry *e, const char *text, const char *other)
{
	size_t len = strlen(text);
	char *copy, *end;
	const char *p = text;
	double v;

	while (isspace((unsigned char)*p))
		p++;
	while (len > (size_t)(p - text) && isspace((unsigned char)text[len - 1]))
		len--;
	e->value = NAN;
	e->what = NULL;
	if (len <= (size_t)(p - text)) {
		e->kind = RESULT_OTHER;
		e->what = "empty";
		return;
	}
	copy = xstrndup(p, len - (size_t)(p - text));
	errno = 0;
	v = strtod(copy, &end);
	/* Hexadecimal floats are not how anyone prints a metric. */
	if (end == copy || *end || strchr(copy, 'x') || strchr(copy, 'X')) {
		e->kind = RESULT_OTHER;
		e->what = other;
	} else if (nonfinite_name(v)) {
		e->kind = RESULT_NONFINITE;
		e->what = nonfinite_name(v);
	} else if (errno == ERANGE && fabs(v) > 1.0) {
		e->kind = RESULT_NONFINITE;
		e->what = v > 0 ? "Infinity" : "-Infinity";
	} else {
		e->kind = RESULT_NUMBER;
		e->value = v;
	}
	free(copy);
}

static void parse_csv(struct result *res, const char *text, size_t len)
{
	struct csv_row header = {0}, row = {0}, last = {0};
	size_t pos = 0, line = 1;
	const char *why = NULL;
	bool have_row = false;

	result_release(res);
	if (is_blank(text, len)) {
		res->status = RESULT_EMPTY;
		return;
	}
	if (csv_record(&header, text, len, &pos, &line, &why) < 0)
		goto invalid;
	while (pos < len) {
		if (csv_record(&row, text, len, &pos, &line, &why) < 0)
			goto invalid;
		if (is_blank_row(&row))
			continue;
		if (row.n != header.n) {
			res->status = RESULT_INVALID;
			res->detail = xstrfmt("line %zu has %zu field%s, the header %zu", row.line,
			                      row.n, row.n == 1 ? "" : "s", header.n);
			goto out;
		}
		/* Keep the last row: swap, so that the buffers are reused. */
		{
			struct csv_row tmp = last;

			last = row;
			row = tmp;
		}
		have_row = true;
	}
	if (!have_row) {
		res->status = RESULT_INVALID;
		res->detail = xstrdup("a header and no row under it");
		goto out;
	}
	/* "epoch, loss, acc" names loss and acc, as people write it. */
	for (size_t i = 0; i < header.n; i++) {
		char *key;

		trim_blanks(header.fields[i]);
		key = key_of(header.fields[i]);
		free(header.fields[i]);
		header.fields[i] = key;
	}
	if (header.n > RESULT_MAX_KEYS) {
		res->status = RESULT_INVALID;
		res->detail = xstrfmt("%zu columns, more than %d", header.n, RESULT_MAX_KEYS);
		goto out;
	}
	for (size_t i = 0; i < header.n; i++)
		for (size_t j = 0; j < i; j++)
			if (!strcmp(header.fields[i], header.fields[j])) {
				res->status = RESULT_INVALID;
				res->detail = xstrfmt("line %zu: column %zu repeats a name of the "
				                      "header",
				                      header.line, i + 1);
				goto out;
			}
	res->entries = xcalloc(header.n, sizeof(*res->entries));
	for (size_t i = 0; i < header.n; i++) {
		struct result_entry *e = &res->entries[res->nentries++];

		e->key = xstrdup(header.fields[i]);
		result_entry_from_text(e, last.fields[i], "text");
	}
	qsort(res->entries, res->nentries, sizeof(*res->entries), result_compare_entries);
	res->status = RESULT_OK;
	goto out;
invalid:
	res->status = RESULT_INVALID;
	res->detail = xstrfmt("line %zu: %s", line, why);
out:
	csv_row_clear(&header);
	csv_row_clear(&row);
	csv_row_clear(&last);
	free(header.fields);
	free(row.fields);
	free(last.fields);
}

void result_parse_format(struct result *res, const char *text, size_t len,
                         enum result_format format, const char *step_key)
{
	skip_bom(&text, &len);
	switch (format) {
	case RESULT_JSON:
		parse_json(res, text, len, "");
		return;
	case RESULT_JSONL:
		parse_jsonl(res, text, len, step_key);
		return;
	case RESULT_CSV:
		parse_csv(res, text, len);
		mark_step(res, step_key);
		return;
	}
}

const struct result_entry *result_find(const struct result *res, const char *key)
{
	struct result_entry probe = {0};

	if (res->status != RESULT_OK || !res->nentries)
		return NULL;
	probe.key = (char *)key;
	return bsearch(&probe, res->entries, res->nentries, sizeof(*res->entries),
	               result_compare_entries);
}

void result_describe(struct strbuf *out, const struct result *res)
{
	struct strbuf name = STRBUF_INIT;

	if (res->file) {
		strbuf_addch(&name, ' ');
		strbuf_add_shown(&name, res->file);
	}
	switch (res->status) {
	case RESULT_OK:
		break;
	case RESULT_NOT_READ:
		strbuf_addf(out, "result file%s not read", name.buf);
		break;
	case RESULT_ABSENT:
		strbuf_addf(out, "no result file%s", name.buf);
		break;
	case RESULT_UNREADABLE:
		strbuf_addf(out, "unreadable result file%s: %s", name.buf,
		            res->detail ? res->detail : "?");
		break;
	case RESULT_EMPTY:
		strbuf_addf(out, "empty result file%s", name.buf);
		break;
	case RESULT_INVALID:
		strbuf_addf(out, "invalid result file%s: %s", name.buf,
		            res->detail ? res->detail : "?");
		break;
	case RESULT_NOT_OBJECT:
		strbuf_addf(out, "invalid result file%s: %s, not an object", name.buf,
		            res->detail ? res->detail : "a value");
		break;
	case RESULT_TOO_LARGE:
		if (max_bytes % ((size_t)1 << 20))
			strbuf_addf(out, "result file%s larger than %zu bytes", name.buf,
			            max_bytes);
		else
			strbuf_addf(out, "result file%s larger than %zu MiB", name.buf,
			            max_bytes >> 20);
		strbuf_addstr(out, " (SWEEP_RESULT_MAX sets the limit)");
		break;
	}
	strbuf_release(&name);
}
