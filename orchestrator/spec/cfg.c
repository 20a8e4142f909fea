/*
 * The sweep schema: which keys a sweep file has, what each value may be,
 * and the checks across sections (cases against grid and zip, placeholders
 * against parameters). The format itself is described once, in README.md's
 * "Sweep file reference"; keep the two in step.
 *
 * The YAML is read by yamltree.c into nodes with positions; this file
 * checks that tree and copies it into struct cfg. The first mistake stops
 * the reading.
 */
#include "cfg.h"

#include <assert.h>
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "error.h"
#include "placeholder.h"
#include "sbopt.h"
#include "strbuf.h"
#include "units.h"
#include "yamltree.h"
#include "banned.h"

#define MAX_SEEDS          1000000
#define MAX_NAME_LEN       100
#define DEFAULT_SIGNAL     "USR1"
#define DEFAULT_SIGNAL_SEC 120
#define MAX_PACK           100000

struct loader {
	const char *file; /* for messages */
	struct cfg *cfg;
	char **shown; /* strings made for messages, freed at the end */
	size_t nshown, shown_alloc;
	const struct ytree_node *mem_key, *mem_per_cpu_key;
	const struct ytree_node *time_value, *signal_value, *max_restarts_value;
	const struct ytree_node *pack_value;
	const struct ytree_node *cases; /* checked once grid and zip are known */
	const struct ytree_node *command;
	const struct ytree_node *retry_on_exit_value;
	const struct ytree_node *results_file;
};

static const char *const top_keys[] = {
    "name",    "command",       "seeds",  "grid",      "zip",        "cases",   "slurm",
    "env",     "setup",         "logs",   "template",  "checkpoint", "metrics", "results",
    "retries", "retry_on_exit", "notify", "fail_fast", "pack",
};

static const char *const slurm_keys[] = {
    "partition",     "account",        "qos",    "gres",    "gpus_per_task", "constraint",
    "cpus_per_task", "nodes",          "ntasks", "mem",     "mem_per_cpu",   "time",
    "signal",        "max_concurrent", "extra",  "requeue", "max_restarts",
};

static const char *const checkpoint_keys[] = {"size", "keep"};

static const char *const notify_keys[] = {"mail", "command"};

#define MAX_RETRIES 20
static const char *const results_keys[] = {"file", "log"};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * The sections whose keys are fixed. Keys are checked only through this
 * list (check_section), and `sweep __keys` prints it, which the test of
 * sweep-file(5) reads: a new key or a new section of keys goes here, and
 * its documentation into doc/sweep-file.5.scd.
 */
static const struct key_section {
	const char *name; /* "" for the top level */
	const char *const *keys;
	size_t n;
} key_sections[] = {
    {"", top_keys, ARRAY_SIZE(top_keys)},
    {"slurm", slurm_keys, ARRAY_SIZE(slurm_keys)},
    {"checkpoint", checkpoint_keys, ARRAY_SIZE(checkpoint_keys)},
    {"notify", notify_keys, ARRAY_SIZE(notify_keys)},
    {"results", results_keys, ARRAY_SIZE(results_keys)},
};

#define DEFAULT_MAX_RESTARTS 5

static const char *const signal_names[] = {"USR1", "USR2", "TERM", "INT", "HUP", "QUIT", "ALRM"};

/* ---- messages ---- */

/*
 * The user's text as a message shows it: control bytes escaped, long text
 * cut. Owned by the loader.
 */
static const char *show(struct loader *ld, const char *s)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_add_shown(&sb, s);
	ALLOC_GROW(ld->shown, ld->nshown + 1, ld->shown_alloc);
	ld->shown[ld->nshown] = strbuf_detach(&sb, NULL);
	return ld->shown[ld->nshown++];
}

#define error_at(ld, line, column, ...) ytree_error_at((ld)->file, (line), (column), __VA_ARGS__)
#define AT(ld, node, ...)               error_at((ld), (node)->line, (node)->column, __VA_ARGS__)

/* ---- checks on nodes ---- */

static int expect(struct loader *ld, const struct ytree_node *n, enum ytree_kind kind,
                  const char *path)
{
	static const char *const want[] = {"a scalar", "a list", "a mapping"};

	if (n->kind == kind && !(kind == YTREE_SCALAR && n->null))
		return 0;
	return AT(ld, n, "'%s': expected %s, found %s", path, want[kind], ytree_kind_name(n));
}

/*
 * Repeats in a list, found by sorting so that long lists stay fast: returns
 * the position of the first item (in list order) equal to an earlier one,
 * or n when there is none, and sets *first to that earlier one's position.
 */
struct ranked {
	const char *text; /* or NULL, then num */
	int64_t num;
	size_t pos;
};

static int cmp_value(const struct ranked *a, const struct ranked *b)
{
	if (a->text)
		return strcmp(a->text, b->text);
	return (a->num > b->num) - (a->num < b->num);
}

static int cmp_ranked(const void *va, const void *vb)
{
	const struct ranked *a = va, *b = vb;
	int c = cmp_value(a, b);

	if (c)
		return c;
	return (a->pos > b->pos) - (a->pos < b->pos);
}

static size_t first_repeat(struct ranked *r, size_t n, size_t *first)
{
	size_t i, j, best = n;

	qsort(r, n, sizeof(*r), cmp_ranked);
	/* In each run of equal values, the second is the earliest repeat. */
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && !cmp_value(&r[i], &r[j]); j++)
			;
		if (j - i > 1 && r[i + 1].pos < best) {
			best = r[i + 1].pos;
			*first = r[i].pos;
		}
	}
	return best;
}

static size_t first_repeated_text(const char *const *texts, size_t n, size_t *first)
{
	struct ranked *r = xcalloc(n, sizeof(*r));
	size_t i, ret;

	for (i = 0; i < n; i++) {
		r[i].text = texts[i];
		r[i].pos = i;
	}
	ret = first_repeat(r, n, first);
	free(r);
	return ret;
}

/*
 * Checks the keys of a mapping: no empty key, no key twice, and (when known
 * is not NULL) only known keys. where is "" or " in 'slurm'" and the like.
 */
static int check_keys(struct loader *ld, const struct ytree_node *map, const char *where,
                      const char *const *known, size_t nknown)
{
	const char **texts = xcalloc(map->n / 2 + 1, sizeof(*texts));
	size_t i, j, repeat, first = 0;

	for (i = 0; i < map->n; i += 2)
		texts[i / 2] = map->items[i]->text;
	repeat = 2 * first_repeated_text(texts, map->n / 2, &first);
	free(texts);
	for (i = 0; i < map->n; i += 2) {
		const struct ytree_node *key = map->items[i];

		if (key->null || !*key->text)
			return AT(ld, key, "empty key%s", where);
		if (known) {
			for (j = 0; j < nknown; j++)
				if (!strcmp(known[j], key->text))
					break;
			if (j == nknown) {
				const char *guess = sbopt_suggest(key->text, known, nknown);

				if (guess)
					return AT(ld, key, "unknown key '%s'%s; did you mean '%s'?",
					          show(ld, key->text), where, guess);
				return AT(ld, key, "unknown key '%s'%s", show(ld, key->text),
				          where);
			}
		}
		if (i == repeat)
			return AT(ld, key, "duplicate key '%s'%s (first at line %u)",
			          show(ld, key->text), where, map->items[2 * first]->line);
	}
	return 0;
}

