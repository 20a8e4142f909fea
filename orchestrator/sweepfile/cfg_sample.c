/*
 * Random search in the sweep file: `sample:`, `trials:`, `sample_seed:`
 * and `sample_digits:` (the draws themselves are plan/sample.c). Bounds are
 * read here once, so that every mistake points at the value written.
 */
#include "cfg.h"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cfg_impl.h"
#include "error.h"
#include "strbuf.h"
#include "banned.h"

static const char *const kind_names[] = {"uniform", "loguniform", "int", "choice"};
static const char *const entry_keys[] = {"uniform", "loguniform", "int", "choice", "log"};

/* A finite real number, the whole text. */
static int parse_real(double *out, const char *s)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (!*s || *end || errno == ERANGE || !isfinite(*out))
		return -1;
	return 0;
}

/* int bounds: a double holds every whole number below 2^53 exactly. */
#define SAMPLE_INT_LIMIT (INT64_C(1) << 53)

static int read_bound(struct loader *ld, double *out, const struct ytree_node *n, const char *name,
                      enum cfg_sample_kind kind)
{
	int64_t i;

	if (n->kind != YTREE_SCALAR || n->null)
		return AT(ld, n, "'sample.%s': expected a number as bound, found %s", name,
		          ytree_kind_name(n));
	if (kind == CFG_SAMPLE_INT) {
		const char *digits = n->text + (n->text[0] == '-');
		bool whole = *digits && !digits[strspn(digits, "0123456789")];

		if (whole && (cfg_parse_int64(&i, n->text) || i <= -SAMPLE_INT_LIMIT ||
		              i >= SAMPLE_INT_LIMIT))
			return AT(ld, n,
			          "'sample.%s': '%s' is past the largest whole number a draw holds "
			          "exactly: the bounds of int must lie from -%" PRId64 " to %" PRId64
			          " (2^53 - 1)",
			          name, cfg_show(ld, n->text), SAMPLE_INT_LIMIT - 1,
			          SAMPLE_INT_LIMIT - 1);
		if (!whole || cfg_parse_int64(&i, n->text))
			return AT(ld, n, "'sample.%s': expected a whole number, found '%s'", name,
			          cfg_show(ld, n->text));
		*out = (double)i;
		return 0;
	}
	if (parse_real(out, n->text))
		return AT(ld, n, "'sample.%s': expected a number, found '%s'", name,
		          cfg_show(ld, n->text));
	return 0;
}

static int read_bounds(struct loader *ld, struct cfg_sample *s, const struct ytree_node *list)
{
	const char *kind = kind_names[s->kind];

	if (list->kind != YTREE_LIST || list->n != 2)
		return AT(ld, list, "'sample.%s.%s': expected two bounds [low, high], found %s",
		          s->name, kind,
		          list->kind == YTREE_LIST ? "another count" : ytree_kind_name(list));
	if (read_bound(ld, &s->lo, list->items[0], s->name, s->kind) ||
	    read_bound(ld, &s->hi, list->items[1], s->name, s->kind))
		return SWEEP_ERR;
	if (s->kind == CFG_SAMPLE_INT ? s->lo > s->hi : s->lo >= s->hi)
		return AT(ld, list->items[1],
		          "'sample.%s.%s': the bounds are out of order: '%s' is not above '%s'",
		          s->name, kind, cfg_show(ld, list->items[1]->text),
		          cfg_show(ld, list->items[0]->text));
	/* A draw is lo + u (hi - lo): past the largest double, every draw is inf. */
	if (s->kind == CFG_SAMPLE_UNIFORM && !isfinite(s->hi - s->lo))
		return AT(ld, list->items[1],
		          "'sample.%s.uniform': the bounds '%s' and '%s' are too far apart: their "
		          "distance passes the largest number (%g) and every draw would be inf; "
		          "narrow them",
		          s->name, cfg_show(ld, list->items[0]->text),
		          cfg_show(ld, list->items[1]->text), DBL_MAX);
	if (s->kind == CFG_SAMPLE_LOGUNIFORM && s->lo <= 0)
		return AT(ld, list->items[0],
		          "'sample.%s.loguniform': the bounds must be above 0, found '%s'", s->name,
		          cfg_show(ld, list->items[0]->text));
	return 0;
}

