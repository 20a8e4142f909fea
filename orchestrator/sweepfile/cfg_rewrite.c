/*
 * The rewrite keeps the old file's nodes as libyaml loaded them (styles,
 * tags and all) and emits a new document: a sweep file is checked when it
 * is read, not here.
 */
#include "cfg_rewrite.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "error.h"
#include "path.h"
#include "strbuf.h"

#include "banned.h"

/* Keys of the sweep's file that say which settings and seeds run: replaced. */
static bool replaced_key(const char *k)
{
	static const char *const keys[] = {"name",          "seeds",     "grid",   "zip",
	                                   "cases",         "sample",    "trials", "sample_seed",
	                                   "sample_digits", "confirm_of"};

	for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++)
		if (!strcmp(k, keys[i]))
			return true;
	return false;
}

static int add_text(yaml_document_t *d, const char *text, yaml_scalar_style_t style)
{
	return yaml_document_add_scalar(d, NULL, (yaml_char_t *)text, (int)strlen(text), style);
}

/* A copy of node n of src in dst; its id there, or 0. */
static int copy_node(yaml_document_t *dst, yaml_document_t *src, yaml_node_t *n)
{
	int id = 0;

	switch (n->type) {
	case YAML_SCALAR_NODE:
		return yaml_document_add_scalar(dst, n->tag, n->data.scalar.value,
		                                (int)n->data.scalar.length, n->data.scalar.style);
	case YAML_SEQUENCE_NODE:
		id = yaml_document_add_sequence(dst, n->tag, n->data.sequence.style);
		for (yaml_node_item_t *it = n->data.sequence.items.start;
		     id && it < n->data.sequence.items.top; it++) {
			int child = copy_node(dst, src, yaml_document_get_node(src, *it));

			if (!child || !yaml_document_append_sequence_item(dst, id, child))
				return 0;
		}
		return id;
	case YAML_MAPPING_NODE:
		id = yaml_document_add_mapping(dst, n->tag, n->data.mapping.style);
		for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
		     id && p < n->data.mapping.pairs.top; p++) {
			int k = copy_node(dst, src, yaml_document_get_node(src, p->key));
			int v = copy_node(dst, src, yaml_document_get_node(src, p->value));

			if (!k || !v || !yaml_document_append_mapping_pair(dst, id, k, v))
				return 0;
		}
		return id;
	default:
		return 0;
	}
}

/* `cases:`: each parameter's value, as the command received it. */
static int add_cases(yaml_document_t *d, const struct cfg_rewrite *rw)
{
	int seq = yaml_document_add_sequence(d, NULL, YAML_BLOCK_SEQUENCE_STYLE);

	for (size_t i = 0; seq && i < rw->ncases; i++) {
		int map = yaml_document_add_mapping(d, NULL, YAML_FLOW_MAPPING_STYLE);

		for (size_t p = 0; map && p < rw->nparams; p++) {
			const char *value = rw->values[i * rw->nparams + p];

			if (value &&
			    !yaml_document_append_mapping_pair(
			        d, map, add_text(d, rw->params[p], YAML_PLAIN_SCALAR_STYLE),
			        add_text(d, value, YAML_DOUBLE_QUOTED_SCALAR_STYLE)))
				return 0;
		}
		if (!map || !yaml_document_append_sequence_item(d, seq, map))
			return 0;
	}
	return seq;
}

static int add_seed_list(yaml_document_t *d, const int64_t *seeds, size_t n)
{
	int seq = yaml_document_add_sequence(d, NULL, YAML_FLOW_SEQUENCE_STYLE);

	for (size_t i = 0; seq && i < n; i++) {
		char text[32];

		snprintf(text, sizeof(text), "%" PRId64, seeds[i]);
		if (!yaml_document_append_sequence_item(d, seq,
		                                        add_text(d, text, YAML_PLAIN_SCALAR_STYLE)))
			return 0;
	}
	return seq;
}

