#include "curve.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "plan.h"
#include "result_impl.h"
#include "stats.h"
#include "strbuf.h"

#include "banned.h"

void curve_init(struct curve *c)
{
	memset(c, 0, sizeof(*c));
}

void curve_release(struct curve *c)
{
	for (size_t i = 0; i < c->n; i++)
		result_release(&c->lines[i].row);
	free(c->lines);
	free(c->error);
	curve_init(c);
}

int curve_parse(struct curve *c, const char *text, size_t len, const char *step_key)
{
	size_t line = 0, pos = 0;

	curve_release(c);
	while (pos < len) {
		const char *start = text + pos, *nl = memchr(start, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - start) : len - pos;
		const struct result_entry *e = NULL;
		struct result row;

		pos += n + (nl ? 1 : 0);
		line++;
		if (strspn(start, " \t\r") >= n)
			continue;
		result_init(&row);
		result_parse(&row, start, n);
		if (row.status == RESULT_NOT_OBJECT) {
			c->error = xstrfmt("line %zu: %s, not an object", line,
			                   row.detail ? row.detail : "a value");
		} else if (row.status != RESULT_OK) {
			c->error = xstrfmt("line %zu: invalid JSON: %s", line,
			                   row.detail ? row.detail : "?");
		} else if (!(e = result_find(&row, step_key))) {
			c->error = xstrfmt("line %zu: no '%s'", line, step_key);
		} else if (e->kind != RESULT_NUMBER) {
			c->error =
			    xstrfmt("line %zu: '%s' is %s, not a number", line, step_key, e->what);
		}
		if (c->error) {
			result_release(&row);
			return -1;
		}
		ALLOC_GROW(c->lines, c->n + 1, c->alloc);
		c->lines[c->n].step = e->value;
		c->lines[c->n++].row = row;
	}
	if (!c->n) {
		c->error = xstrdup("no lines");
		return -1;
	}
	return 0;
}

/* The line of c for step: the last one if it is, else any; a new one when none. */
static struct result *line_of_step(struct curve *c, double step)
{
	size_t i = c->n;

	if (i && c->lines[i - 1].step == step)
		return &c->lines[i - 1].row;
	for (i = 0; i < c->n; i++)
		if (c->lines[i].step == step)
			return &c->lines[i].row;
	ALLOC_GROW(c->lines, c->n + 1, c->alloc);
	c->lines[c->n].step = step;
	result_init_empty(&c->lines[c->n].row);
	return &c->lines[c->n++].row;
}

/* Sets key to value in row (entries sorted by key): a new entry, or the old one replaced. */
static void set_point(struct result *row, const char *key, double value)
{
	size_t i = 0;

	while (i < row->nentries && strcmp(row->entries[i].key, key) < 0)
		i++;
	if (i < row->nentries && !strcmp(row->entries[i].key, key)) {
		row->entries[i].value = value;
		return;
	}
	row->entries = xrealloc(row->entries, (row->nentries + 1) * sizeof(*row->entries));
	memmove(&row->entries[i + 1], &row->entries[i],
	        (row->nentries - i) * sizeof(*row->entries));
	memset(&row->entries[i], 0, sizeof(row->entries[i]));
	row->entries[i].key = xstrdup(key);
	row->entries[i].kind = RESULT_NUMBER;
	row->entries[i].value = value;
	row->nentries++;
}

/* The first group of the last match of re in line as a finite number, into *out. */
static bool number_in(double *out, const regex_t *re, const struct strbuf *line,
                      struct strbuf *group)
{
	struct result_entry e = {0};
	size_t gs, ge;

	if (!result_log_last_match(re, line->buf, line->len, &gs, &ge))
		return false;
	strbuf_reset(group);
	strbuf_add(group, line->buf + gs, ge - gs);
	if (memchr(group->buf, '\0', group->len))
		return false;
	result_entry_from_text(&e, group->buf, "text");
	*out = e.value;
	return e.kind == RESULT_NUMBER && isfinite(e.value);
}

