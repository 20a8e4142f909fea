/*
 * The sweep schema: which keys a sweep file has, what each value may be,
 * and the checks across sections (cases against grid and zip, placeholders
 * against parameters: cfg_cross.c). The format itself is described once, in README.md's
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

#include "cfg_impl.h"
#include "error.h"
#include "placeholder.h"
#include "sbopt.h"
#include "strbuf.h"
#include "units.h"
#include "yamltree.h"
#include "banned.h"

/* See cfg_impl.h. */
const char *const cfg_builtin_placeholders[CFG_NBUILTIN] = {"seed", "index", "task", "sweep"};

#define MAX_SEEDS    1000000
#define MAX_NAME_LEN 100
#define MAX_PACK     100000

static const char *const top_keys[] = {
    "name",    "command", "seeds",   "grid",          "zip",           "cases",
    "slurm",   "env",     "setup",   "logs",          "template",      "checkpoint",
    "metrics", "results", "retries", "retry_on_exit", "notify",        "fail_fast",
    "pack",    "sample",  "trials",  "sample_seed",   "sample_digits", "stage",
    "confirm_of",
};

static const char *const slurm_keys[] = {
    "partition",     "account",        "qos",    "gres",    "gpus_per_task", "constraint",
    "cpus_per_task", "nodes",          "ntasks", "mem",     "mem_per_cpu",   "time",
    "signal",        "max_concurrent", "extra",  "requeue", "max_restarts",  "tmp_base",
};

static const char *const checkpoint_keys[] = {"size", "keep", "dir", "pattern"};

static const char *const notify_keys[] = {"mail", "command"};

#define MAX_RETRIES 20
static const char *const results_keys[] = {"file", "log", "step"};

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

/* ---- messages ---- */

/*
 * The user's text as a message shows it: control bytes escaped, long text
 * cut. Owned by the loader.
 */
const char *cfg_show(struct loader *ld, const char *s)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_add_shown(&sb, s);
	ALLOC_GROW(ld->shown, ld->nshown + 1, ld->shown_alloc);
	ld->shown[ld->nshown] = strbuf_detach(&sb, NULL);
	return ld->shown[ld->nshown++];
}

/* ---- checks on nodes ---- */

int cfg_expect(struct loader *ld, const struct ytree_node *n, enum ytree_kind kind,
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
int cfg_check_keys(struct loader *ld, const struct ytree_node *map, const char *where,
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
					          cfg_show(ld, key->text), where, guess);
				return AT(ld, key, "unknown key '%s'%s", cfg_show(ld, key->text),
				          where);
			}
		}
		if (i == repeat)
			return AT(ld, key, "duplicate key '%s'%s (first at line %u)",
			          cfg_show(ld, key->text), where, map->items[2 * first]->line);
	}
	return 0;
}

