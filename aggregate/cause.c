/*
 * The cause of a failure in the program's words. Logs are the task's, so
 * they are read as hostile: every byte that could move a terminal's cursor
 * is escaped, and the line is cut before it can wrap.
 */
#include "cause.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "outcome.h"
#include "strbuf.h"

#include "banned.h"

void cause_pick_release(struct cause_pick *p)
{
	free(p->line);
	memset(p, 0, sizeof(*p));
}

static bool starts_with(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && !memcmp(s, prefix, n);
}

/* [*s, *s + *len) without surrounding blanks, and only what follows its last '\r'. */
static void trim(const char **s, size_t *len)
{
	const char *p = *s, *end = *s + *len;

	while (end > p && isspace((unsigned char)end[-1]))
		end--;
	for (const char *q = end; q > p; q--)
		if (q[-1] == '\r') {
			p = q;
			break;
		}
	while (p < end && isspace((unsigned char)*p))
		p++;
	*s = p;
	*len = (size_t)(end - p);
}

/* "slurmstepd: " or, as Slurm names itself after the node, "slurmstepd-n1: ". */
static bool slurmstepd_line(const char *s, size_t len)
{
	static const char name[] = "slurmstepd";
	size_t i = sizeof(name) - 1;

	if (!starts_with(s, len, name))
		return false;
	if (i < len && s[i] == '-')
		while (i < len && s[i] != ':' && !isspace((unsigned char)s[i]))
			i++;
	return i + 1 < len && s[i] == ':' && s[i + 1] == ' ';
}

/*
 * slurmstepd's lines as newer releases write them into the task's log: a
 * timestamp, not its name (22.05: "slurmstepd-vm: ", 23.11: "slurmstepd: ";
 * 26.05: stamped) ("[2026-12-06T05:20:39.295] error: StepId=756.batch
 * exceeded memory limit ..."; tests/data/causes/oom_26_05.err, recorded on
 * 26.05). "[" date "T" time, an optional fraction, "] ", then a log level.
 */
static bool stepd_stamped_line(const char *s, size_t len)
{
	static const char *const levels[] = {
	    "error: ", "fatal: ", "warning: ", "info: ", "debug: ", "verbose: "};
	static const char shape[] = "[dddd-dd-ddTdd:dd:dd";
	size_t i = 0;

	if (len < sizeof(shape) - 1)
		return false;
	for (; i < sizeof(shape) - 1; i++)
		if (shape[i] == 'd' ? !isdigit((unsigned char)s[i]) : s[i] != shape[i])
			return false;
	if (i < len && s[i] == '.')
		for (i++; i < len && isdigit((unsigned char)s[i]); i++)
			;
	if (len - i < 2 || s[i] != ']' || s[i + 1] != ' ')
		return false;
	i += 2;
	for (size_t k = 0; k < sizeof(levels) / sizeof(*levels); k++)
		if (starts_with(s + i, len - i, levels[k]))
			return true;
	return false;
}

/* Lines sweep's script, slurmstepd or srun wrote, not the program. */
static bool not_the_program(const char *s, size_t len)
{
	return starts_with(s, len, "sweep: ") || slurmstepd_line(s, len) ||
	       stepd_stamped_line(s, len) || starts_with(s, len, "srun: ");
}

/*
 * Bash names the script in its own errors: "/var/spool/slurmd/job00048/
 * slurm_script: line 203: trian.sh: command not found". That script is
 * sweep's (Slurm's copy, or the .sbatch file run locally), its path and line
 * say nothing to the user and differ per job: drop them.
 */
static void drop_script_prefix(const char **s, size_t *len)
{
	static const char *const scripts[] = {"slurm_script: line ", ".sbatch: line "};

	for (size_t k = 0; k < sizeof(scripts) / sizeof(*scripts); k++) {
		size_t m = strlen(scripts[k]);

		for (size_t i = 0; i + m < *len; i++) {
			size_t j = i + m;

			if (memcmp(*s + i, scripts[k], m))
				continue;
			while (j < *len && isdigit((unsigned char)(*s)[j]))
				j++;
			if (j > i + m && j + 2 < *len && (*s)[j] == ':' && (*s)[j + 1] == ' ') {
				*s += j + 2;
				*len -= j + 2;
				return;
			}
		}
	}
}

/*
 * The last non-blank line of [text, text + len), trimmed, for which want()
 * holds, or NULL; its length in *linelen.
 */
static const char *last_line_where(const char *text, size_t len, size_t *linelen,
                                   bool (*want)(const char *s, size_t n))
{
	const char *end = text + len;

	while (end > text) {
		const char *start = end, *s;
		size_t n;

		while (start > text && start[-1] != '\n')
			start--;
		s = start;
		n = (size_t)(end - start);
		trim(&s, &n);
		end = start > text ? start - 1 : text;
		if (n && want(s, n)) {
			*linelen = n;
			return s;
		}
	}
	return NULL;
}

