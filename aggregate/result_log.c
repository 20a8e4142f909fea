/*
 * Metrics read from a task's log (results: log: in the sweep file): the
 * last match of each pattern, as result.h says.
 */
#include "result.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "result_impl.h"
#include "strbuf.h"

#include "banned.h"

int result_log_spec_init(struct result_log_spec *out, const char *const *names,
                         const char *const *patterns, size_t n)
{
	out->names = xcalloc(n ? n : 1, sizeof(*out->names));
	out->patterns = xcalloc(n ? n : 1, sizeof(*out->patterns));
	out->n = 0;
	for (size_t i = 0; i < n; i++) {
		int rc = regcomp(&out->patterns[i], patterns[i], REG_EXTENDED);

		if (rc) {
			char msg[256];

			regerror(rc, &out->patterns[i], msg, sizeof(msg));
			result_log_spec_release(out);
			return error("the pattern for '%s' is not a valid regular expression: %s",
			             names[i], msg);
		}
		out->names[i] = xstrdup(names[i]);
		out->n++;
	}
	return 0;
}

void result_log_spec_release(struct result_log_spec *spec)
{
	for (size_t i = 0; i < spec->n; i++) {
		free(spec->names[i]);
		regfree(&spec->patterns[i]);
	}
	free(spec->names);
	free(spec->patterns);
	memset(spec, 0, sizeof(*spec));
}

/*
 * The matches of re in line (len bytes) from off on, one after the other:
 * the start of the last one in *last, with its first group in m when
 * want_group (that group taking part). REG_STARTEND bounds every search by
 * the line's end, so that no call measures the rest of the text (a tqdm bar
 * is one line of '\r'-separated updates: a strlen per match made reading
 * it quadratic), and a NUL byte is a byte like any other, not the end.
 * Returns whether there was one.
 */
static bool scan_matches(const regex_t *re, const char *line, size_t len, bool want_group,
                         size_t *last, regmatch_t *group)
{
	size_t off = 0, nmatch = want_group ? 2 : 1;
	bool found = false;
	regmatch_t m[2];

	while (off <= len) {
		m[0].rm_so = (regoff_t)off;
		m[0].rm_eo = (regoff_t)len;
		/* The offsets are line's; past its start '^' cannot match, as before. */
		if (regexec(re, line, nmatch, m, REG_STARTEND | (off ? REG_NOTBOL : 0)))
			break;
		if (!want_group || m[1].rm_so >= 0) {
			*last = (size_t)m[0].rm_so;
			if (want_group)
				*group = m[1];
			found = true;
		}
		off = (size_t)(m[0].rm_eo > m[0].rm_so ? m[0].rm_eo : m[0].rm_so + 1);
	}
	return found;
}

/*
 * The last match of re in line (len bytes) whose first group took part:
 * that group in [*gs, *ge). Returns false when the line has none. Finding
 * where the matches are is much cheaper than where their groups are: the
 * groups are asked for once, of the last match, which searched from where
 * it starts finds the same match again (only when its group took no part,
 * as in "(a)|b", are the matches searched again with their groups).
 */
bool result_log_last_match(const regex_t *re, const char *line, size_t len, size_t *gs, size_t *ge)
{
	regmatch_t m[2];
	size_t last;

	if (!scan_matches(re, line, len, false, &last, NULL))
		return false;
	m[0].rm_so = (regoff_t)last;
	m[0].rm_eo = (regoff_t)len;
	if (regexec(re, line, 2, m, REG_STARTEND | (last ? REG_NOTBOL : 0)) || m[1].rm_so < 0) {
		if (!scan_matches(re, line, len, true, &last, &m[1]))
			return false;
	}
	*gs = (size_t)m[1].rm_so;
	*ge = (size_t)m[1].rm_eo;
	return true;
}

/*
 * The last match of re in text, line by line from the end (the first line
 * that matches holds it): its first group copied to group. *nul_line is
 * set to the 1-based number of that line when it holds a NUL byte (a
 * program that wrote binary, a file with a hole), else 0.
 */
static bool find_last(struct strbuf *group, size_t *nul_line, const regex_t *re, const char *text,
                      size_t len)
{
	struct strbuf line = STRBUF_INIT;
	size_t end = len, gs, ge;
	bool found = false;

	*nul_line = 0;
	while (end > 0 && !found) {
		size_t start = end;

		while (start > 0 && text[start - 1] != '\n')
			start--;
		/*
		 * A copy that ends in a NUL, each line once: text need not have
		 * one, and the sanitizers' regexec measures its string.
		 */
		strbuf_reset(&line);
		strbuf_add(&line, text + start, end - start);
		if (result_log_last_match(re, line.buf, line.len, &gs, &ge)) {
			strbuf_add(group, line.buf + gs, ge - gs);
			if (memchr(line.buf, '\0', line.len)) {
				*nul_line = 1;
				for (const char *p = text;
				     (p = memchr(p, '\n', (size_t)(text + start - p))); p++)
					(*nul_line)++;
			}
			found = true;
		}
		end = start ? start - 1 : 0;
	}
	strbuf_release(&line);
	return found;
}

/* Removes the entry for key from res, if there is one (a log metric wins). */
static void drop_entry(struct result *res, const char *key)
{
	for (size_t i = 0; i < res->nentries; i++)
		if (!strcmp(res->entries[i].key, key)) {
			free(res->entries[i].key);
			free(res->entries[i].why);
			memmove(&res->entries[i], &res->entries[i + 1],
			        (res->nentries - i - 1) * sizeof(*res->entries));
			res->nentries--;
			return;
		}
}