/* "template:" is relative to the sweep file, which the confirm's file is not next to. */
static int add_pair(yaml_document_t *dst, int root, yaml_document_t *src, yaml_node_pair_t *p,
                    const char *source)
{
	yaml_node_t *k = yaml_document_get_node(src, p->key);
	yaml_node_t *v = yaml_document_get_node(src, p->value);
	const char *key = (const char *)k->data.scalar.value;
	int kid = copy_node(dst, src, k), vid;

	if (!strcmp(key, "template") && v->type == YAML_SCALAR_NODE &&
	    v->data.scalar.value[0] != '/') {
		char *dir = xstrdup(source), *slash = strrchr(dir, '/');
		char *abs;

		if (slash)
			*slash = '\0';
		abs = path_absolute((const char *)v->data.scalar.value, slash ? dir : ".");
		vid = add_text(dst, abs, YAML_DOUBLE_QUOTED_SCALAR_STYLE);
		free(abs);
		free(dir);
	} else {
		vid = copy_node(dst, src, v);
	}
	return kid && vid && yaml_document_append_mapping_pair(dst, root, kid, vid);
}

static int write_out(void *data, unsigned char *buffer, size_t size)
{
	strbuf_add(data, buffer, size);
	return 1;
}

int cfg_rewrite(struct strbuf *out, const char *text, const struct cfg_rewrite *rw)
{
	yaml_parser_t parser;
	yaml_emitter_t emitter;
	yaml_document_t src, dst;
	yaml_node_t *top;
	int root, ok = 1;

	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, strlen(text));
	if (!yaml_parser_load(&parser, &src)) {
		yaml_parser_delete(&parser);
		return error("%s no longer reads", rw->what);
	}
	yaml_parser_delete(&parser);
	top = yaml_document_get_root_node(&src);
	if (!top || top->type != YAML_MAPPING_NODE) {
		yaml_document_delete(&src);
		return error("%s is not a mapping", rw->what);
	}
	yaml_document_initialize(&dst, NULL, NULL, NULL, 1, 1);
	root = yaml_document_add_mapping(&dst, NULL, YAML_BLOCK_MAPPING_STYLE);
	ok = root && yaml_document_append_mapping_pair(
	                 &dst, root, add_text(&dst, "name", YAML_PLAIN_SCALAR_STYLE),
	                 add_text(&dst, rw->name, YAML_PLAIN_SCALAR_STYLE));
	if (rw->confirm_of)
		ok = ok && yaml_document_append_mapping_pair(
		               &dst, root, add_text(&dst, "confirm_of", YAML_PLAIN_SCALAR_STYLE),
		               add_text(&dst, rw->confirm_of, YAML_PLAIN_SCALAR_STYLE));
	for (yaml_node_pair_t *p = top->data.mapping.pairs.start;
	     ok && p < top->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(&src, p->key);

		if (k->type == YAML_SCALAR_NODE && replaced_key((const char *)k->data.scalar.value))
			continue;
		ok = add_pair(&dst, root, &src, p, rw->source);
	}
	ok = ok && yaml_document_append_mapping_pair(
	               &dst, root, add_text(&dst, "seeds", YAML_PLAIN_SCALAR_STYLE),
	               add_seed_list(&dst, rw->seeds, rw->nseeds));
	ok = ok &&
	     yaml_document_append_mapping_pair(
	         &dst, root, add_text(&dst, "cases", YAML_PLAIN_SCALAR_STYLE), add_cases(&dst, rw));
	yaml_document_delete(&src);
	if (!ok) {
		yaml_document_delete(&dst);
		return error("cannot write the sweep file of the confirm: out of memory");
	}
	yaml_emitter_initialize(&emitter);
	yaml_emitter_set_output(&emitter, write_out, out);
	yaml_emitter_set_unicode(&emitter, 1);
	yaml_emitter_set_width(&emitter, -1);
	ok = yaml_emitter_open(&emitter) && yaml_emitter_dump(&emitter, &dst) &&
	     yaml_emitter_close(&emitter) && yaml_emitter_flush(&emitter);
	yaml_emitter_delete(&emitter);
	if (!ok)
		return error("cannot write the sweep file of the confirm: %s",
		             emitter.problem ? emitter.problem : "the YAML emitter failed");
	return 0;
}