static bool the_program(const char *s, size_t n)
{
	return !not_the_program(s, n);
}

/* The script's own refusal to go on before the command ran. */
static bool refusal(const char *s, size_t n)
{
	return starts_with(s, n, "sweep: cannot ") || starts_with(s, n, "sweep: refusing ");
}

static bool refusal_or_program(const char *s, size_t n)
{
	return refusal(s, n) || the_program(s, n);
}

/* The last line of [text, text + len) that the program wrote, or NULL. */
static const char *last_line(const char *text, size_t len, size_t *linelen)
{
	return last_line_where(text, len, linelen, the_program);
}

/*
 * The line with which the task script refused to go on before the command
 * ran ("sweep: cannot stage: it needs up to 41MB ...", "sweep: refusing
 * the folder ..."), when no line of the program follows it; else NULL.
 */
static const char *script_refusal(const char *text, size_t len, size_t *linelen)
{
	const char *s = last_line_where(text, len, linelen, refusal_or_program);

	return s && refusal(s, *linelen) ? s : NULL;
}

/*
 * The first needle in [s, s + len), or NULL. Not strstr: a NUL byte (the
 * hole a crashed node leaves in a log that a requeued run appends to) is
 * a byte like any other and hides nothing after it.
 */
static const char *find_in(const char *s, size_t len, const char *needle)
{
	const char *end = s + len, *p = s;
	size_t n = strlen(needle);

	while (n && (size_t)(end - p) >= n &&
	       (p = memchr(p, needle[0], (size_t)(end - p) - n + 1))) {
		if (!memcmp(p, needle, n))
			return p;
		p++;
	}
	return NULL;
}

/*
 * The exception line of the last Python traceback in [text, text + len):
 * the first line after its header that is not indented (the frames and
 * the source lines are).
 */
static const char *traceback_line(const char *text, size_t len, size_t *linelen)
{
	static const char header[] = "Traceback (most recent call last):";
	const char *end = text + len, *last = NULL, *p = text, *line;

	while ((p = find_in(p, (size_t)(end - p), header))) {
		last = p;
		p += sizeof(header) - 1;
	}
	if (!last)
		return NULL;
	for (line = memchr(last, '\n', (size_t)(end - last)); line && line + 1 < end;
	     line = memchr(line, '\n', (size_t)(end - line))) {
		const char *s = ++line, *nl = memchr(line, '\n', (size_t)(end - line));
		size_t n = nl ? (size_t)(nl - line) : (size_t)(end - line);

		if (!n || isspace((unsigned char)*s))
			continue;
		trim(&s, &n);
		if (n && !not_the_program(s, n)) {
			*linelen = n;
			return s;
		}
	}
	return NULL;
}

/* The length of the valid UTF-8 sequence at s (n bytes left), or 0. */
static size_t utf8_len(const char *s, size_t n)
{
	unsigned char c = (unsigned char)s[0];
	size_t len = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c <= 0xdf ? 2 : 0;

	if (c >= 0xf5 || len > n)
		return 0;
	for (size_t k = 1; k < len; k++)
		if (((unsigned char)s[k] & 0xc0) != 0x80)
			return 0;
	return len;
}

static char *shown_line(const char *s, size_t n)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		size_t before = sb.len, seq = c >= 0x80 ? utf8_len(s + i, n - i) : 0;

		if (seq > 1) {
			strbuf_add(&sb, s + i, seq);
			i += seq - 1;
		} else if (c == '\t') {
			strbuf_addstr(&sb, "\\t");
		} else if (c < 0x20 || c >= 0x7f) {
			strbuf_addf(&sb, "\\x%02x", c);
		} else {
			strbuf_addch(&sb, (char)c);
		}
		/* Whole characters only: cut before the one that does not fit. */
		if (sb.len > CAUSE_LINE_MAX) {
			strbuf_setlen(&sb, before);
			strbuf_addstr(&sb, "...");
			break;
		}
	}
	return strbuf_detach(&sb, NULL);
}

/* A line of slurmstepd's (either form) says the step exceeded its memory limit. */
static bool stepd_said_oom(const char *text, size_t len)
{
	const char *end = text + len, *p = text;

	while ((p = find_in(p, (size_t)(end - p), "exceeded memory limit"))) {
		const char *line = p;

		while (line > text && line[-1] != '\n' && line[-1] != '\0')
			line--;
		if (slurmstepd_line(line, (size_t)(end - line)) ||
		    stepd_stamped_line(line, (size_t)(end - line)))
			return true;
		p += sizeof("exceeded memory limit") - 1;
	}
	return false;
}