static struct result_entry *add_log_entry(struct result *res, const char *name)
{
	struct result_entry *e;

	drop_entry(res, name);
	res->entries = xrealloc(res->entries, (res->nentries + 1) * sizeof(*res->entries));
	e = &res->entries[res->nentries++];
	memset(e, 0, sizeof(*e));
	e->key = xstrdup(name);
	e->value = NAN;
	e->from_log = true;
	return e;
}

void result_scan_log(struct result *res, const char *text, size_t len, const char *log_name,
                     const struct result_log_spec *spec)
{
	struct strbuf group = STRBUF_INIT, shown = STRBUF_INIT;

	for (size_t k = 0; k < spec->n; k++) {
		struct result_entry *e = add_log_entry(res, spec->names[k]);
		size_t nul_line;

		strbuf_reset(&group);
		if (!find_last(&group, &nul_line, &spec->patterns[k], text, len)) {
			e->kind = RESULT_MISSING;
			e->why =
			    xstrfmt("pattern for '%s' not found in %s", spec->names[k], log_name);
			continue;
		}
		/* Once per log: the first metric read from such a line names it. */
		if (nul_line && !res->warning)
			res->warning = xstrfmt("line %zu of %s holds a NUL byte; '%s' was read "
			                       "from that line",
			                       nul_line, log_name, spec->names[k]);
		if (memchr(group.buf, '\0', group.len)) {
			e->kind = RESULT_OTHER;
			e->what = "text";
		} else {
			result_entry_from_text(e, group.buf, "text");
		}
		if (e->kind != RESULT_OTHER)
			continue;
		/* Show a little of what the group held, escaped (a NUL as \x00). */
		if (group.len > 40)
			strbuf_setlen(&group, 40);
		strbuf_reset(&shown);
		for (size_t i = 0; i <= group.len; i += strlen(group.buf + i) + 1) {
			if (i)
				strbuf_addstr(&shown, "\\x00");
			strbuf_add_shown(&shown, group.buf + i);
		}
		e->why = xstrfmt("metric '%s' in %s is '%s', not a number", spec->names[k],
		                 log_name, shown.buf);
	}
	strbuf_release(&group);
	strbuf_release(&shown);
	qsort(res->entries, res->nentries, sizeof(*res->entries), result_compare_entries);
}

/*
 * Programs print their metrics to stderr too (XGBoost's "[9]\ttest-error:
 * 0.0162", Python's logging): a metric whose pattern the task's stdout log
 * (path, "...out") does not match is looked for in its stderr log, the same
 * name ending in ".err". The stdout match wins when both have one. A metric
 * in neither says so, naming both.
 */
static void from_stderr(struct result *res, const char *path, const struct result_log_spec *spec)
{
	size_t len = strlen(path), missing = 0;
	struct strbuf text = STRBUF_INIT;
	struct result err;
	char *errpath, *key;

	for (size_t k = 0; k < spec->n; k++) {
		const struct result_entry *e = result_find(res, spec->names[k]);

		missing += e && e->kind == RESULT_MISSING;
	}
	if (!missing || len < 4 || strcmp(path + len - 4, ".out"))
		return;
	errpath = xstrfmt("%.*s.err", (int)(len - 4), path);
	if (result_read_text(&text, errpath, true) < 0) {
		free(errpath);
		return; /* no stderr log (merged with 2>&1, or not written): stdout said it */
	}
	result_init_empty(&err);
	result_scan_log(&err, text.buf, text.len, errpath, spec);
	for (size_t k = 0; k < spec->n; k++) {
		/* Entries of results this function owns, changed in place. */
		struct result_entry *e = (struct result_entry *)result_find(res, spec->names[k]);
		struct result_entry *f = (struct result_entry *)result_find(&err, spec->names[k]);

		if (!e || e->kind != RESULT_MISSING || !f)
			continue;
		free(e->why);
		if (f->kind == RESULT_MISSING) {
			e->why = xstrfmt("pattern for '%s' not found in %s nor in %s",
			                 spec->names[k], path, errpath);
			continue;
		}
		/* Found on stderr: its value, or why it is not a number (why moves over). */
		key = e->key;
		*e = *f;
		e->key = key;
		f->why = NULL; /* moved to e */
	}
	if (err.warning && !res->warning) {
		res->warning = err.warning;
		err.warning = NULL;
	}
	result_release(&err);
	strbuf_release(&text);
	free(errpath);
}

void result_read_log(struct result *res, const char *path, const struct result_log_spec *spec)
{
	struct strbuf sb = STRBUF_INIT;

	if (!path || result_read_text(&sb, path, true) < 0) {
		char *why =
		    !path ? xstrdup("the task has no log yet")
		          : xstrfmt("cannot read its log %s: %s", path, result_read_error(errno));

		for (size_t k = 0; k < spec->n; k++) {
			struct result_entry *e = add_log_entry(res, spec->names[k]);

			e->kind = RESULT_MISSING;
			e->why = xstrfmt("metric '%s': %s", spec->names[k], why);
		}
		free(why);
		qsort(res->entries, res->nentries, sizeof(*res->entries), result_compare_entries);
		goto out;
	}
	result_scan_log(res, sb.buf, sb.len, path, spec);
	from_stderr(res, path, spec);
out:
	strbuf_release(&sb);
}