/* check_keys with the keys of one of key_sections ("" for the top level). */
int cfg_check_section(struct loader *ld, const struct ytree_node *map, const char *section)
{
	char *where;
	int ret;

	for (size_t i = 0; i < ARRAY_SIZE(key_sections); i++) {
		const struct key_section *ks = &key_sections[i];

		if (strcmp(ks->name, section))
			continue;
		where = *section ? xstrfmt(" in '%s'", section) : xstrdup("");
		ret = cfg_check_keys(ld, map, where, ks->keys, ks->n);
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

int cfg_check_param_name(struct loader *ld, const struct ytree_node *key, const char *where)
{
	if (!placeholder_is_name(key->text, strlen(key->text)))
		return AT(ld, key,
		          "invalid parameter name '%s'%s: use letters, digits and '_', not "
		          "starting with a digit",
		          cfg_show(ld, key->text), where);
	for (size_t i = 0; i < sizeof(cfg_builtin_placeholders) / sizeof(*cfg_builtin_placeholders);
	     i++)
		if (!strcmp(key->text, cfg_builtin_placeholders[i]))
			return AT(ld, key,
			          "'%s'%s: 'seed', 'index', 'task' and 'sweep' are built-in "
			          "placeholders, not parameter names",
			          key->text, where);
	return 0;
}

/* Decimal integer, optional '-', int64 range. */
int cfg_parse_int64(int64_t *out, const char *s)
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

int cfg_get_string(struct loader *ld, char **out, const struct ytree_node *n, const char *path)
{
	if (cfg_expect(ld, n, YTREE_SCALAR, path))
		return SWEEP_ERR;
	free(*out);
	*out = xstrdup(n->text);
	return 0;
}

int cfg_get_positive(struct loader *ld, unsigned *out, const struct ytree_node *n, const char *path)
{
	int64_t v;

	if (cfg_expect(ld, n, YTREE_SCALAR, path))
		return SWEEP_ERR;
	if (cfg_parse_int64(&v, n->text) || v < 1 || v > INT32_MAX)
		return AT(ld, n, "'%s': expected a positive integer, found '%s'", path,
		          cfg_show(ld, n->text));
	*out = (unsigned)v;
	return 0;
}

/* YAML 1.2 core booleans: true/false in any of their three spellings. */
int cfg_get_bool(struct loader *ld, bool *out, const struct ytree_node *n, const char *path)
{
	static const char *const yes[] = {"true", "True", "TRUE"}, *const no[] = {"false", "False",
	                                                                          "FALSE"};

	if (cfg_expect(ld, n, YTREE_SCALAR, path))
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
	return AT(ld, n, "'%s': expected true or false, found '%s'", path, cfg_show(ld, n->text));
}

/* A scalar that goes to an #SBATCH line. */
int cfg_get_sbatch_value(struct loader *ld, char **out, const struct ytree_node *n,
                         const char *path, int allow_percent)
{
	const char *why;

	if (cfg_expect(ld, n, YTREE_SCALAR, path))
		return SWEEP_ERR;
	if (sbopt_check_value(n->text, allow_percent, &why))
		return AT(ld, n, "'%s': bad value '%s': %s", path, cfg_show(ld, n->text), why);
	free(*out);
	*out = xstrdup(n->text);
	return 0;
}

/* ---- the sections ---- */

static int read_name(struct loader *ld, const struct ytree_node *n)
{
	const char *s;

	if (cfg_expect(ld, n, YTREE_SCALAR, "name"))
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
		          cfg_show(ld, s));
	if (strlen(s) > MAX_NAME_LEN)
		return AT(ld, n, "'name' is longer than %d characters", MAX_NAME_LEN);
	ld->cfg->name = xstrdup(s);
	return 0;
}

static int read_command(struct loader *ld, const struct ytree_node *n)
{
	if (cfg_expect(ld, n, YTREE_SCALAR, "command"))
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
		if (cfg_parse_int64(&v, n->text) || v < 1 || v > MAX_SEEDS)
			return AT(ld, n,
			          "'seeds': expected a count from 1 to %d or a list of integers, "
			          "found '%s'",
			          MAX_SEEDS, cfg_show(ld, n->text));
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
		if (cfg_parse_int64(&v, item->text))
			return AT(ld, item, "'seeds': expected an integer, found '%s'",
			          cfg_show(ld, item->text));
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

	if (cfg_expect(ld, map, YTREE_MAP, section))
		return SWEEP_ERR;
	if (!map->n)
		return AT(ld, map, "'%s' is empty: give it parameters or leave it out", section);
	snprintf(where, sizeof(where), " in '%s'", section);
	if (cfg_check_keys(ld, map, where, NULL, 0))
		return SWEEP_ERR;
	for (i = 0; i < map->n; i += 2) {
		const struct ytree_node *key = map->items[i], *list = map->items[i + 1];
		struct cfg_param *p;
		char *path;
		int bad;

		if (cfg_check_param_name(ld, key, where))
			return SWEEP_ERR;
		path = xstrfmt("%s.%s", section, key->text);
		bad = cfg_expect(ld, list, YTREE_LIST, path);
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
				          key->text, cfg_show(ld, p->values[j]),
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

	if (cfg_expect(ld, list, YTREE_LIST, "cases"))
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
		if (cfg_check_keys(ld, map, where, NULL, 0))
			return SWEEP_ERR;
		c->names = xcalloc(map->n / 2, sizeof(*c->names));
		c->values = xcalloc(map->n / 2, sizeof(*c->values));
		for (j = 0; j < map->n; j += 2) {
			const struct ytree_node *key = map->items[j], *value = map->items[j + 1];

			if (cfg_check_param_name(ld, key, where))
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
	if (!strcmp(k, "sample"))
		return cfg_read_sample(ld, v);
	if (!strcmp(k, "trials") || !strcmp(k, "sample_seed") || !strcmp(k, "sample_digits"))
		return cfg_read_sample_key(ld, key, v);
	if (!strcmp(k, "slurm"))
		return cfg_read_slurm(ld, v);
	if (!strcmp(k, "env"))
		return cfg_read_env(ld, v);
	if (!strcmp(k, "setup"))
		return cfg_get_string(ld, &cfg->setup, v, "setup");
	if (!strcmp(k, "logs"))
		return cfg_get_sbatch_value(ld, &cfg->logs, v, "logs", 0);
	if (!strcmp(k, "checkpoint"))
		return cfg_read_checkpoint(ld, v);
	if (!strcmp(k, "stage"))
		return cfg_read_stage(ld, v);
	if (!strcmp(k, "metrics"))
		return cfg_read_metrics(ld, v);
	if (!strcmp(k, "pack")) {
		ld->pack_value = v;
		if (cfg_get_positive(ld, &cfg->pack, v, "pack"))
			return SWEEP_ERR;
		if (cfg->pack > MAX_PACK)
			return AT(ld, v, "'pack': at most %d tasks per array task, found '%s'",
			          MAX_PACK, cfg_show(ld, v->text));
		return 0;
	}
	if (!strcmp(k, "confirm_of"))
		return cfg_get_positive(ld, &cfg->confirm_of, v, "confirm_of");
	if (!strcmp(k, "retries")) {
		if (cfg_get_positive(ld, &cfg->retries, v, "retries"))
			return SWEEP_ERR;
		if (cfg->retries > MAX_RETRIES)
			return AT(ld, v, "'retries': at most %d rounds, found %u", MAX_RETRIES,
			          cfg->retries);
		return 0;
	}
	if (!strcmp(k, "retry_on_exit")) {
		ld->retry_on_exit_value = v;
		return cfg_get_bool(ld, &cfg->retry_on_exit, v, "retry_on_exit");
	}
	if (!strcmp(k, "notify"))
		return cfg_read_notify(ld, v);
	if (!strcmp(k, "fail_fast"))
		return cfg_get_positive(ld, &cfg->fail_fast, v, "fail_fast");
	if (!strcmp(k, "results"))
		return cfg_read_results(ld, v);
	if (!strcmp(k, "template")) {
		if (cfg_get_string(ld, &cfg->template_path, v, "template"))
			return SWEEP_ERR;
		if (!*cfg->template_path)
			return AT(ld, v, "'template' is empty");
		return 0;
	}
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
	cfg_release_sample(cfg);
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
	free(s->tmp_base);
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
	free(cfg->checkpoint.dir);
	free(cfg->checkpoint.pattern);
	for (i = 0; i < cfg->nstage; i++)
		free(cfg->stage[i].path);
	free(cfg->stage);
	for (i = 0; i < cfg->nmetrics; i++) {
		free(cfg->metrics[i].name);
		free(cfg->metrics[i].label);
	}
	free(cfg->metrics);
	free(cfg->notify.mail);
	free(cfg->notify.command);
	free(cfg->results.file);
	for (i = 0; i < cfg->results.nlog; i++) {
		free(cfg->results.log[i].name);
		free(cfg->results.log[i].pattern);
	}
	free(cfg->results.log);
	free(cfg->results.step);
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
	if (cfg_check_section(&ld, root, ""))
		goto out;
	for (i = 0; i < root->n; i += 2)
		if (read_top(&ld, root->items[i], root->items[i + 1]))
			goto out;
	if (cfg_check_whole(&ld, root))
		goto out;

	if (!out->seeds) {
		out->seeds = xcalloc(1, sizeof(*out->seeds));
		out->nseeds = 1;
	}
	if (!out->logs)
		out->logs = xstrdup("logs");
	if (cfg_check_signal_time(&ld))
		goto out;
	cfg_default_signal(out);
	if (ld.max_restarts_value && !out->slurm.requeue) {
		AT(&ld, ld.max_restarts_value, "'slurm.max_restarts' needs 'slurm.requeue: true'");
		goto out;
	}
	if (!out->slurm.max_restarts)
		out->slurm.max_restarts = DEFAULT_MAX_RESTARTS;
	if (cfg_check_pack(&ld))
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