static const char *pick_in(const char *text, size_t len, size_t *n)
{
	const char *line;

	if (!text || !len)
		return NULL;
	line = traceback_line(text, len, n);
	return line ? line : last_line(text, len, n);
}

void cause_pick(struct cause_pick *out, const char *err, size_t errlen, const char *out_text,
                size_t outlen)
{
	const char *line;
	size_t n = 0;

	memset(out, 0, sizeof(*out));
	line = err && errlen ? script_refusal(err, errlen, &n) : NULL;
	if (!line)
		line = pick_in(err, errlen, &n);
	if (!line)
		line = pick_in(out_text, outlen, &n);
	out->log_oom = err && stepd_said_oom(err, errlen);
	if (!line)
		return;
	drop_script_prefix(&line, &n);
	out->line = shown_line(line, n);
	out->not_found = strstr(out->line, "command not found") ||
	                 strstr(out->line, "No such file or directory") ||
	                 strstr(out->line, ": not found");
}

bool cause_is_resource(const struct task_outcome *o, bool log_oom)
{
	switch (o->state) {
	case TS_OUT_OF_MEMORY:
	case TS_TIMEOUT:
	case TS_NODE_FAIL:
	case TS_PREEMPTED:
	case TS_BOOT_FAIL:
	case TS_DEADLINE:
	case TS_CANCELLED:
		return true;
	case TS_FAILED:
		return outcome_out_of_memory(o) || log_oom;
	default:
		return log_oom;
	}
}

static void add_path(struct strbuf *out, const char *path, const char *home)
{
	size_t n = home ? strlen(home) : 0;

	if (n > 1 && !strncmp(path, home, n) && path[n] == '/')
		strbuf_addf(out, "~%s", path + n);
	else
		strbuf_addstr(out, path);
}

bool cause_ran_note(struct strbuf *out, const char *program, const char *node_path,
                    const char *host, const char *submit_path, const char *home)
{
	const char *where = host && *host ? host : "the node";

	if (!program || !*program || !node_path)
		return false;
	if (!*node_path) {
		strbuf_addf(out, "%s not found on %s", program, where);
		if (submit_path) {
			strbuf_addstr(out, " (at submit: ");
			add_path(out, submit_path, home);
			strbuf_addch(out, ')');
		} else {
			strbuf_addstr(out, " nor at submit");
		}
		return true;
	}
	/* A builtin, function or alias: no file to compare. */
	if (!strchr(node_path, '/') || (submit_path && !strcmp(node_path, submit_path)))
		return false;
	strbuf_addf(out, "%s was ", program);
	add_path(out, node_path, home);
	strbuf_addf(out, " on %s, ", where);
	if (submit_path)
		add_path(out, submit_path, home);
	else
		strbuf_addstr(out, "not found");
	strbuf_addstr(out, " at submit");
	return true;
}

void cause_text(struct strbuf *out, const char *reason, bool resource, const char *line,
                const char *note)
{
	if (resource || !line) {
		strbuf_addstr(out, reason);
		if (line)
			strbuf_addf(out, "; last line: %s", line);
	} else {
		strbuf_addstr(out, line);
	}
	if (note && *note)
		strbuf_addf(out, " (%s)", note);
}

/* Characters that end a word for the path rule: blanks, quotes, brackets, separators. */
static bool word_end(char c)
{
	return !c || isspace((unsigned char)c) || strchr("'\"()[]{}<>,;=`", c);
}

static size_t hex_run(const char *s, bool *digit)
{
	size_t n = 0;

	*digit = false;
	while (isxdigit((unsigned char)s[n])) {
		*digit |= isdigit((unsigned char)s[n]) != 0;
		n++;
	}
	return n;
}

static size_t number_len(const char *s)
{
	size_t n = 0;

	if (s[0] == '-' || s[0] == '+')
		n++;
	while (isdigit((unsigned char)s[n]))
		n++;
	if (s[n] == '.' && isdigit((unsigned char)s[n + 1]))
		for (n++; isdigit((unsigned char)s[n]);)
			n++;
	if ((s[n] == 'e' || s[n] == 'E') &&
	    (isdigit((unsigned char)s[n + 1]) ||
	     ((s[n + 1] == '-' || s[n + 1] == '+') && isdigit((unsigned char)s[n + 2])))) {
		for (n += 2; isdigit((unsigned char)s[n]);)
			n++;
	}
	return n;
}

