#include "result.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

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
	res->entries = NULL;
	res->nentries = 0;
}

void result_release(struct result *res)
{
	for (size_t i = 0; i < res->nentries; i++)
		free(res->entries[i].key);
	free(res->entries);
	free(res->detail);
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

char *result_path(const char *sweep_dir, size_t index)
{
	return xstrfmt("%s/tasks/%zu/result.json", sweep_dir, index);
}

static size_t max_bytes = RESULT_MAX_BYTES;

void result_set_max_bytes(size_t max)
{
	max_bytes = max;
}

void result_read(struct result *res, const char *path)
{
	struct strbuf sb = STRBUF_INIT;

	result_release(res);
	if (strbuf_read_file_max(&sb, path, max_bytes, STRBUF_READ_NOFOLLOW) < 0) {
		if (errno == ENOENT || errno == ENOTDIR) {
			res->status = RESULT_ABSENT;
			goto out;
		}
		res->status = RESULT_UNREADABLE;
		if (errno == ELOOP)
			res->detail = xstrdup("a symbolic link, not a regular file");
		else if (errno == EINVAL)
			res->detail = xstrdup("not a regular file");
		else if (errno == EFBIG)
			res->detail = xstrfmt("larger than %zu bytes (SWEEP_RESULT_MAX sets the "
			                      "limit)",
			                      max_bytes);
		else
			res->detail = xstrdup(strerror(errno));
		goto out;
	}
	result_parse(res, sb.buf, sb.len);
out:
	strbuf_release(&sb);
}

static bool is_word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.';
}

/*
 * Copies text to out with every non-finite token outside a string turned
 * into the string "\u0000<token>", which no writer of a metric produces and
 * which jansson accepts under JSON_ALLOW_NUL. Returns whether any token was
 * replaced; the positions of later errors then no longer match the file,
 * so the caller reports errors from the original text only.
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

static int compare_entries(const void *a, const void *b)
{
	const struct result_entry *x = a, *y = b;

	return strcmp(x->key, y->key);
}

static void collect_entries(struct result *res, json_t *obj)
{
	const char *key;
	json_t *value;

	res->entries = xcalloc(json_object_size(obj), sizeof(*res->entries));
	json_object_foreach(obj, key, value)
	{
		struct result_entry *e = &res->entries[res->nentries++];

		e->key = xstrdup(key);
		e->value = NAN;
		e->what = NULL;
		if (json_is_number(value)) {
			/* jansson refuses numbers that overflow, so this is finite. */
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
	qsort(res->entries, res->nentries, sizeof(*res->entries), compare_entries);
}

static bool is_blank(const char *text, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!isspace((unsigned char)text[i]))
			return false;
	return true;
}

void result_parse(struct result *res, const char *text, size_t len)
{
	const size_t flags = JSON_DECODE_ANY | JSON_REJECT_DUPLICATES;
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
		if (err.line > 0)
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
	res->status = RESULT_OK;
out:
	json_decref(root);
	strbuf_release(&fixed);
}

const struct result_entry *result_find(const struct result *res, const char *key)
{
	struct result_entry probe = {0};

	if (res->status != RESULT_OK || !res->nentries)
		return NULL;
	probe.key = (char *)key;
	return bsearch(&probe, res->entries, res->nentries, sizeof(*res->entries), compare_entries);
}

void result_describe(struct strbuf *out, const struct result *res)
{
	switch (res->status) {
	case RESULT_OK:
		break;
	case RESULT_NOT_READ:
		strbuf_addstr(out, "result file not read");
		break;
	case RESULT_ABSENT:
		strbuf_addstr(out, "no result file");
		break;
	case RESULT_UNREADABLE:
		strbuf_addf(out, "unreadable result file: %s", res->detail ? res->detail : "?");
		break;
	case RESULT_EMPTY:
		strbuf_addstr(out, "empty result file");
		break;
	case RESULT_INVALID:
		strbuf_addf(out, "invalid result file: %s", res->detail ? res->detail : "?");
		break;
	case RESULT_NOT_OBJECT:
		strbuf_addf(out, "invalid result file: %s, not an object",
		            res->detail ? res->detail : "a value");
		break;
	}
}
