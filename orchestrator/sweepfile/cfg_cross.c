/*
 * The checks of a sweep file across its sections: cases against grid and
 * zip, placeholders against the parameters. cfg.c reads the sections.
 */
#include "cfg_impl.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "placeholder.h"
#include "sbopt.h"
#include "strbuf.h"
#include "yamltree.h"

#include "banned.h"

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
	*out =
	    xcalloc(cfg->nsample + cfg->ngrid + cfg->nzip + (cfg->ncases ? cfg->cases[0].n : 0) + 2,
	            sizeof(**out));
	for (i = 0; i < cfg->nsample; i++)
		(*out)[(*n)++] = cfg->sample[i].name;
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
	const size_t nbuiltin =
	    sizeof(cfg_builtin_placeholders) / sizeof(*cfg_builtin_placeholders);
	const char **all = xcalloc(nparams + nbuiltin + 1, sizeof(*all));
	size_t nall = nparams + nbuiltin + (ld->cfg->nstage ? 1 : 0);
	struct placeholder_piece pc;
	const char *p;
	size_t n, i;
	int ret = 0;

	for (i = 0; i < nparams; i++)
		all[i] = params[i];
	for (i = 0; i < nbuiltin; i++)
		all[nparams + i] = cfg_builtin_placeholders[i];
	all[nparams + nbuiltin] = "stage"; /* counted in nall only with a `stage:` list */
	for (p = text; !ret && (n = placeholder_next(&pc, p)); p += n) {
		char *name;
		const char *guess;

		if (pc.kind != PLACEHOLDER_NAME)
			continue;
		name = xstrndup(pc.start, pc.len);
		for (i = 0; i < nall; i++)
			if (!strcmp(all[i], name))
				break;
		if (i == nall) {
			guess = sbopt_suggest(name, all, nall);
			if (guess)
				ret = AT(ld, node,
				         "'%s': unknown placeholder '{%s}'; did you mean "
				         "'{%s}'?",
				         what, name, guess);
			else
				ret = AT(ld, node,
				         "'%s': unknown placeholder '{%s}': not a parameter, "
				         "'seed', 'index', 'task' or 'sweep' (write {{ and }} for "
				         "literal "
				         "braces)",
				         what, name);
		}
		free(name);
	}
	free(all);
	return ret;
}

int cfg_check_whole(struct loader *ld, const struct ytree_node *root)
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
	if (cfg_check_sample(ld, root))
		return SWEEP_ERR;
	collect_params(cfg, &params, &nparams);
	if (check_cases(ld, params, nparams) ||
	    check_placeholders(ld, cfg->command, ld->command, "command", params, nparams))
		goto out;
	if (ld->results_file && check_placeholders(ld, cfg->results.file, ld->results_file,
	                                           "results.file", params, nparams))
		goto out;
	if (ld->checkpoint_dir && check_placeholders(ld, cfg->checkpoint.dir, ld->checkpoint_dir,
	                                             "checkpoint.dir", params, nparams))
		goto out;
	if (cfg->nstage && (find_param(cfg->grid, cfg->ngrid, "stage") ||
	                    find_param(cfg->zip, cfg->nzip, "stage"))) {
		ret = AT(ld, root,
		         "a parameter named 'stage' clashes with the '{stage}' placeholder "
		         "of a 'stage:' list; rename the parameter");
		goto out;
	}
	ret = 0;
out:
	free(params);
	return ret;
}