void curve_scan_log(struct curve *c, const char *text, size_t len, const regex_t *step,
                    const struct result_log_spec *spec, const bool *only)
{
	struct strbuf line = STRBUF_INIT, group = STRBUF_INIT;
	bool have_step = false;
	double x = 0, v;

	for (size_t pos = 0; pos < len;) {
		const char *start = text + pos, *nl = memchr(start, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - start) : len - pos;

		pos += n + (nl ? 1 : 0);
		/* A copy ending in a NUL: text need not have one (see result_log.c). */
		strbuf_reset(&line);
		strbuf_add(&line, start, n);
		if (number_in(&v, step, &line, &group)) {
			x = v;
			have_step = true;
		}
		if (!have_step)
			continue;
		for (size_t k = 0; k < spec->n; k++)
			if ((!only || only[k]) && number_in(&v, &spec->patterns[k], &line, &group))
				set_point(line_of_step(c, x), spec->names[k], v);
	}
	strbuf_release(&line);
	strbuf_release(&group);
}

bool curve_has(const struct curve *c, const char *metric)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct result_entry *e = result_find(&c->lines[i].row, metric);

		if (e && e->kind == RESULT_NUMBER && isfinite(e->value))
			return true;
	}
	return false;
}

static bool is_name_char(char c, bool first)
{
	return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	       (!first && c >= '0' && c <= '9');
}

/* Appends the value of placeholder name (len bytes) of task index; -1 when unknown. */
static int add_placeholder(struct strbuf *sb, const char *name, size_t len,
                           const struct curve_where *w, const struct plan *plan, size_t index)
{
	char *key = xstrndup(name, len);
	int ret = 0;

	if (!strcmp(key, "index") || !strcmp(key, "task")) {
		strbuf_addf(sb, "%zu", index);
	} else if (!strcmp(key, "sweep")) {
		strbuf_addf(sb, "%lld", (long long)w->sweep_id);
	} else if (!strcmp(key, "seed")) {
		strbuf_addf(sb, "%lld", (long long)plan_seed_of(plan, index));
	} else if (!strcmp(key, "setting")) {
		strbuf_addf(sb, "%zu", plan_setting_of(plan, index));
	} else if (!strcmp(key, "task_dir")) {
		strbuf_addstr(sb, w->task_dir);
	} else {
		size_t p = 0;

		while (p < plan->nparams && strcmp(plan->params[p], key))
			p++;
		if (p < plan->nparams)
			strbuf_addstr(sb, plan_value(plan, plan_setting_of(plan, index), p));
		else
			ret = -1;
	}
	free(key);
	return ret;
}

int curve_path(char **out, const char *pattern, const struct curve_where *w,
               const struct plan *plan, size_t index)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = pattern;

	*out = NULL;
	if (!*pattern)
		return error("the curve file's name is empty");
	while (*p) {
		size_t len = 0;

		if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) {
			strbuf_addch(&sb, *p);
			p += 2;
			continue;
		}
		if (*p != '{') {
			strbuf_addch(&sb, *p++);
			continue;
		}
		while (p[1 + len] && is_name_char(p[1 + len], len == 0))
			len++;
		if (!len || p[1 + len] != '}' ||
		    add_placeholder(&sb, p + 1, len, w, plan, index) < 0) {
			size_t shown = strcspn(p + 1, "}");

			error("unknown placeholder '%.*s' in the curve file '%s': use {index}, "
			      "{task}, {sweep}, {seed}, {setting}, {task_dir} or a parameter's "
			      "name ('{{' for a brace)",
			      (int)(shown + (p[1 + shown] ? 2 : 1)), p, pattern);
			strbuf_release(&sb);
			return SWEEP_ERR;
		}
		p += len + 2;
	}
	/* Relative to the submit folder once expanded: "{task_dir}/x" is absolute. */
	if (sb.buf[0] == '/')
		*out = strbuf_detach(&sb, NULL);
	else
		*out = xstrfmt("%s/%s", w->workdir, sb.buf);
	strbuf_release(&sb);
	return 0;
}

int curve_read(struct curve *c, const char *path, const char *step_key)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	curve_release(c);
	if (strbuf_read_file(&sb, path) < 0) {
		if (errno == ENOENT)
			c->error = xstrfmt("no curve file '%s'", path);
		else
			c->error = xstrfmt("cannot read '%s': %s", path, strerror(errno));
		strbuf_release(&sb);
		return -1;
	}
	ret = curve_parse(c, sb.buf, sb.len, step_key);
	if (ret < 0) {
		char *why = c->error;

		c->error = xstrfmt("%s: %s", path, why);
		free(why);
	}
	strbuf_release(&sb);
	return ret;
}

