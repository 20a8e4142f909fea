/*
 * Expansion of a validated sweep file into the task table. The values are
 * stored once per setting (not per task): a 100,000-task sweep with five
 * seeds holds 20,000 rows, and a task finds its own by arithmetic.
 */
#include "plan.h"

#include <stdlib.h>
#include <sys/types.h>
#include <string.h>

#include "cfg.h"
#include "error.h"
#include "sample.h"
#include "strbuf.h"

#include "banned.h"

void plan_init(struct plan *plan)
{
	memset(plan, 0, sizeof(*plan));
}

void plan_release(struct plan *plan)
{
	if (plan->values)
		for (size_t i = 0; i < plan->nsettings * plan->nparams; i++)
			free(plan->values[i]);
	for (size_t p = 0; p < plan->nparams; p++)
		free(plan->params[p]);
	free(plan->params);
	free(plan->values);
	free(plan->seeds);
	free(plan->varies);
	plan_init(plan);
}

void plan_derive(struct plan *plan)
{
	plan->ntasks = plan->nsettings * plan->nseeds;
	free(plan->varies);
	plan->varies = xcalloc(plan->nparams + 1, 1);
	for (size_t p = 0; p < plan->nparams; p++)
		for (size_t s = 1; s < plan->nsettings; s++)
			if (strcmp(plan_value(plan, s, p), plan_value(plan, 0, p))) {
				plan->varies[p] = 1;
				break;
			}
}

static ssize_t param_position(const struct plan *plan, const char *name)
{
	for (size_t p = 0; p < plan->nparams; p++)
		if (!strcmp(plan->params[p], name))
			return (ssize_t)p;
	return -1;
}

static void add_param(struct plan *plan, const char *name, size_t *alloc)
{
	ALLOC_GROW(plan->params, plan->nparams + 1, *alloc);
	plan->params[plan->nparams++] = xstrdup(name);
}

/*
 * Fills the settings of the grid x zip product into plan->values, from
 * setting first on, their values from column col on.
 */
static void expand_product(struct plan *plan, const struct cfg *cfg, size_t nproduct, size_t nzip,
                           size_t first, size_t col)
{
	size_t *digit = xcalloc(cfg->ngrid + 1, sizeof(size_t));

	for (size_t s = 0; s < nproduct; s++) {
		size_t rest = s;
		char **row = plan->values + (first + s) * plan->nparams + col;

		/* Mixed-radix decomposition: zip innermost, then the last grid key. */
		size_t zrow = nzip ? rest % nzip : 0;

		if (nzip)
			rest /= nzip;
		for (size_t g = cfg->ngrid; g-- > 0;) {
			digit[g] = rest % cfg->grid[g].nvalues;
			rest /= cfg->grid[g].nvalues;
		}
		for (size_t g = 0; g < cfg->ngrid; g++)
			row[g] = xstrdup(cfg->grid[g].values[digit[g]]);
		for (size_t z = 0; z < cfg->nzip; z++)
			row[cfg->ngrid + z] = xstrdup(cfg->zip[z].values[zrow]);
	}
	free(digit);
}

/*
 * Random search: trial t is settings t * nproduct .. (t + 1) * nproduct - 1,
 * its drawn values first, then the grid's, so that more trials only add
 * settings at the end (--extend keeps the earlier ones).
 */
static void expand_trials(struct plan *plan, const struct cfg *cfg, size_t nproduct, size_t nzip)
{
	for (size_t t = 0; t < cfg->trials; t++) {
		char **row = plan->values + t * nproduct * plan->nparams;

		sample_trial(row, cfg, t);
		if (cfg->ngrid || cfg->nzip)
			expand_product(plan, cfg, nproduct, nzip, t * nproduct, cfg->nsample);
		for (size_t g = 1; g < nproduct; g++)
			for (size_t i = 0; i < cfg->nsample; i++)
				row[g * plan->nparams + i] = xstrdup(row[i]);
	}
}