/* One word with no '/': numbers as N, hex ids as X, the rest as it is. */
static void normalise_word(struct strbuf *out, const char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		bool alnum_before = i && isalnum((unsigned char)s[i - 1]), digit;
		size_t hex;

		if (!alnum_before && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X') &&
		    isxdigit((unsigned char)s[i + 2])) {
			i += 2 + hex_run(s + i + 2, &digit);
			strbuf_addch(out, 'X');
			continue;
		}
		hex = alnum_before ? 0 : hex_run(s + i, &digit);
		if (hex >= 6 && digit && !isalnum((unsigned char)s[i + hex])) {
			i += hex;
			strbuf_addch(out, 'X');
			continue;
		}
		/* Digits inside a name (resnet50, sm_80) are part of it. */
		if ((isdigit((unsigned char)s[i]) && !(alnum_before || (i && s[i - 1] == '_'))) ||
		    ((s[i] == '-' || s[i] == '+') && !alnum_before &&
		     isdigit((unsigned char)s[i + 1]))) {
			i += number_len(s + i);
			strbuf_addch(out, 'N');
			continue;
		}
		strbuf_addch(out, s[i++]);
	}
}

void cause_normalise(struct strbuf *out, const char *s)
{
	while (*s) {
		size_t n = 0;

		if (word_end(*s)) {
			strbuf_addch(out, *s++);
			continue;
		}
		while (!word_end(s[n]))
			n++;
		if (memchr(s, '/', n))
			strbuf_addstr(out, "PATH");
		else
			normalise_word(out, s, n);
		s += n;
	}
}

void cause_groups_release(struct cause_groups *g)
{
	for (size_t i = 0; i < g->n; i++) {
		free(g->groups[i].key);
		free(g->groups[i].indices);
	}
	free(g->groups);
	memset(g, 0, sizeof(*g));
}

struct keyed {
	char *key;
	size_t index;
	size_t pos; /* in the caller's arrays */
};

static int cmp_keyed(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (c)
		return c;
	return (x->index > y->index) - (x->index < y->index);
}

static int cmp_group(const void *a, const void *b)
{
	const struct cause_group *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return (x->indices[0] > y->indices[0]) - (x->indices[0] < y->indices[0]);
}

void cause_groups_build(struct cause_groups *out, const size_t *indices, const char *const *texts,
                        const bool *resource, size_t n)
{
	struct keyed *k = xcalloc(n ? n : 1, sizeof(*k));
	size_t alloc = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n; i++) {
		struct strbuf sb = STRBUF_INIT;

		cause_normalise(&sb, texts[i] ? texts[i] : "");
		k[i].key = strbuf_detach(&sb, NULL);
		k[i].index = indices[i];
		k[i].pos = i;
	}
	qsort(k, n, sizeof(*k), cmp_keyed);
	for (size_t i = 0; i < n;) {
		struct cause_group *g;
		size_t j = i;

		while (j < n && !strcmp(k[j].key, k[i].key))
			j++;
		ALLOC_GROW(out->groups, out->n + 1, alloc);
		g = &out->groups[out->n++];
		g->key = k[i].key;
		g->text = texts[k[i].pos] ? texts[k[i].pos] : "";
		g->resource = resource && resource[k[i].pos];
		g->n = j - i;
		g->indices = xcalloc(g->n, sizeof(*g->indices));
		for (size_t m = i; m < j; m++) {
			g->indices[m - i] = k[m].index;
			if (m > i)
				free(k[m].key);
		}
		i = j;
	}
	if (out->n)
		qsort(out->groups, out->n, sizeof(*out->groups), cmp_group);
	free(k);
}

void cause_add_indices(struct strbuf *out, const size_t *indices, size_t n, size_t max_items)
{
	size_t items = 0;

	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j + 1 < n && indices[j + 1] == indices[j] + 1)
			j++;
		if (items == max_items) {
			strbuf_addstr(out, ",...");
			return;
		}
		strbuf_addf(out, "%s%zu", items ? "," : "", indices[i]);
		if (j > i)
			strbuf_addf(out, "%s%zu", j == i + 1 ? "," : "-", indices[j]);
		items++;
		i = j + 1;
	}
}

void cause_add_groups(struct strbuf *out, const struct cause_groups *g, const char *indent)
{
	for (size_t i = 0; i < g->n; i++) {
		const struct cause_group *c = &g->groups[i];

		strbuf_addf(out, "%s%zu task%s (", indent, c->n, c->n == 1 ? "" : "s");
		cause_add_indices(out, c->indices, c->n, 6);
		strbuf_addf(out, "): %s\n", c->text);
	}
}

bool cause_groups_same_everywhere(const struct cause_groups *g)
{
	return g->n == 1 && g->groups[0].n >= 2 && !g->groups[0].resource;
}