static int compare_strings(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void curve_keys(char ***keys, size_t *nkeys, size_t *alloc, const struct curve *c,
                const char *step_key)
{
	for (size_t i = 0; i < c->n; i++) {
		for (size_t k = 0; k < c->lines[i].row.nentries; k++) {
			const struct result_entry *e = &c->lines[i].row.entries[k];

			if (e->kind == RESULT_OTHER || !strcmp(e->key, step_key))
				continue;
			if (*nkeys &&
			    bsearch(&e->key, *keys, *nkeys, sizeof(**keys), compare_strings))
				continue;
			ALLOC_GROW(*keys, *nkeys + 1, *alloc);
			(*keys)[(*nkeys)++] = xstrdup(e->key);
			qsort(*keys, *nkeys, sizeof(**keys), compare_strings);
		}
	}
}

void curve_band_release(struct curve_band *b)
{
	free(b->steps);
	free(b->mean);
	free(b->std);
	memset(b, 0, sizeof(*b));
}

/* Line indices of a curve sorted by step, then by line: the last of a step wins. */
struct sorted {
	const struct curve *c;
	size_t *idx;
};

/* The curve compare_lines sorts, as qsort has no context argument. */
static const struct curve *sort_curve;

static int compare_lines(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	double x = sort_curve->lines[i].step, y = sort_curve->lines[j].step;

	if (x != y)
		return x < y ? -1 : 1;
	return (i > j) - (i < j);
}

/* The value of metric at step in s, the last line with that step; NAN when none. */
static double value_at(const struct sorted *s, double step, const char *metric)
{
	size_t lo = 0, hi = s->c->n;
	const struct result_entry *e;

	/* The first index past every line with a step <= step. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->c->lines[s->idx[mid]].step <= step)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || s->c->lines[s->idx[lo - 1]].step != step)
		return NAN;
	e = result_find(&s->c->lines[s->idx[lo - 1]].row, metric);
	return e && e->kind == RESULT_NUMBER ? e->value : NAN;
}

void curve_band(struct curve_band *out, const struct curve *const *seeds, size_t nseeds,
                const char *metric)
{
	struct sorted *s = xcalloc(nseeds + 1, sizeof(*s));

	memset(out, 0, sizeof(*out));
	for (size_t k = 0; k < nseeds; k++) {
		s[k].c = seeds[k];
		s[k].idx = xcalloc(seeds[k]->n + 1, sizeof(size_t));
		for (size_t i = 0; i < seeds[k]->n; i++)
			s[k].idx[i] = i;
		sort_curve = seeds[k];
		qsort(s[k].idx, seeds[k]->n, sizeof(size_t), compare_lines);
	}
	if (nseeds) {
		out->steps = xcalloc(seeds[0]->n + 1, sizeof(double));
		out->mean = xcalloc(seeds[0]->n + 1, sizeof(double));
		out->std = xcalloc(seeds[0]->n + 1, sizeof(double));
	}
	/* The candidates are the first seed's distinct steps, in order. */
	for (size_t i = 0; nseeds && i < seeds[0]->n; i++) {
		double step = seeds[0]->lines[s[0].idx[i]].step;
		struct stats_acc acc;
		struct stats_summary sum;
		size_t k;

		if (i + 1 < seeds[0]->n && seeds[0]->lines[s[0].idx[i + 1]].step == step)
			continue; /* not the last line of this step */
		stats_init(&acc);
		for (k = 0; k < nseeds; k++) {
			double v = value_at(&s[k], step, metric);

			if (!isfinite(v))
				break;
			stats_add(&acc, v);
		}
		if (k < nseeds)
			continue;
		stats_summarize(&sum, &acc);
		out->steps[out->n] = step;
		out->mean[out->n] = sum.mean;
		out->std[out->n++] = sum.has_std ? sum.std : NAN;
	}
	for (size_t k = 0; k < nseeds; k++)
		free(s[k].idx);
	free(s);
}
