/*
 * Matching tasks across sweeps. A setting is compared as a set of
 * name=value pairs, so reordering the grid keys or moving a parameter from
 * grid to cases keeps its tasks the same.
 */
#include "reuse.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cfg.h"
#include "plan.h"
#include "strbuf.h"

#include "banned.h"

static int cmp_env(const void *a, const void *b)
{
	return strcmp(((const struct cfg_env *)a)->name, ((const struct cfg_env *)b)->name);
}

char *reuse_recipe(const struct cfg *cfg, const char *template_text)
{
	json_t *root = json_object(), *env = json_object();
	struct cfg_env *sorted = xcalloc(cfg->nenv ? cfg->nenv : 1, sizeof(*sorted));
	char *text, *copy;

	if (cfg->nenv)
		memcpy(sorted, cfg->env, cfg->nenv * sizeof(*sorted));
	qsort(sorted, cfg->nenv, sizeof(*sorted), cmp_env);
	for (size_t i = 0; i < cfg->nenv; i++)
		json_object_set_new(env, sorted[i].name,
		                    json_stringn(sorted[i].value, strlen(sorted[i].value)));
	free(sorted);
	json_object_set_new(root, "command", json_stringn(cfg->command, strlen(cfg->command)));
	json_object_set_new(
	    root, "setup", cfg->setup ? json_stringn(cfg->setup, strlen(cfg->setup)) : json_null());
	json_object_set_new(root, "env", env);
	json_object_set_new(root, "template", json_stringn(template_text, strlen(template_text)));
	text = json_dumps(root, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII);
	json_decref(root);
	/* Values that are not UTF-8 make jansson refuse: such a recipe matches nothing. */
	copy = xstrdup(text ? text : "");
	free(text);
	return copy;
}

const char *reuse_recipe_diff(const char *a, const char *b)
{
	static const struct {
		const char *key, *words;
	} parts[] = {
	    {"command", "the command text"},
	    {"setup", "the setup"},
	    {"env", "the environment"},
	    {"template", "the script template"},
	};
	json_t *ja = a && *a ? json_loads(a, 0, NULL) : NULL;
	json_t *jb = b && *b ? json_loads(b, 0, NULL) : NULL;
	const char *why = NULL;

	if (!ja || !jb) {
		why = "the recipe";
		goto out;
	}
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]) && !why; i++)
		if (!json_equal(json_object_get(ja, parts[i].key),
		                json_object_get(jb, parts[i].key)))
			why = parts[i].words;
out:
	json_decref(ja);
	json_decref(jb);
	return why;
}

/* Setting s of plan as sorted "name\0value\0" pairs, for comparison; *len its length. */
static char *setting_key(size_t *len, const struct plan *plan, size_t s)
{
	size_t *order = xcalloc(plan->nparams ? plan->nparams : 1, sizeof(*order));
	struct strbuf sb = STRBUF_INIT;

	for (size_t p = 0; p < plan->nparams; p++)
		order[p] = p;
	/* Insertion sort by name: a handful of parameters. */
	for (size_t i = 1; i < plan->nparams; i++)
		for (size_t j = i;
		     j > 0 && strcmp(plan->params[order[j - 1]], plan->params[order[j]]) > 0; j--) {
			size_t t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (size_t p = 0; p < plan->nparams; p++) {
		strbuf_add(&sb, plan->params[order[p]], strlen(plan->params[order[p]]) + 1);
		strbuf_add(&sb, plan_value(plan, s, order[p]),
		           strlen(plan_value(plan, s, order[p])) + 1);
	}
	free(order);
	return strbuf_detach(&sb, len);
}

/* setting_of[s] = the setting of have equal to setting s of want, or REUSE_NONE. */
static void match_settings(size_t *setting_of, const struct plan *want, const struct plan *have)
{
	char **keys = xcalloc(have->nsettings ? have->nsettings : 1, sizeof(*keys));
	size_t *lens = xcalloc(have->nsettings ? have->nsettings : 1, sizeof(*lens));

	for (size_t s = 0; s < have->nsettings; s++)
		keys[s] = setting_key(&lens[s], have, s);
	for (size_t s = 0; s < want->nsettings; s++) {
		size_t len;
		char *key = setting_key(&len, want, s);

		setting_of[s] = REUSE_NONE;
		for (size_t h = 0; h < have->nsettings; h++)
			if (len == lens[h] && !memcmp(key, keys[h], len)) {
				setting_of[s] = h;
				break;
			}
		free(key);
	}
	for (size_t s = 0; s < have->nsettings; s++)
		free(keys[s]);
	free(keys);
	free(lens);
}

void reuse_match(size_t *out, const struct plan *want, const struct plan *have)
{
	size_t *setting_of = xcalloc(want->nsettings ? want->nsettings : 1, sizeof(*setting_of));

	match_settings(setting_of, want, have);
	for (size_t j = 0; j < want->ntasks; j++) {
		size_t hs = setting_of[plan_setting_of(want, j)];
		int64_t seed = plan_seed_of(want, j);

		out[j] = REUSE_NONE;
		if (hs == REUSE_NONE)
			continue;
		for (size_t k = 0; k < have->nseeds; k++)
			if (have->seeds[k] == seed) {
				out[j] = hs * have->nseeds + k;
				break;
			}
	}
	free(setting_of);
}

/*
 * How many values setting s of want and setting h of have differ in (the
 * last such parameter of want in *param), or REUSE_NONE when their
 * parameter names are not the same.
 */
static size_t count_differences(size_t *param, const struct plan *want, size_t s,
                                const struct plan *have, size_t h)
{
	size_t n = 0;

	if (want->nparams != have->nparams)
		return REUSE_NONE;
	for (size_t p = 0; p < want->nparams; p++) {
		size_t q = 0;

		while (q < have->nparams && strcmp(have->params[q], want->params[p]))
			q++;
		if (q == have->nparams)
			return REUSE_NONE;
		if (strcmp(plan_value(want, s, p), plan_value(have, h, q))) {
			n++;
			*param = p;
		}
	}
	return n;
}

void reuse_changed_settings(size_t *out, size_t *param, const struct plan *want,
                            const struct plan *have)
{
	size_t *setting_of = xcalloc(want->nsettings ? want->nsettings : 1, sizeof(*setting_of));
	unsigned char *taken = xcalloc(have->nsettings ? have->nsettings : 1, 1);

	match_settings(setting_of, want, have);
	for (size_t s = 0; s < want->nsettings; s++)
		if (setting_of[s] != REUSE_NONE)
			taken[setting_of[s]] = 1;
	for (size_t s = 0; s < want->nsettings; s++) {
		out[s] = REUSE_NONE;
		param[s] = 0;
		if (setting_of[s] != REUSE_NONE)
			continue;
		for (size_t h = 0; h < have->nsettings; h++) {
			size_t p = 0;

			if (taken[h] || count_differences(&p, want, s, have, h) != 1)
				continue;
			taken[h] = 1;
			out[s] = h;
			param[s] = p;
			break;
		}
	}
	free(taken);
	free(setting_of);
}
