/*
 * The sweep file's `stage:` list: tars and folders that each node copies
 * to a local folder once per sweep, before the command runs. An entry is a
 * path, or a map {path: ..., size: ...} that states the unpacked size of a
 * compressed tar (the free-space check's bound; see script_stage.h).
 */
#include "cfg.h"

#include <stdlib.h>
#include <string.h>

#include "cfg_impl.h"
#include "error.h"
#include "strbuf.h"
#include "units.h"
#include "banned.h"

#define MAX_STAGE 64

static int read_stage_map(struct loader *ld, struct cfg_stage *e, const struct ytree_node *map)
{
	static const char *const keys[] = {"path", "size"};
	const char *why;

	if (cfg_check_keys(ld, map, " in a 'stage' entry", keys, ARRAY_SIZE(keys)))
		return SWEEP_ERR;
	for (size_t i = 0; i < map->n; i += 2) {
		const struct ytree_node *key = map->items[i], *v = map->items[i + 1];

		if (!strcmp(key->text, "path")) {
			if (cfg_get_string(ld, &e->path, v, "stage.path"))
				return SWEEP_ERR;
		} else if (cfg_expect(ld, v, YTREE_SCALAR, "stage.size") ||
		           units_parse_mem(&e->size_mb, v->text, &why)) {
			return v->kind == YTREE_SCALAR && !v->null
			           ? AT(ld, v, "'stage.size': bad size '%s': %s",
			                cfg_show(ld, v->text), why)
			           : SWEEP_ERR;
		}
	}
	if (!e->path)
		return AT(ld, map, "a 'stage' entry without 'path'");
	return 0;
}

int cfg_read_stage(struct loader *ld, const struct ytree_node *list)
{
	struct cfg *cfg = ld->cfg;

	if (cfg_expect(ld, list, YTREE_LIST, "stage"))
		return SWEEP_ERR;
	if (!list->n)
		return AT(ld, list, "'stage' is an empty list");
	if (list->n > MAX_STAGE)
		return AT(ld, list, "'stage': at most %d entries, found %zu", MAX_STAGE, list->n);
	cfg->stage = xcalloc(list->n, sizeof(*cfg->stage));
	for (size_t i = 0; i < list->n; i++) {
		const struct ytree_node *v = list->items[i];
		struct cfg_stage *e = &cfg->stage[cfg->nstage++];

		if (v->kind == YTREE_MAP) {
			if (read_stage_map(ld, e, v))
				return SWEEP_ERR;
		} else if (cfg_get_string(ld, &e->path, v, "stage")) {
			return SWEEP_ERR;
		}
		if (!*e->path)
			return AT(ld, v, "'stage': an empty path");
	}
	return 0;
}