/* check_keys with the keys of one of key_sections ("" for the top level). */
static int check_section(struct loader *ld, const struct ytree_node *map, const char *section)
{
	char *where;
	int ret;

	for (size_t i = 0; i < ARRAY_SIZE(key_sections); i++) {
		const struct key_section *ks = &key_sections[i];

		if (strcmp(ks->name, section))
			continue;
		where = *section ? xstrfmt(" in '%s'", section) : xstrdup("");
		ret = check_keys(ld, map, where, ks->keys, ks->n);
		free(where);
		return ret;
	}
	assert(!"section not in key_sections");
	return SWEEP_ERR;
}

void cfg_print_keys(FILE *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(key_sections); i++)
		for (size_t k = 0; k < key_sections[i].n; k++)
			fprintf(out, "%s%s%s\n", key_sections[i].name,
			        *key_sections[i].name ? "." : "", key_sections[i].keys[k]);
}

static int check_param_name(struct loader *ld, const struct ytree_node *key, const char *where)
{
	if (!placeholder_is_name(key->text, strlen(key->text)))
		return AT(ld, key,
		          "invalid parameter name '%s'%s: use letters, digits and '_', not "
		          "starting with a digit",
		          show(ld, key->text), where);
	if (!strcmp(key->text, "seed") || !strcmp(key->text, "index"))
		return AT(ld, key,
		          "'%s'%s: 'seed' and 'index' are built-in placeholders, not "
		          "parameter names",
		          key->text, where);
	return 0;
}