static int read_choice(struct loader *ld, struct cfg_sample *s, const struct ytree_node *list)
{
	if (list->kind != YTREE_LIST)
		return AT(ld, list, "'sample.%s.choice': expected a list, found %s", s->name,
		          ytree_kind_name(list));
	if (!list->n)
		return AT(ld, list, "'sample.%s.choice' is an empty list", s->name);
	s->choices = xcalloc(list->n, sizeof(*s->choices));
	for (size_t j = 0; j < list->n; j++) {
		const struct ytree_node *item = list->items[j];

		if (item->kind != YTREE_SCALAR || item->null)
			return AT(ld, item, "'sample.%s.choice': expected a value, found %s",
			          s->name, ytree_kind_name(item));
		s->choices[s->nchoices++] = xstrdup(item->text);
	}
	return 0;
}

/* The distribution of one entry: one of kind_names, and `log` for int. */
static int read_entry(struct loader *ld, struct cfg_sample *s, const struct ytree_node *map)
{
	const struct ytree_node *dist = NULL, *dist_key = NULL, *log = NULL;
	char *where;
	int bad;

	if (map->kind != YTREE_MAP)
		return AT(ld, map,
		          "'sample.%s': expected a mapping such as {uniform: [0, 1]}, found %s",
		          s->name, ytree_kind_name(map));
	where = xstrfmt(" in 'sample.%s'", s->name);
	bad = cfg_check_keys(ld, map, where, entry_keys, ARRAY_SIZE(entry_keys));
	free(where);
	if (bad)
		return SWEEP_ERR;
	for (size_t i = 0; i < map->n; i += 2) {
		const struct ytree_node *key = map->items[i];

		if (!strcmp(key->text, "log")) {
			log = map->items[i + 1];
			continue;
		}
		if (dist)
			return AT(ld, key, "'sample.%s': '%s' and '%s' both given; give one",
			          s->name, dist_key->text, key->text);
		dist_key = key;
		dist = map->items[i + 1];
		for (size_t k = 0; k < ARRAY_SIZE(kind_names); k++)
			if (!strcmp(key->text, kind_names[k]))
				s->kind = (enum cfg_sample_kind)k;
	}
	if (!dist)
		return AT(ld, map, "'sample.%s': give one of uniform, loguniform, int or choice",
		          s->name);
	if (log) {
		if (s->kind != CFG_SAMPLE_INT)
			return AT(ld, log, "'sample.%s.log' is for int only (use loguniform)",
			          s->name);
		if (cfg_get_bool(ld, &s->log, log, "log"))
			return SWEEP_ERR;
	}
	if (s->kind == CFG_SAMPLE_CHOICE)
		return read_choice(ld, s, dist);
	if (read_bounds(ld, s, dist))
		return SWEEP_ERR;
	if (s->log && s->lo < 1)
		return AT(ld, dist->items[0],
		          "'sample.%s': int with log: true needs bounds of 1 or more, found '%s'",
		          s->name, cfg_show(ld, dist->items[0]->text));
	return 0;
}

int cfg_read_sample(struct loader *ld, const struct ytree_node *map)
{
	struct cfg *cfg = ld->cfg;

	if (cfg_expect(ld, map, YTREE_MAP, "sample"))
		return SWEEP_ERR;
	if (!map->n)
		return AT(ld, map, "'sample' is empty: give it parameters or leave it out");
	if (cfg_check_keys(ld, map, " in 'sample'", NULL, 0))
		return SWEEP_ERR;
	ld->sample = map;
	cfg->sample = xcalloc(map->n / 2, sizeof(*cfg->sample));
	for (size_t i = 0; i < map->n; i += 2) {
		const struct ytree_node *key = map->items[i];
		struct cfg_sample *s = &cfg->sample[cfg->nsample++];

		if (cfg_check_param_name(ld, key, " in 'sample'"))
			return SWEEP_ERR;
		s->name = xstrdup(key->text);
		s->line = key->line;
		s->column = key->column;
		if (read_entry(ld, s, map->items[i + 1]))
			return SWEEP_ERR;
	}
	return 0;
}

