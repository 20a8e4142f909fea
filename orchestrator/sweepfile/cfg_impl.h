#ifndef SWEEP_CFG_IMPL_H
#define SWEEP_CFG_IMPL_H

/*
 * Shared inside the sweep file reader only (cfg*.c): the loader's state
 * while one file is read, and the checks every section uses. Each returns
 * 0, or reports at the node's file:line:column and returns SWEEP_ERR.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cfg.h"
#include "yamltree.h"

#define ARRAY_SIZE(a)                   (sizeof(a) / sizeof((a)[0]))
#define DEFAULT_MAX_RESTARTS            5 /* slurm.max_restarts when requeue is on */
#define error_at(ld, line, column, ...) ytree_error_at((ld)->file, (line), (column), __VA_ARGS__)
#define AT(ld, node, ...)               error_at((ld), (node)->line, (node)->column, __VA_ARGS__)

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
	const struct ytree_node *sample, *trials, *sample_seed, *sample_digits;
	const struct ytree_node *checkpoint_dir;
};

/* The user's text as a message shows it (escaped, cut); owned by the loader. */
const char *cfg_show(struct loader *ld, const char *s);
/* n is of kind (a non-null scalar for YTREE_SCALAR); path names it in the message. */
int cfg_expect(struct loader *ld, const struct ytree_node *n, enum ytree_kind kind,
               const char *path);
/* No duplicate keys, and only keys (NULL: any) with a "did you mean" for others. */
int cfg_check_keys(struct loader *ld, const struct ytree_node *map, const char *where,
                   const char *const *keys, size_t nkeys);
/* cfg_check_keys with the keys of one of the reader's key sections ("" for the top). */
int cfg_check_section(struct loader *ld, const struct ytree_node *map, const char *section);
/* A parameter's name (letters, digits, '_'; not seed or index); where ends the message. */
int cfg_check_param_name(struct loader *ld, const struct ytree_node *key, const char *where);
int cfg_parse_int64(int64_t *out, const char *s);
int cfg_get_string(struct loader *ld, char **out, const struct ytree_node *n, const char *path);
int cfg_get_positive(struct loader *ld, unsigned *out, const struct ytree_node *n,
                     const char *path);
int cfg_get_bool(struct loader *ld, bool *out, const struct ytree_node *n, const char *path);
/* A value for an #SBATCH line (sbopt_check_value); allow_percent for file names. */
int cfg_get_sbatch_value(struct loader *ld, char **out, const struct ytree_node *n,
                         const char *path, int allow_percent);

/* {seed}, {index} (= {task}: the task's index) and {sweep} (the sweep's id). */
#define CFG_NBUILTIN 4
extern const char *const cfg_builtin_placeholders[CFG_NBUILTIN];

/* cfg_cross.c: the checks across sections, once every section is read. */
int cfg_check_whole(struct loader *ld, const struct ytree_node *root);

/* cfg_slurm.c: the `slurm:` section, the warning signal's defaults, `pack` checks. */
int cfg_read_slurm(struct loader *ld, const struct ytree_node *map);
int cfg_check_signal_time(struct loader *ld);
void cfg_default_signal(struct cfg *cfg);
int cfg_check_pack(struct loader *ld);

/* cfg_sections.c: `env:`, `checkpoint:`, `metrics:`, `notify:` and `results:`. */
int cfg_read_env(struct loader *ld, const struct ytree_node *map);
int cfg_read_checkpoint(struct loader *ld, const struct ytree_node *map);
/* cfg_stage.c: `stage:`, the list of tars and folders copied node-local. */
int cfg_read_stage(struct loader *ld, const struct ytree_node *list);
int cfg_read_metrics(struct loader *ld, const struct ytree_node *map);
int cfg_read_notify(struct loader *ld, const struct ytree_node *map);
int cfg_read_results(struct loader *ld, const struct ytree_node *map);

/* cfg_sample.c: `sample:`, and `trials`, `sample_seed`, `sample_digits` (key says which). */
int cfg_read_sample(struct loader *ld, const struct ytree_node *map);
int cfg_read_sample_key(struct loader *ld, const struct ytree_node *key,
                        const struct ytree_node *v);
/* Once every section is read: the keys that go together, no name sampled twice. */
int cfg_check_sample(struct loader *ld, const struct ytree_node *root);
void cfg_release_sample(struct cfg *cfg);

#endif