/* Decimal integer, optional '-', int64 range. */
static int parse_int64(int64_t *out, const char *s)
{
	int neg = *s == '-';
	uint64_t v = 0, limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	const char *p = s + neg;

	if (!*p)
		return -1;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		if (v > (limit - (uint64_t)(*p - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (neg)
		*out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
	else
		*out = (int64_t)v;
	return 0;
}

static int get_string(struct loader *ld, char **out, const struct ytree_node *n, const char *path)
{
	if (expect(ld, n, YTREE_SCALAR, path))
		return SWEEP_ERR;
	free(*out);
	*out = xstrdup(n->text);
	return 0;
}

static int get_positive(struct loader *ld, unsigned *out, const struct ytree_node *n,
                        const char *path)
{
	int64_t v;

	if (expect(ld, n, YTREE_SCALAR, path))
		return SWEEP_ERR;
	if (parse_int64(&v, n->text) || v < 1 || v > INT32_MAX)
		return AT(ld, n, "'%s': expected a positive integer, found '%s'", path,
		          show(ld, n->text));
	*out = (unsigned)v;
	return 0;
}

/* YAML 1.2 core booleans: true/false in any of their three spellings. */
static int get_bool(struct loader *ld, bool *out, const struct ytree_node *n, const char *path)
{
	static const char *const yes[] = {"true", "True", "TRUE"}, *const no[] = {"false", "False",
	                                                                          "FALSE"};

	if (expect(ld, n, YTREE_SCALAR, path))
		return SWEEP_ERR;
	for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
		if (!strcmp(n->text, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcmp(n->text, no[i])) {
			*out = false;
			return 0;
		}
	}
	return AT(ld, n, "'%s': expected true or false, found '%s'", path, show(ld, n->text));
}

/* A scalar that goes to an #SBATCH line. */
static int get_sbatch_value(struct loader *ld, char **out, const struct ytree_node *n,
                            const char *path, int allow_percent)
{
	const char *why;

	if (expect(ld, n, YTREE_SCALAR, path))
		return SWEEP_ERR;
	if (sbopt_check_value(n->text, allow_percent, &why))
		return AT(ld, n, "'%s': bad value '%s': %s", path, show(ld, n->text), why);
	free(*out);
	*out = xstrdup(n->text);
	return 0;
}

/* ---- the sections ---- */

static int read_name(struct loader *ld, const struct ytree_node *n)
{
	const char *s;

	if (expect(ld, n, YTREE_SCALAR, "name"))
		return SWEEP_ERR;
	s = n->text;
	if (!*s ||
	    !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') ||
	      (s[0] >= '0' && s[0] <= '9') || s[0] == '_') ||
	    strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
	        strlen(s))
		return AT(ld, n,
		          "invalid name '%s': use letters, digits, '.', '_' and '-', starting "
		          "with a letter, digit or '_'",
		          show(ld, s));
	if (strlen(s) > MAX_NAME_LEN)
		return AT(ld, n, "'name' is longer than %d characters", MAX_NAME_LEN);
	ld->cfg->name = xstrdup(s);
	return 0;
}

static int read_command(struct loader *ld, const struct ytree_node *n)
{
	if (expect(ld, n, YTREE_SCALAR, "command"))
		return SWEEP_ERR;
	if (strspn(n->text, " \t\r\n") == strlen(n->text))
		return AT(ld, n, "'command' is empty");
	ld->cfg->command = xstrdup(n->text);
	ld->command = n;
	return 0;
}

static int read_seeds(struct loader *ld, const struct ytree_node *n)
{
	struct cfg *cfg = ld->cfg;
	struct ranked *ranked;
	int64_t v;
	size_t i, first = 0;

	if (n->kind == YTREE_SCALAR && !n->null) {
		if (parse_int64(&v, n->text) || v < 1 || v > MAX_SEEDS)
			return AT(ld, n,
			          "'seeds': expected a count from 1 to %d or a list of integers, "
			          "found '%s'",
			          MAX_SEEDS, show(ld, n->text));
		cfg->nseeds = (size_t)v;
		cfg->seeds = xcalloc(cfg->nseeds, sizeof(*cfg->seeds));
		for (i = 0; i < cfg->nseeds; i++)
			cfg->seeds[i] = (int64_t)i;
		return 0;
	}
	if (n->kind != YTREE_LIST)
		return AT(ld, n, "'seeds': expected a count or a list of integers, found %s",
		          ytree_kind_name(n));
	if (!n->n)
		return AT(ld, n, "'seeds' is an empty list");
	if (n->n > MAX_SEEDS)
		return AT(ld, n, "'seeds' lists more than %d seeds", MAX_SEEDS);
	cfg->seeds = xcalloc(n->n, sizeof(*cfg->seeds));
	for (i = 0; i < n->n; i++) {
		const struct ytree_node *item = n->items[i];

		if (item->kind != YTREE_SCALAR || item->null)
			return AT(ld, item, "'seeds': expected an integer, found %s",
			          ytree_kind_name(item));
		if (parse_int64(&v, item->text))
			return AT(ld, item, "'seeds': expected an integer, found '%s'",
			          show(ld, item->text));
		cfg->seeds[cfg->nseeds++] = v;
	}
	ranked = xcalloc(cfg->nseeds, sizeof(*ranked));
	for (i = 0; i < cfg->nseeds; i++) {
		ranked[i].num = cfg->seeds[i];
		ranked[i].pos = i;
	}
	i = first_repeat(ranked, cfg->nseeds, &first);
	free(ranked);
	if (i < cfg->nseeds)
		return AT(ld, n->items[i], "'seeds': seed %s is listed twice (first at line %u)",
		          n->items[i]->text, n->items[first]->line);
	return 0;
}

/* grid: or zip: (section is the key, for messages). */
static int read_params(struct loader *ld, const struct ytree_node *map, const char *section,
                       struct cfg_param **out, size_t *nout)
{
	char where[32];
	size_t i, j, alloc = 0;

	if (expect(ld, map, YTREE_MAP, section))
		return SWEEP_ERR;
	if (!map->n)
		return AT(ld, map, "'%s' is empty: give it parameters or leave it out", section);
	snprintf(where, sizeof(where), " in '%s'", section);
	if (check_keys(ld, map, where, NULL, 0))
		return SWEEP_ERR;
	for (i = 0; i < map->n; i += 2) {
		const struct ytree_node *key = map->items[i], *list = map->items[i + 1];
		struct cfg_param *p;
		char *path;
		int bad;

		if (check_param_name(ld, key, where))
			return SWEEP_ERR;
		path = xstrfmt("%s.%s", section, key->text);
		bad = expect(ld, list, YTREE_LIST, path);
		free(path);
		if (bad)
			return SWEEP_ERR;
		if (!list->n)
			return AT(ld, list, "'%s.%s' is an empty list", section, key->text);

		ALLOC_GROW(*out, *nout + 1, alloc);
		p = &(*out)[(*nout)++];
		memset(p, 0, sizeof(*p));
		p->name = xstrdup(key->text);
		p->line = key->line;
		p->column = key->column;
		p->values = xcalloc(list->n, sizeof(*p->values));
		for (j = 0; j < list->n; j++) {
			const struct ytree_node *item = list->items[j];

			if (item->kind != YTREE_SCALAR)
				return AT(ld, item,
				          "'%s.%s': expected a scalar in the list, found %s",
				          section, key->text, ytree_kind_name(item));
			if (item->null)
				return AT(ld, item,
				          "'%s.%s': empty value in the list (write '' for empty "
				          "text)",
				          section, key->text);
			p->values[p->nvalues++] = xstrdup(item->text);
		}
		/* A value twice in the grid would run the same settings twice. */
		if (!strcmp(section, "grid")) {
			size_t first = 0;

			j = first_repeated_text((const char *const *)p->values, p->nvalues, &first);
			if (j < p->nvalues)
				return AT(ld, list->items[j],
				          "'grid.%s' lists '%s' twice (first at line %u)",
				          key->text, show(ld, p->values[j]),
				          list->items[first]->line);
		}
	}
	return 0;
}

static int read_zip(struct loader *ld, const struct ytree_node *map)
{
	struct cfg *cfg = ld->cfg;
	size_t i;

	if (read_params(ld, map, "zip", &cfg->zip, &cfg->nzip))
		return SWEEP_ERR;
	for (i = 1; i < cfg->nzip; i++)
		if (cfg->zip[i].nvalues != cfg->zip[0].nvalues)
			return error_at(ld, cfg->zip[i].line, cfg->zip[i].column,
			                "'zip' lists must have the same length: '%s' has %zu "
			                "values, '%s' has %zu",
			                cfg->zip[i].name, cfg->zip[i].nvalues, cfg->zip[0].name,
			                cfg->zip[0].nvalues);
	return 0;
}

static int read_cases(struct loader *ld, const struct ytree_node *list)
{
	struct cfg *cfg = ld->cfg;
	size_t i, j;

	if (expect(ld, list, YTREE_LIST, "cases"))
		return SWEEP_ERR;
	if (!list->n)
		return AT(ld, list, "'cases' is an empty list");
	cfg->cases = xcalloc(list->n, sizeof(*cfg->cases));
	for (i = 0; i < list->n; i++) {
		const struct ytree_node *map = list->items[i];
		struct cfg_case *c = &cfg->cases[cfg->ncases++];
		char where[48];

		c->line = map->line;
		c->column = map->column;
		snprintf(where, sizeof(where), " in case %zu", i + 1);
		if (map->kind != YTREE_MAP)
			return AT(ld, map, "case %zu: expected a mapping, found %s", i + 1,
			          ytree_kind_name(map));
		if (!map->n)
			return AT(ld, map, "case %zu is empty", i + 1);
		if (check_keys(ld, map, where, NULL, 0))
			return SWEEP_ERR;
		c->names = xcalloc(map->n / 2, sizeof(*c->names));
		c->values = xcalloc(map->n / 2, sizeof(*c->values));
		for (j = 0; j < map->n; j += 2) {
			const struct ytree_node *key = map->items[j], *value = map->items[j + 1];

			if (check_param_name(ld, key, where))
				return SWEEP_ERR;
			if (value->kind != YTREE_SCALAR)
				return AT(ld, value,
				          "'%s' in case %zu: expected a scalar, found %s",
				          key->text, i + 1, ytree_kind_name(value));
			if (value->null)
				return AT(ld, value,
				          "'%s' in case %zu: empty value (write '' for empty text)",
				          key->text, i + 1);
			c->names[c->n] = xstrdup(key->text);
			c->values[c->n++] = xstrdup(value->text);
		}
	}
	ld->cases = list;
	return 0;
}

static int read_signal(struct loader *ld, const struct ytree_node *n)
{
	struct cfg_slurm *s = &ld->cfg->slurm;
	const char *text, *at;
	char *name = NULL;
	size_t len, i;
	int64_t sec = DEFAULT_SIGNAL_SEC;
	int ret = SWEEP_ERR;

	if (expect(ld, n, YTREE_SCALAR, "slurm.signal"))
		return SWEEP_ERR;
	text = n->text;
	if (strchr(text, ':'))
		return AT(ld, n,
		          "'slurm.signal': write '%s' without 'B:' or 'R:' (sweep decides how "
		          "the signal is sent)",
		          show(ld, text));
	at = strchr(text, '@');
	len = at ? (size_t)(at - text) : strlen(text);
	if (len > 3 && !strncasecmp(text, "SIG", 3)) {
		text += 3;
		len -= 3;
	}
	name = xstrndup(text, len);
	for (i = 0; name[i]; i++)
		if (name[i] >= 'a' && name[i] <= 'z')
			name[i] = (char)(name[i] - 'a' + 'A');
	for (i = 0; i < ARRAY_SIZE(signal_names); i++)
		if (!strcmp(signal_names[i], name))
			break;
	if (i == ARRAY_SIZE(signal_names)) {
		AT(ld, n,
		   "'slurm.signal': unknown signal '%s': use USR1, USR2, TERM, INT, HUP, QUIT or "
		   "ALRM, optionally with @SECONDS",
		   show(ld, name));
		goto out;
	}
	if (at && (parse_int64(&sec, at + 1) || at[1] == '-' || sec > 65535)) {
		AT(ld, n,
		   "'slurm.signal': bad seconds in '%s': expected a whole number from 0 to "
		   "65535",
		   show(ld, n->text));
		goto out;
	}
	free(s->signal);
	s->signal = name;
	name = NULL;
	s->signal_seconds = (unsigned)sec;
	s->signal_explicit = true;
	ret = 0;
out:
	free(name);
	return ret;
}

static int read_extra(struct loader *ld, const struct ytree_node *list)
{
	struct cfg_slurm *s = &ld->cfg->slurm;
	size_t i, j;

	if (expect(ld, list, YTREE_LIST, "slurm.extra"))
		return SWEEP_ERR;
	s->extra = xcalloc(list->n, sizeof(*s->extra));
	for (i = 0; i < list->n; i++) {
		const struct ytree_node *item = list->items[i];
		char *why;
		size_t len;

		if (item->kind != YTREE_SCALAR || item->null)
			return AT(ld, item,
			          "'slurm.extra': expected a scalar in the list, found %s",
			          ytree_kind_name(item));
		if (sbopt_check_extra(item->text, &why)) {
			AT(ld, item, "'slurm.extra': %s", why);
			free(why);
			return SWEEP_ERR;
		}
		len = strcspn(item->text, "=");
		for (j = 0; j < i; j++)
			if (strcspn(s->extra[j], "=") == len &&
			    !strncmp(s->extra[j], item->text, len))
				return AT(ld, item,
				          "'slurm.extra': '%.*s' is given twice (first at line %u)",
				          (int)len, item->text, list->items[j]->line);
		s->extra[s->nextra++] = xstrdup(item->text);
	}
	return 0;
}

static int read_slurm(struct loader *ld, const struct ytree_node *map)
{
	struct cfg_slurm *s = &ld->cfg->slurm;
	size_t i;

	if (expect(ld, map, YTREE_MAP, "slurm"))
		return SWEEP_ERR;
	if (check_section(ld, map, "slurm"))
		return SWEEP_ERR;
	for (i = 0; i < map->n; i += 2) {
		const struct ytree_node *key = map->items[i], *v = map->items[i + 1];
		const char *k = key->text, *why;
		char *path = xstrfmt("slurm.%s", k);
		uint64_t seconds;
		bool unlimited;
		int ret = 0;

		if (!strcmp(k, "partition"))
			ret = get_sbatch_value(ld, &s->partition, v, path, 1);
		else if (!strcmp(k, "account"))
			ret = get_sbatch_value(ld, &s->account, v, path, 1);
		else if (!strcmp(k, "qos"))
			ret = get_sbatch_value(ld, &s->qos, v, path, 1);
		else if (!strcmp(k, "gres"))
			ret = get_sbatch_value(ld, &s->gres, v, path, 1);
		else if (!strcmp(k, "gpus_per_task"))
			ret = get_sbatch_value(ld, &s->gpus_per_task, v, path, 1);
		else if (!strcmp(k, "constraint"))
			ret = get_sbatch_value(ld, &s->constraint, v, path, 1);
		else if (!strcmp(k, "cpus_per_task"))
			ret = get_positive(ld, &s->cpus_per_task, v, path);
		else if (!strcmp(k, "nodes"))
			ret = get_positive(ld, &s->nodes, v, path);
		else if (!strcmp(k, "ntasks"))
			ret = get_positive(ld, &s->ntasks, v, path);
		else if (!strcmp(k, "max_concurrent"))
			ret = get_positive(ld, &s->max_concurrent, v, path);
		else if (!strcmp(k, "mem") || !strcmp(k, "mem_per_cpu")) {
			int per_cpu = !strcmp(k, "mem_per_cpu");

			ret = expect(ld, v, YTREE_SCALAR, path);
			if (!ret && units_parse_mem(per_cpu ? &s->mem_per_cpu_mb : &s->mem_mb,
			                            v->text, &why))
				ret = AT(ld, v, "'%s': bad memory size '%s': %s", path,
				         show(ld, v->text), why);
			if (per_cpu)
				ld->mem_per_cpu_key = key;
			else
				ld->mem_key = key;
		} else if (!strcmp(k, "time")) {
			ret = expect(ld, v, YTREE_SCALAR, path);
			if (!ret && units_parse_time(&seconds, &unlimited, v->text, &why))
				ret = AT(ld, v, "'slurm.time': bad time '%s': %s",
				         show(ld, v->text), why);
			if (!ret) {
				ld->time_value = v;
				s->time_unlimited = unlimited;
				s->time_min = unlimited ? 0 : (uint32_t)((seconds + 59) / 60);
			}
		} else if (!strcmp(k, "signal")) {
			ld->signal_value = v;
			ret = read_signal(ld, v);
		} else if (!strcmp(k, "extra"))
			ret = read_extra(ld, v);
		else if (!strcmp(k, "requeue"))
			ret = get_bool(ld, &s->requeue, v, path);
		else if (!strcmp(k, "max_restarts")) {
			ld->max_restarts_value = v;
			ret = get_positive(ld, &s->max_restarts, v, path);
		}
		free(path);
		if (ret)
			return SWEEP_ERR;
	}
	if (ld->mem_key && ld->mem_per_cpu_key) {
		const struct ytree_node *later =
		    ld->mem_key->line > ld->mem_per_cpu_key->line ||
		            (ld->mem_key->line == ld->mem_per_cpu_key->line &&
		             ld->mem_key->column > ld->mem_per_cpu_key->column)
		        ? ld->mem_key
		        : ld->mem_per_cpu_key;

		return AT(ld, later, "'slurm.mem' and 'slurm.mem_per_cpu' cannot both be given");
	}
	return 0;
}

/*
 * The warning signal must come after the start: Slurm sends it as soon as
 * the time left is below the seconds asked for, and before the command has
 * set up its handler the signal would end it.
 */
static int check_signal_time(struct loader *ld)
{
	const struct cfg_slurm *s = &ld->cfg->slurm;
	const struct ytree_node *at = ld->signal_value ? ld->signal_value : ld->time_value;

	if (!s->signal || !ld->time_value || s->time_unlimited || !s->time_min)
		return 0;
	if ((uint64_t)s->signal_seconds < (uint64_t)s->time_min * 60)
		return 0;
	return AT(ld, at,
	          "the warning signal (%s@%u) would be sent at the start: 'slurm.time' is only "
	          "%u minute%s; give 'slurm.signal' fewer seconds (e.g. %s@%u) or more time",
	          s->signal, s->signal_seconds, (unsigned)s->time_min, s->time_min == 1 ? "" : "s",
	          s->signal, s->time_min * 60 / 4);
}

/*
 * The warning signal is used only when asked for: slurm.signal, or requeue
 * and checkpoints, which need it (default USR1@120). A program without a
 * handler dies of the signal, so it is never sent by default. A default
 * that does not fit a short time limit is scaled down, with a note.
 */
static void default_signal(struct cfg *cfg)
{
	struct cfg_slurm *s = &cfg->slurm;
	unsigned limit_s;

	if (s->signal || (!s->requeue && !cfg->checkpoint.size_mb))
		return;
	s->signal = xstrdup(DEFAULT_SIGNAL);
	s->signal_seconds = DEFAULT_SIGNAL_SEC;
	if (s->time_unlimited || !s->time_min || (uint64_t)s->time_min * 60 > DEFAULT_SIGNAL_SEC)
		return;
	limit_s = s->time_min * 60;
	s->signal_seconds = limit_s / 4;
	cfg->signal_note =
	    xstrfmt("the default warning signal %s@%u does not fit 'slurm.time' of %u minute%s: "
	            "using %s@%u (write 'slurm.signal' to choose)",
	            DEFAULT_SIGNAL, DEFAULT_SIGNAL_SEC, (unsigned)s->time_min,
	            s->time_min == 1 ? "" : "s", DEFAULT_SIGNAL, s->signal_seconds);
}

/*
 * Variables bash keeps for itself: read-only ones (assigning them kills the
 * script), and those that change how the script itself runs.
 */
static bool is_bash_variable(const char *name)
{
	static const char *const names[] = {
	    "BASH",       "BASHOPTS",      "BASHPID",      "CDPATH",     "DIRSTACK",
	    "ENV",        "EPOCHREALTIME", "EPOCHSECONDS", "EUID",       "FUNCNAME",
	    "GLOBIGNORE", "GROUPS",        "HISTCMD",      "IFS",        "LINENO",
	    "OLDPWD",     "OPTARG",        "OPTIND",       "PIPESTATUS", "POSIXLY_CORRECT",
	    "PPID",       "PS4",           "PWD",          "RANDOM",     "SECONDS",
	    "SHELLOPTS",  "SHLVL",         "SRANDOM",      "UID",
	};

	if (!strncmp(name, "BASH_", 5))
		return true;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

static int read_env(struct loader *ld, const struct ytree_node *map)
{
	struct cfg *cfg = ld->cfg;
	size_t i;

	if (expect(ld, map, YTREE_MAP, "env") || check_keys(ld, map, " in 'env'", NULL, 0))
		return SWEEP_ERR;
	cfg->env = xcalloc(map->n / 2 + 1, sizeof(*cfg->env));
	for (i = 0; i < map->n; i += 2) {
		const struct ytree_node *key = map->items[i], *v = map->items[i + 1];
		struct cfg_env *e;

		if (!placeholder_is_name(key->text, strlen(key->text)))
			return AT(
			    ld, key,
			    "invalid variable name '%s' in 'env': use letters, digits and '_', "
			    "not starting with a digit",
			    show(ld, key->text));
		/* The script's own variables are sweep_* in lower case (sweep_signalled). */
		if (!strncasecmp(key->text, "SLURM_", 6) || !strncasecmp(key->text, "SWEEP_", 6))
			return AT(
			    ld, key,
			    "variable '%s' in 'env': names starting with SLURM_ or SWEEP_ (in any "
			    "case) are reserved",
			    key->text);
		if (is_bash_variable(key->text))
			return AT(ld, key,
			          "variable '%s' in 'env': bash sets it itself (it is read-only or "
			          "changes how the script runs)",
			          key->text);
		if (v->kind != YTREE_SCALAR)
			return AT(ld, v, "'env.%s': expected a scalar, found %s", key->text,
			          ytree_kind_name(v));
		if (v->null)
			return AT(ld, v, "'env.%s': empty value (write '' for empty text)",
			          key->text);
		e = &cfg->env[cfg->nenv++];
		e->name = xstrdup(key->text);
		e->value = xstrdup(v->text);
	}
	return 0;
}

static int read_checkpoint(struct loader *ld, const struct ytree_node *map)
{
	struct cfg_checkpoint *c = &ld->cfg->checkpoint;
	const char *why;

	if (expect(ld, map, YTREE_MAP, "checkpoint") || check_section(ld, map, "checkpoint"))
		return SWEEP_ERR;
	for (size_t i = 0; i < map->n; i += 2) {
		const struct ytree_node *key = map->items[i], *v = map->items[i + 1];

		if (!strcmp(key->text, "keep")) {
			if (get_positive(ld, &c->keep, v, "checkpoint.keep"))
				return SWEEP_ERR;
		} else {
			if (expect(ld, v, YTREE_SCALAR, "checkpoint.size"))
				return SWEEP_ERR;
			if (units_parse_mem(&c->size_mb, v->text, &why))
				return AT(ld, v, "'checkpoint.size': bad size '%s': %s",
				          show(ld, v->text), why);
		}
	}
	if (c->keep && !c->size_mb)
		return AT(ld, map, "'checkpoint' gives 'keep' without 'size'");
	if (!c->keep)
		c->keep = 1;
	return 0;
}

static int read_metrics(struct loader *ld, const struct ytree_node *map)
{
	struct cfg *cfg = ld->cfg;

	if (expect(ld, map, YTREE_MAP, "metrics") || check_keys(ld, map, " in 'metrics'", NULL, 0))
		return SWEEP_ERR;
	cfg->metrics = xcalloc(map->n / 2 + 1, sizeof(*cfg->metrics));
	for (size_t i = 0; i < map->n; i += 2) {
		const struct ytree_node *key = map->items[i], *v = map->items[i + 1];
		struct cfg_metric *m;

		if (v->kind != YTREE_SCALAR)
			return AT(ld, v, "'metrics.%s': expected max or min, found %s",
			          show(ld, key->text), ytree_kind_name(v));
		if (strcmp(v->text, "max") && strcmp(v->text, "min"))
			return AT(ld, v, "'metrics.%s': expected max or min, found '%s'",
			          show(ld, key->text), show(ld, v->text));
		m = &cfg->metrics[cfg->nmetrics++];
		m->name = xstrdup(key->text);
		m->maximize = !strcmp(v->text, "max");
		m->line = key->line;
		m->column = key->column;
	}
	return 0;
}

/* A mail address goes to sbatch's --mail-user on a command line: one word. */
static int read_mail(struct loader *ld, const struct ytree_node *v)
{
	const char *m;

	if (get_string(ld, &ld->cfg->notify.mail, v, "notify.mail"))
		return SWEEP_ERR;
	m = ld->cfg->notify.mail;
	if (!*m || *m == '-' || strlen(m) > 256)
		return AT(ld, v, "'notify.mail': expected a mail address, found '%s'", show(ld, m));
	for (const char *p = m; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == '\'' || *p == '"' || *p == '\\' || *p == 0x7f)
			return AT(ld, v,
			          "'notify.mail': '%s' is not a mail address (no spaces, quotes, "
			          "backslashes or control characters)",
			          show(ld, m));
	return 0;
}

static int read_notify(struct loader *ld, const struct ytree_node *map)
{
	struct cfg_notify *n = &ld->cfg->notify;

	if (expect(ld, map, YTREE_MAP, "notify") || check_section(ld, map, "notify"))
		return SWEEP_ERR;
	for (size_t i = 0; i < map->n; i += 2) {
		const struct ytree_node *key = map->items[i], *v = map->items[i + 1];

		if (!strcmp(key->text, "mail")) {
			if (read_mail(ld, v))
				return SWEEP_ERR;
		} else {
			if (get_string(ld, &n->command, v, "notify.command"))
				return SWEEP_ERR;
			if (!n->command[strspn(n->command, " \t\r\n")])
				return AT(ld, v, "'notify.command' is empty");
		}
	}
	if (!n->mail && !n->command)
		return AT(ld, map, "'notify' needs 'mail', 'command' or both");
	return 0;
}

const char *cfg_results_format_name(enum cfg_results_format f)
{
	switch (f) {
	case CFG_RESULTS_JSON:
		return "JSON";
	case CFG_RESULTS_JSONL:
		return "JSON Lines";
	case CFG_RESULTS_CSV:
		return "CSV";
	}
	return "?";
}

int cfg_results_format_of(enum cfg_results_format *out, const char *file)
{
	static const struct {
		const char *ext;
		enum cfg_results_format format;
	} exts[] = {
	    {".json", CFG_RESULTS_JSON},
	    {".jsonl", CFG_RESULTS_JSONL},
	    {".ndjson", CFG_RESULTS_JSONL},
	    {".csv", CFG_RESULTS_CSV},
	};
	size_t len = strlen(file);

	if (!strcmp(file, CFG_SWEEP_RESULT)) {
		*out = CFG_RESULTS_JSON;
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(exts); i++) {
		size_t n = strlen(exts[i].ext);

		if (len > n && !strcasecmp(file + len - n, exts[i].ext)) {
			*out = exts[i].format;
			return 0;
		}
	}
	return -1;
}

/* Whether an ERE holds Perl's \d or \D, which POSIX reads as a plain letter. */
static bool perl_digit(const char *re)
{
	for (const char *p = re; *p; p++) {
		if (*p != '\\' || !p[1])
			continue;
		p++;
		if (*p == 'd' || *p == 'D')
			return true;
	}
	return false;
}

static int read_log_metrics(struct loader *ld, const struct ytree_node *map)
{
	struct cfg_results *r = &ld->cfg->results;

	if (expect(ld, map, YTREE_MAP, "results.log") ||
	    check_keys(ld, map, " in 'results.log'", NULL, 0))
		return SWEEP_ERR;
	if (!map->n)
		return AT(ld, map, "'results.log' names no metric");
	r->log = xcalloc(map->n / 2, sizeof(*r->log));
	for (size_t i = 0; i < map->n; i += 2) {
		const struct ytree_node *key = map->items[i], *v = map->items[i + 1];
		char *path = xstrfmt("results.log.%s", key->text);
		char msg[256];
		regex_t re;
		int rc;

		if (expect(ld, v, YTREE_SCALAR, path)) {
			free(path);
			return SWEEP_ERR;
		}
		free(path);
		if (!*key->text)
			return AT(ld, key, "'results.log': a metric needs a name");
		if (perl_digit(v->text))
			return AT(ld, v,
			          "'results.log.%s': '\\d' in '%s' is not POSIX extended syntax "
			          "(it would match a 'd'): write [0-9]",
			          show(ld, key->text), show(ld, v->text));
		rc = regcomp(&re, v->text, REG_EXTENDED);
		if (rc) {
			regerror(rc, &re, msg, sizeof(msg));
			if (msg[0] >= 'A' && msg[0] <= 'Z')
				msg[0] = (char)(msg[0] - 'A' + 'a');
			return AT(ld, v,
			          "'results.log.%s': invalid regular expression '%s': %s (POSIX "
			          "extended syntax)",
			          show(ld, key->text), show(ld, v->text), msg);
		}
		if (re.re_nsub < 1) {
			regfree(&re);
			return AT(ld, v,
			          "'results.log.%s': the pattern '%s' has no group: put the number "
			          "in parentheses, e.g. 'loss: ([0-9.eE+-]+)'",
			          show(ld, key->text), show(ld, v->text));
		}
		regfree(&re);
		r->log[r->nlog].name = xstrdup(key->text);
		r->log[r->nlog++].pattern = xstrdup(v->text);
	}
	return 0;
}

static int read_results(struct loader *ld, const struct ytree_node *map)
{
	struct cfg_results *r = &ld->cfg->results;

	if (expect(ld, map, YTREE_MAP, "results") || check_section(ld, map, "results"))
		return SWEEP_ERR;
	r->given = true;
	for (size_t i = 0; i < map->n; i += 2) {
		const struct ytree_node *key = map->items[i], *v = map->items[i + 1];

		if (!strcmp(key->text, "log")) {
			if (read_log_metrics(ld, v))
				return SWEEP_ERR;
			continue;
		}
		if (get_string(ld, &r->file, v, "results.file"))
			return SWEEP_ERR;
		if (!*r->file)
			return AT(ld, v, "'results.file' is empty");
		if (cfg_results_format_of(&r->format, r->file))
			return AT(ld, v,
			          "'results.file': cannot tell the format of '%s' from its name: "
			          "end it in .json (an object), .jsonl or .ndjson (JSON Lines: the "
			          "last line) or .csv (a header, then the last row)",
			          show(ld, r->file));
		ld->results_file = v;
	}
	if (!r->file && !r->nlog)
		return AT(ld, map, "'results' needs 'file', 'log' or both");
	return 0;
}

static int read_top(struct loader *ld, const struct ytree_node *key, const struct ytree_node *v)
{
	struct cfg *cfg = ld->cfg;
	const char *k = key->text;

	if (!strcmp(k, "name"))
		return read_name(ld, v);
	if (!strcmp(k, "command"))
		return read_command(ld, v);
	if (!strcmp(k, "seeds"))
		return read_seeds(ld, v);
	if (!strcmp(k, "grid"))
		return read_params(ld, v, "grid", &cfg->grid, &cfg->ngrid);
	if (!strcmp(k, "zip"))
		return read_zip(ld, v);
	if (!strcmp(k, "cases"))
		return read_cases(ld, v);
	if (!strcmp(k, "slurm"))
		return read_slurm(ld, v);
	if (!strcmp(k, "env"))
		return read_env(ld, v);
	if (!strcmp(k, "setup"))
		return get_string(ld, &cfg->setup, v, "setup");
	if (!strcmp(k, "logs"))
		return get_sbatch_value(ld, &cfg->logs, v, "logs", 0);
	if (!strcmp(k, "checkpoint"))
		return read_checkpoint(ld, v);
	if (!strcmp(k, "metrics"))
		return read_metrics(ld, v);
	if (!strcmp(k, "pack")) {
		ld->pack_value = v;
		if (get_positive(ld, &cfg->pack, v, "pack"))
			return SWEEP_ERR;
		if (cfg->pack > MAX_PACK)
			return AT(ld, v, "'pack': at most %d tasks per array task, found '%s'",
			          MAX_PACK, show(ld, v->text));
		return 0;
	}
	if (!strcmp(k, "retries")) {
		if (get_positive(ld, &cfg->retries, v, "retries"))
			return SWEEP_ERR;
		if (cfg->retries > MAX_RETRIES)
			return AT(ld, v, "'retries': at most %d rounds, found %u", MAX_RETRIES,
			          cfg->retries);
		return 0;
	}
	if (!strcmp(k, "retry_on_exit")) {
		ld->retry_on_exit_value = v;
		return get_bool(ld, &cfg->retry_on_exit, v, "retry_on_exit");
	}
	if (!strcmp(k, "notify"))
		return read_notify(ld, v);
	if (!strcmp(k, "fail_fast"))
		return get_positive(ld, &cfg->fail_fast, v, "fail_fast");
	if (!strcmp(k, "results"))
		return read_results(ld, v);
	if (!strcmp(k, "template")) {
		if (get_string(ld, &cfg->template_path, v, "template"))
			return SWEEP_ERR;
		if (!*cfg->template_path)
			return AT(ld, v, "'template' is empty");
		return 0;
	}
	return 0;
}

/* ---- checks across sections ---- */

static const struct cfg_param *find_param(const struct cfg_param *ps, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(ps[i].name, name))
			return &ps[i];
	return NULL;
}

static int case_has(const struct cfg_case *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->names[i], name))
			return 1;
	return 0;
}

