#ifndef SWEEP_REUSE_H
#define SWEEP_REUSE_H

#include <stddef.h>

struct cfg;
struct plan;

/*
 * Which tasks of an earlier sweep a new one can reuse (submit --extend).
 * Pure: strings and plans in, indices out.
 *
 * Two tasks are the same computation when their sweeps' recipes are equal
 * (the command text, the setup lines, the environment and the script
 * template's text) and the tasks have the same setting (the same parameter
 * names with the same values, in any order) and the same seed.
 */

/*
 * The recipe of a sweep as canonical text (caller frees): JSON with the
 * command, setup, env (sorted by name) and the template's text.
 */
char *reuse_recipe(const struct cfg *cfg, const char *template_text);

/*
 * NULL when the recipes a and b are the same; else what differs, in words
 * ("the command text", "the setup", "the environment", "the script
 * template"; static). A recipe that cannot be read differs as "the recipe".
 */
const char *reuse_recipe_diff(const char *a, const char *b);

/* No task of the other plan matches. */
#define REUSE_NONE ((size_t)-1)

/*
 * For every task j of want, out[j] = the index of the task of have with
 * the same setting and seed, or REUSE_NONE. out has want->ntasks entries.
 */
void reuse_match(size_t *out, const struct plan *want, const struct plan *have);

/*
 * For every setting s of want that no setting of have equals, the setting
 * of have it was edited from: one that has the same parameter names,
 * differs in exactly one value and that no setting of want equals; each
 * setting of have is taken once, the first that fits. out[s] = that
 * setting and param[s] = the parameter (of want) whose value changed, or
 * out[s] = REUSE_NONE (a new setting, or one have has as it is). out and
 * param have want->nsettings entries.
 */
void reuse_changed_settings(size_t *out, size_t *param, const struct plan *want,
                            const struct plan *have);

#endif