int plan_expand(struct plan *out, const struct cfg *cfg)
{
	size_t alloc = 0, nproduct = 0, nzip = 0;
	unsigned long long total;

	plan_init(out);
	for (size_t i = 0; i < cfg->nsample; i++)
		add_param(out, cfg->sample[i].name, &alloc);
	for (size_t g = 0; g < cfg->ngrid; g++)
		add_param(out, cfg->grid[g].name, &alloc);
	for (size_t z = 0; z < cfg->nzip; z++)
		add_param(out, cfg->zip[z].name, &alloc);
	for (size_t c = 0; c < cfg->ncases; c++)
		for (size_t k = 0; k < cfg->cases[c].n; k++)
			if (param_position(out, cfg->cases[c].names[k]) < 0)
				add_param(out, cfg->cases[c].names[k], &alloc);

	if (cfg->ngrid || cfg->nzip) {
		total = 1;
		for (size_t g = 0; g < cfg->ngrid; g++) {
			total *= cfg->grid[g].nvalues;
			if (total > GRID_MAX_TASKS)
				goto too_many;
		}
		if (cfg->nzip) {
			nzip = cfg->zip[0].nvalues;
			total *= nzip;
		}
		if (total > GRID_MAX_TASKS)
			goto too_many;
		nproduct = (size_t)total;
	}
	if (cfg->nsample && !nproduct)
		nproduct = 1; /* trials without a grid: one setting each */
	total = (unsigned long long)(nproduct + cfg->ncases) * (cfg->nseeds ? cfg->nseeds : 1);
	if (cfg->nsample)
		total *= cfg->trials;
	if (total > GRID_MAX_TASKS)
		goto too_many;
	if (nproduct + cfg->ncases == 0) {
		/* No parameters at all: one setting, run once per seed. */
		nproduct = 1;
	}

	out->nsettings = (cfg->nsample ? cfg->trials * nproduct : nproduct) + cfg->ncases;
	out->values = xcalloc(out->nsettings * out->nparams + 1, sizeof(char *));
	if (cfg->nsample)
		expand_trials(out, cfg, nproduct, nzip);
	else if (cfg->ngrid || cfg->nzip)
		expand_product(out, cfg, nproduct, nzip, 0, 0);
	for (size_t c = 0; c < cfg->ncases; c++) {
		const struct cfg_case *cs = &cfg->cases[c];
		char **row = out->values + (nproduct + c) * out->nparams;

		for (size_t k = 0; k < cs->n; k++)
			row[param_position(out, cs->names[k])] = xstrdup(cs->values[k]);
		for (size_t p = 0; p < out->nparams; p++) {
			if (row[p])
				continue;
			error("%s:%u:%u: this case does not set '%s', which other settings have",
			      cfg->path, cs->line, cs->column, out->params[p]);
			plan_release(out);
			return SWEEP_ERR;
		}
	}

	out->nseeds = cfg->nseeds ? cfg->nseeds : 1;
	out->seeds = xcalloc(out->nseeds, sizeof(*out->seeds));
	for (size_t i = 0; i < cfg->nseeds; i++)
		out->seeds[i] = cfg->seeds[i];
	plan_derive(out);
	return 0;

too_many:
	plan_release(out);
	return error("%s: the sweep would have more than %u tasks; split it into several sweeps",
	             cfg->path, GRID_MAX_TASKS);
}

char *plan_setting_label(const struct plan *plan, size_t s)
{
	struct strbuf sb = STRBUF_INIT;
	int any_varies = 0;

	for (size_t p = 0; p < plan->nparams; p++)
		any_varies |= plan->varies && plan->varies[p];
	for (size_t p = 0; p < plan->nparams; p++) {
		if (any_varies && !plan->varies[p])
			continue;
		if (sb.len)
			strbuf_addch(&sb, ' ');
		strbuf_addf(&sb, "%s=%s", plan->params[p], plan_value(plan, s, p));
	}
	if (!sb.len)
		strbuf_addstr(&sb, "-");
	return strbuf_detach(&sb, NULL);
}

/* Bytes of "NAME=value" and its NUL, as the kernel counts an environment string. */
static size_t env_bytes(const char *prefix, const char *name, const char *value)
{
	return strlen(prefix) + strlen(name) + 1 + strlen(value) + 1;
}

int plan_check_sizes(const struct plan *plan, const struct cfg *cfg)
{
	size_t fixed = 0;

	for (size_t i = 0; i < cfg->nenv; i++) {
		size_t n = env_bytes("", cfg->env[i].name, cfg->env[i].value);

		if (n > PLAN_MAX_VARIABLE)
			return error("%s: 'env.%s' is %zu bytes: one environment variable holds "
			             "at most %u bytes, name included",
			             cfg->path, cfg->env[i].name, strlen(cfg->env[i].value),
			             PLAN_MAX_VARIABLE);
		fixed += n;
	}
	for (size_t s = 0; s < plan->nsettings; s++) {
		size_t total = fixed;

		for (size_t p = 0; p < plan->nparams; p++) {
			const char *v = plan_value(plan, s, p);
			size_t n = env_bytes("SWEEP_PARAM_", plan->params[p], v);

			if (n > PLAN_MAX_VARIABLE)
				return error(
				    "%s: the value of '%s' in setting %zu is %zu bytes: a task "
				    "gets "
				    "it in the environment variable SWEEP_PARAM_%s, which holds at "
				    "most %u bytes, name included",
				    cfg->path, plan->params[p], s, strlen(v), plan->params[p],
				    PLAN_MAX_VARIABLE);
			total += 2 * n;
		}
		if (total > PLAN_MAX_TASK_BYTES)
			return error(
			    "%s: setting %zu's values and 'env' take %zu bytes of a task's "
			    "environment and arguments, more than the %u a task can count "
			    "on",
			    cfg->path, s, total, PLAN_MAX_TASK_BYTES);
	}
	return 0;
}