/* The parameter names: grid and zip keys, or the first case's keys. */
static void collect_params(const struct cfg *cfg, const char ***out, size_t *n)
{
	size_t i;

	*n = 0;
	*out = xcalloc(cfg->ngrid + cfg->nzip + (cfg->ncases ? cfg->cases[0].n : 0) + 2,
	               sizeof(**out));
	for (i = 0; i < cfg->ngrid; i++)
		(*out)[(*n)++] = cfg->grid[i].name;
	for (i = 0; i < cfg->nzip; i++)
		(*out)[(*n)++] = cfg->zip[i].name;
	if (!cfg->ngrid && !cfg->nzip && cfg->ncases)
		for (i = 0; i < cfg->cases[0].n; i++)
			(*out)[(*n)++] = cfg->cases[0].names[i];
}

static int check_cases(struct loader *ld, const char **params, size_t nparams)
{
	const struct cfg *cfg = ld->cfg;
	int from_grid = cfg->ngrid || cfg->nzip;
	size_t i, j;

	for (i = 0; i < cfg->ncases; i++) {
		const struct cfg_case *c = &cfg->cases[i];
		const struct ytree_node *map = ld->cases->items[i];

		for (j = 0; j < c->n; j++) {
			const char *guess;
			size_t k;

			for (k = 0; k < nparams; k++)
				if (!strcmp(params[k], c->names[j]))
					break;
			if (k < nparams)
				continue;
			guess = sbopt_suggest(c->names[j], params, nparams);
			if (from_grid)
				return AT(ld, map->items[2 * j],
				          "case %zu sets '%s', which is not a grid or zip "
				          "parameter%s%s%s",
				          i + 1, c->names[j], guess ? "; did you mean '" : "",
				          guess ? guess : "", guess ? "'?" : "");
			return AT(ld, map->items[2 * j],
			          "case %zu sets '%s', which case 1 does not set%s%s%s", i + 1,
			          c->names[j], guess ? "; did you mean '" : "", guess ? guess : "",
			          guess ? "'?" : "");
		}
		for (j = 0; j < nparams; j++) {
			if (case_has(c, params[j]))
				continue;
			if (from_grid)
				return AT(ld, map,
				          "case %zu does not set '%s' (each case sets every grid "
				          "and zip parameter)",
				          i + 1, params[j]);
			return AT(ld, map, "case %zu does not set '%s', which case 1 sets", i + 1,
			          params[j]);
		}
	}
	return 0;
}