int cfg_read_sample_key(struct loader *ld, const struct ytree_node *key, const struct ytree_node *v)
{
	struct cfg *cfg = ld->cfg;
	int64_t seed;

	if (!strcmp(key->text, "trials")) {
		ld->trials = v;
		if (cfg_expect(ld, v, YTREE_SCALAR, "trials"))
			return SWEEP_ERR;
		if (cfg_parse_int64(&seed, v->text) || seed < 1 || seed > CFG_MAX_TRIALS)
			return AT(ld, v,
			          "'trials': expected a whole number from 1 to %d, found '%s'",
			          CFG_MAX_TRIALS, cfg_show(ld, v->text));
		cfg->trials = (unsigned)seed;
		return 0;
	}
	if (!strcmp(key->text, "sample_digits")) {
		ld->sample_digits = v;
		if (cfg_get_positive(ld, &cfg->sample_digits, v, "sample_digits"))
			return SWEEP_ERR;
		if (cfg->sample_digits > CFG_SAMPLE_DIGITS_MAX)
			return AT(ld, v, "'sample_digits': at most %d, found '%s'",
			          CFG_SAMPLE_DIGITS_MAX, cfg_show(ld, v->text));
		return 0;
	}
	/* sample_seed */
	ld->sample_seed = v;
	if (cfg_expect(ld, v, YTREE_SCALAR, "sample_seed"))
		return SWEEP_ERR;
	if (cfg_parse_int64(&seed, v->text) || seed < 0)
		return AT(ld, v, "'sample_seed': expected a whole number of 0 or more, found '%s'",
		          cfg_show(ld, v->text));
	cfg->sample_seed = (uint64_t)seed;
	return 0;
}

/* A key that needs `sample:`, given without it. */
static int needs_sample(struct loader *ld, const struct ytree_node *v, const char *name)
{
	return AT(ld, v, "'%s' needs 'sample' (the parameters to draw)", name);
}

int cfg_check_sample(struct loader *ld, const struct ytree_node *root)
{
	struct cfg *cfg = ld->cfg;

	if (!ld->sample) {
		if (ld->trials)
			return needs_sample(ld, ld->trials, "trials");
		if (ld->sample_seed)
			return needs_sample(ld, ld->sample_seed, "sample_seed");
		if (ld->sample_digits)
			return needs_sample(ld, ld->sample_digits, "sample_digits");
		return 0;
	}
	if (!ld->trials)
		return AT(ld, root, "'sample' needs 'trials' (how many settings to draw)");
	if (cfg->ncases)
		return AT(ld, ld->sample,
		          "'sample' and 'cases' cannot be used together: sample the cases' "
		          "parameters with choice, or make two sweeps");
	for (size_t i = 0; i < cfg->nsample; i++) {
		const struct cfg_sample *s = &cfg->sample[i];
		const struct cfg_param *sets[] = {cfg->grid, cfg->zip};
		size_t ns[] = {cfg->ngrid, cfg->nzip};
		static const char *const where[] = {"grid", "zip"};

		for (size_t w = 0; w < 2; w++)
			for (size_t j = 0; j < ns[w]; j++)
				if (!strcmp(sets[w][j].name, s->name))
					return error_at(
					    ld, s->line, s->column,
					    "parameter '%s' is both sampled and in '%s' "
					    "(line %u); keep one",
					    s->name, where[w], sets[w][j].line);
	}
	if (!cfg->sample_digits)
		cfg->sample_digits = CFG_SAMPLE_DIGITS_DEFAULT;
	return 0;
}

void cfg_release_sample(struct cfg *cfg)
{
	for (size_t i = 0; i < cfg->nsample; i++) {
		for (size_t j = 0; j < cfg->sample[i].nchoices; j++)
			free(cfg->sample[i].choices[j]);
		free(cfg->sample[i].choices);
		free(cfg->sample[i].name);
	}
	free(cfg->sample);
}