/* The {placeholders} of text (the value of node, key what) against the parameters. */
static int check_placeholders(struct loader *ld, const char *text, const struct ytree_node *node,
                              const char *what, const char **params, size_t nparams)
{
	const char **all = xcalloc(nparams + 2, sizeof(*all));
	struct placeholder_piece pc;
	const char *p;
	size_t n, i;
	int ret = 0;

	for (i = 0; i < nparams; i++)
		all[i] = params[i];
	all[nparams] = "seed";
	all[nparams + 1] = "index";
	for (p = text; !ret && (n = placeholder_next(&pc, p)); p += n) {
		char *name;
		const char *guess;

		if (pc.kind != PLACEHOLDER_NAME)
			continue;
		name = xstrndup(pc.start, pc.len);
		for (i = 0; i < nparams + 2; i++)
			if (!strcmp(all[i], name))
				break;
		if (i == nparams + 2) {
			guess = sbopt_suggest(name, all, nparams + 2);
			if (guess)
				ret = AT(ld, node,
				         "'%s': unknown placeholder '{%s}'; did you mean "
				         "'{%s}'?",
				         what, name, guess);
			else
				ret = AT(ld, node,
				         "'%s': unknown placeholder '{%s}': not a parameter, "
				         "'seed' or 'index' (write {{ and }} for literal braces)",
				         what, name);
		}
		free(name);
	}
	free(all);
	return ret;
}

static int check_whole(struct loader *ld, const struct ytree_node *root)
{
	struct cfg *cfg = ld->cfg;
	const char **params = NULL;
	size_t nparams, i;
	int ret = SWEEP_ERR;

	if (!cfg->name)
		return AT(ld, root, "missing required key 'name'");
	if (!cfg->command)
		return AT(ld, root, "missing required key 'command'");
	for (i = 0; i < cfg->nzip; i++) {
		const struct cfg_param *g = find_param(cfg->grid, cfg->ngrid, cfg->zip[i].name);

		if (g)
			return error_at(ld, cfg->zip[i].line, cfg->zip[i].column,
			                "parameter '%s' is defined twice: in 'grid' (line %u) and "
			                "in 'zip'",
			                g->name, g->line);
	}
	collect_params(cfg, &params, &nparams);
	if (check_cases(ld, params, nparams) ||
	    check_placeholders(ld, cfg->command, ld->command, "command", params, nparams))
		goto out;
	if (ld->results_file && check_placeholders(ld, cfg->results.file, ld->results_file,
	                                           "results.file", params, nparams))
		goto out;
	ret = 0;
out:
	free(params);
	return ret;
}

/*
 * A packed array task runs its sweep tasks one after another, each as a
 * one-process job step: a requeue would run all of them again, and a
 * multi-process job would start the command once per process.
 */
static int check_pack(struct loader *ld)
{
	const struct cfg *cfg = ld->cfg;

	if (!ld->pack_value || cfg->pack == 1)
		return 0;
	if (cfg->slurm.requeue)
		return AT(
		    ld, ld->pack_value,
		    "'pack' cannot be combined with 'slurm.requeue: true' (a requeue would run "
		    "every task of the pack again); use 'pack: 1' or drop 'requeue'");
	if (cfg->slurm.nodes > 1 || cfg->slurm.ntasks > 1)
		return AT(ld, ld->pack_value,
		          "'pack' runs each task as a one-process job step: it cannot be combined "
		          "with 'slurm.%s' above 1",
		          cfg->slurm.nodes > 1 ? "nodes" : "ntasks");
	return 0;
}

/* ---- the public functions ---- */

void cfg_init(struct cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
}

static void free_params(struct cfg_param *ps, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < ps[i].nvalues; j++)
			free(ps[i].values[j]);
		free(ps[i].values);
		free(ps[i].name);
	}
	free(ps);
}

void cfg_release(struct cfg *cfg)
{
	struct cfg_slurm *s = &cfg->slurm;
	size_t i, j;

	free(cfg->path);
	free(cfg->name);
	free(cfg->command);
	free(cfg->seeds);
	free_params(cfg->grid, cfg->ngrid);
	free_params(cfg->zip, cfg->nzip);
	for (i = 0; i < cfg->ncases; i++) {
		for (j = 0; j < cfg->cases[i].n; j++) {
			free(cfg->cases[i].names[j]);
			free(cfg->cases[i].values[j]);
		}
		free(cfg->cases[i].names);
		free(cfg->cases[i].values);
	}
	free(cfg->cases);
	free(s->partition);
	free(s->account);
	free(s->qos);
	free(s->gres);
	free(s->gpus_per_task);
	free(s->constraint);
	free(s->signal);
	for (i = 0; i < s->nextra; i++)
		free(s->extra[i]);
	free(s->extra);
	for (i = 0; i < cfg->nenv; i++) {
		free(cfg->env[i].name);
		free(cfg->env[i].value);
	}
	free(cfg->env);
	free(cfg->setup);
	free(cfg->logs);
	free(cfg->template_path);
	for (i = 0; i < cfg->nmetrics; i++)
		free(cfg->metrics[i].name);
	free(cfg->metrics);
	free(cfg->notify.mail);
	free(cfg->notify.command);
	free(cfg->results.file);
	for (i = 0; i < cfg->results.nlog; i++) {
		free(cfg->results.log[i].name);
		free(cfg->results.log[i].pattern);
	}
	free(cfg->results.log);
	free(cfg->signal_note);
	cfg_init(cfg);
}

void cfg_free(struct cfg *cfg)
{
	if (!cfg)
		return;
	cfg_release(cfg);
	free(cfg);
}

int cfg_load_string(struct cfg *out, const char *name, const char *text, size_t len)
{
	struct loader ld;
	struct ytree_node *root = NULL;
	size_t i;
	int ret = SWEEP_ERR;

	cfg_release(out);
	memset(&ld, 0, sizeof(ld));
	ld.file = name;
	ld.cfg = out;
	out->path = xstrdup(name);

	if (ytree_parse(&root, name, text, len))
		goto out;
	if (!root || (root->kind == YTREE_SCALAR && root->null)) {
		error_at(&ld, root ? root->line : 1, root ? root->column : 1,
		         "the sweep file is empty: it needs at least 'name' and 'command'");
		goto out;
	}
	if (root->kind != YTREE_MAP) {
		AT(&ld, root, "the top level must be a mapping (name: ..., command: ...), found %s",
		   ytree_kind_name(root));
		goto out;
	}
	if (check_section(&ld, root, ""))
		goto out;
	for (i = 0; i < root->n; i += 2)
		if (read_top(&ld, root->items[i], root->items[i + 1]))
			goto out;
	if (check_whole(&ld, root))
		goto out;

	if (!out->seeds) {
		out->seeds = xcalloc(1, sizeof(*out->seeds));
		out->nseeds = 1;
	}
	if (!out->logs)
		out->logs = xstrdup("logs");
	if (check_signal_time(&ld))
		goto out;
	default_signal(out);
	if (ld.max_restarts_value && !out->slurm.requeue) {
		AT(&ld, ld.max_restarts_value, "'slurm.max_restarts' needs 'slurm.requeue: true'");
		goto out;
	}
	if (!out->slurm.max_restarts)
		out->slurm.max_restarts = DEFAULT_MAX_RESTARTS;
	if (check_pack(&ld))
		goto out;
	if (!out->pack)
		out->pack = 1;
	if (ld.retry_on_exit_value && !out->retries) {
		AT(&ld, ld.retry_on_exit_value, "'retry_on_exit' needs 'retries'");
		goto out;
	}
	ret = 0;
out:
	ytree_free(root);
	for (i = 0; i < ld.nshown; i++)
		free(ld.shown[i]);
	free(ld.shown);
	if (ret)
		cfg_release(out);
	return ret;
}

int cfg_read_file(struct strbuf *text, const char *path)
{
	if (!strbuf_read_file_max(text, path, CFG_MAX_BYTES, STRBUF_READ_PIPE))
		return 0;
	if (errno == EFBIG)
		return error("cannot read '%s': larger than %u MiB; a sweep file this large is "
		             "a mistake",
		             path, CFG_MAX_BYTES >> 20);
	if (errno == EINVAL)
		return error("cannot read '%s': not a regular file or a pipe", path);
	return error("cannot read '%s': %s", path, strerror(errno));
}

int cfg_load(struct cfg *out, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	if (cfg_read_file(&sb, path) < 0) {
		strbuf_release(&sb);
		cfg_release(out);
		return SWEEP_ERR;
	}
	ret = cfg_load_string(out, path, sb.buf, sb.len);
	strbuf_release(&sb);
	return ret;
}
