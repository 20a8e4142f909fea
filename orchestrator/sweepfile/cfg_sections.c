/*
 * The sweep file's smaller sections (cfg.c reads the rest): `env:`,
 * `checkpoint:`, `metrics:`, `notify:` and `results:`. Described in
 * README.md's "Sweep file reference".
 */
#include "cfg.h"

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
#include "banned.h"

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

int cfg_read_env(struct loader *ld, const struct ytree_node *map)
{
	struct cfg *cfg = ld->cfg;
	size_t i;

	if (cfg_expect(ld, map, YTREE_MAP, "env") || cfg_check_keys(ld, map, " in 'env'", NULL, 0))
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
			    cfg_show(ld, key->text));
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

static int read_checkpoint_pattern(struct loader *ld, const struct ytree_node *v)
{
	struct cfg_checkpoint *c = &ld->cfg->checkpoint;

	if (cfg_get_string(ld, &c->pattern, v, "checkpoint.pattern"))
		return SWEEP_ERR;
	if (!*c->pattern || strchr(c->pattern, '/'))
		return AT(ld, v,
		          "'checkpoint.pattern': '%s' is not a file name pattern (a glob such as "
		          "'*.pt', without '/')",
		          cfg_show(ld, c->pattern));
	return 0;
}

int cfg_read_checkpoint(struct loader *ld, const struct ytree_node *map)
{
	struct cfg_checkpoint *c = &ld->cfg->checkpoint;
	const char *why;

	if (cfg_expect(ld, map, YTREE_MAP, "checkpoint") ||
	    cfg_check_section(ld, map, "checkpoint"))
		return SWEEP_ERR;
	for (size_t i = 0; i < map->n; i += 2) {
		const struct ytree_node *key = map->items[i], *v = map->items[i + 1];

		if (!strcmp(key->text, "keep")) {
			if (cfg_get_positive(ld, &c->keep, v, "checkpoint.keep"))
				return SWEEP_ERR;
			c->keep_given = true;
		} else if (!strcmp(key->text, "dir")) {
			if (cfg_get_string(ld, &c->dir, v, "checkpoint.dir"))
				return SWEEP_ERR;
			if (!*c->dir)
				return AT(ld, v, "'checkpoint.dir' is empty");
			ld->checkpoint_dir = v;
		} else if (!strcmp(key->text, "pattern")) {
			if (read_checkpoint_pattern(ld, v))
				return SWEEP_ERR;
		} else {
			if (cfg_expect(ld, v, YTREE_SCALAR, "checkpoint.size"))
				return SWEEP_ERR;
			if (units_parse_mem(&c->size_mb, v->text, &why))
				return AT(ld, v, "'checkpoint.size': bad size '%s': %s",
				          cfg_show(ld, v->text), why);
		}
	}
	if (c->pattern && !c->keep_given)
		return AT(ld, map, "'checkpoint' gives 'pattern' without 'keep'");
	if (!c->keep)
		c->keep = 1;
	return 0;
}

/*
 * A goal: max or min; path names it in the message ("metrics.loss"),
 * expected says what else than a scalar would do.
 */
static int read_goal(struct loader *ld, struct cfg_metric *m, const struct ytree_node *v,
                     const char *path, const char *expected)
{
	if (v->kind != YTREE_SCALAR)
		return AT(ld, v, "'%s': expected %s, found %s", path, expected, ytree_kind_name(v));
	if (strcmp(v->text, "max") && strcmp(v->text, "min"))
		return AT(ld, v, "'%s': expected max or min, found '%s'", path,
		          cfg_show(ld, v->text));
	m->has_goal = true;
	m->maximize = !strcmp(v->text, "max");
	return 0;
}

/* An axis label is drawn on one line: text without control characters. */
static int read_label(struct loader *ld, struct cfg_metric *m, const struct ytree_node *v,
                      const char *path)
{
	if (cfg_get_string(ld, &m->label, v, path))
		return SWEEP_ERR;
	if (!*m->label)
		return AT(ld, v, "'%s' is empty (leave it out to label the axis '%s')", path,
		          cfg_show(ld, m->name));
	for (const char *c = m->label; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return AT(ld, v,
			          "'%s': '%s' holds a control character; a label is one line", path,
			          cfg_show(ld, m->label));
	return 0;
}

/* `loss: {goal: min, label: "train loss (nats)"}`: either key, or both. */
static int read_metric_map(struct loader *ld, struct cfg_metric *m, const struct ytree_node *map,
                           const char *path)
{
	static const char *const keys[] = {"goal", "label"};
	char *where = xstrfmt(" in '%s'", path), *sub = NULL;
	int ret = cfg_check_keys(ld, map, where, keys, ARRAY_SIZE(keys));

	for (size_t i = 0; !ret && i < map->n; i += 2) {
		const struct ytree_node *key = map->items[i], *v = map->items[i + 1];

		free(sub);
		sub = xstrfmt("%s.%s", path, key->text);
		if (!strcmp(key->text, "goal"))
			ret = read_goal(ld, m, v, sub, "max or min");
		else
			ret = read_label(ld, m, v, sub);
	}
	if (!ret && !map->n)
		ret = AT(ld, map,
		         "'%s' is empty: give 'goal: max' or 'min', 'label: TEXT', or both", path);
	free(sub);
	free(where);
	return ret;
}

int cfg_read_metrics(struct loader *ld, const struct ytree_node *map)
{
	struct cfg *cfg = ld->cfg;

	if (cfg_expect(ld, map, YTREE_MAP, "metrics") ||
	    cfg_check_keys(ld, map, " in 'metrics'", NULL, 0))
		return SWEEP_ERR;
	cfg->metrics = xcalloc(map->n / 2 + 1, sizeof(*cfg->metrics));
	for (size_t i = 0; i < map->n; i += 2) {
		const struct ytree_node *key = map->items[i], *v = map->items[i + 1];
		struct cfg_metric *m = &cfg->metrics[cfg->nmetrics++];
		char *path = xstrfmt("metrics.%s", cfg_show(ld, key->text));
		int ret;

		m->name = xstrdup(key->text);
		m->line = key->line;
		m->column = key->column;
		if (v->kind == YTREE_MAP)
			ret = read_metric_map(ld, m, v, path);
		else
			ret = read_goal(ld, m, v, path, "max, min or {goal: max|min, label: TEXT}");
		free(path);
		if (ret)
			return SWEEP_ERR;
	}
	return 0;
}

/* A mail address goes to sbatch's --mail-user on a command line: one word. */
static int read_mail(struct loader *ld, const struct ytree_node *v)
{
	const char *m;

	if (cfg_get_string(ld, &ld->cfg->notify.mail, v, "notify.mail"))
		return SWEEP_ERR;
	m = ld->cfg->notify.mail;
	if (!*m || *m == '-' || strlen(m) > 256)
		return AT(ld, v, "'notify.mail': expected a mail address, found '%s'",
		          cfg_show(ld, m));
	for (const char *p = m; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == '\'' || *p == '"' || *p == '\\' || *p == 0x7f)
			return AT(ld, v,
			          "'notify.mail': '%s' is not a mail address (no spaces, quotes, "
			          "backslashes or control characters)",
			          cfg_show(ld, m));
	return 0;
}

int cfg_read_notify(struct loader *ld, const struct ytree_node *map)
{
	struct cfg_notify *n = &ld->cfg->notify;

	if (cfg_expect(ld, map, YTREE_MAP, "notify") || cfg_check_section(ld, map, "notify"))
		return SWEEP_ERR;
	for (size_t i = 0; i < map->n; i += 2) {
		const struct ytree_node *key = map->items[i], *v = map->items[i + 1];

		if (!strcmp(key->text, "mail")) {
			if (read_mail(ld, v))
				return SWEEP_ERR;
		} else {
			if (cfg_get_string(ld, &n->command, v, "notify.command"))
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

bool cfg_results_in_sweep_result(const struct cfg_results *r)
{
	return !r->given || (r->file && !strcmp(r->file, CFG_SWEEP_RESULT));
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

/*
 * A pattern of `results:` (path names it, "results.log.acc" or
 * "results.step"): a valid POSIX ERE, without Perl's \d, with a group for
 * the number.
 */
static int check_pattern(struct loader *ld, const struct ytree_node *v, const char *path)
{
	char msg[256];
	regex_t re;
	int rc;

	if (perl_digit(v->text))
		return AT(ld, v,
		          "'%s': '\\d' in '%s' is not POSIX extended syntax (it would match a "
		          "'d'): write [0-9]",
		          path, cfg_show(ld, v->text));
	rc = regcomp(&re, v->text, REG_EXTENDED);
	if (rc) {
		regerror(rc, &re, msg, sizeof(msg));
		if (msg[0] >= 'A' && msg[0] <= 'Z')
			msg[0] = (char)(msg[0] - 'A' + 'a');
		return AT(ld, v,
		          "'%s': invalid regular expression '%s': %s (POSIX extended syntax)", path,
		          cfg_show(ld, v->text), msg);
	}
	rc = re.re_nsub < 1;
	regfree(&re);
	if (rc)
		return AT(ld, v,
		          "'%s': the pattern '%s' has no group: put the number in parentheses, "
		          "e.g. '%s'",
		          path, cfg_show(ld, v->text),
		          strcmp(path, "results.step") ? "loss: ([0-9.eE+-]+)" : "epoch ([0-9]+)");
	return 0;
}

static int read_log_metrics(struct loader *ld, const struct ytree_node *map)
{
	struct cfg_results *r = &ld->cfg->results;

	if (cfg_expect(ld, map, YTREE_MAP, "results.log") ||
	    cfg_check_keys(ld, map, " in 'results.log'", NULL, 0))
		return SWEEP_ERR;
	if (!map->n)
		return AT(ld, map, "'results.log' names no metric");
	r->log = xcalloc(map->n / 2, sizeof(*r->log));
	for (size_t i = 0; i < map->n; i += 2) {
		const struct ytree_node *key = map->items[i], *v = map->items[i + 1];
		char *path = xstrfmt("results.log.%s", key->text);
		int ret = cfg_expect(ld, v, YTREE_SCALAR, path);

		free(path);
		if (ret)
			return SWEEP_ERR;
		if (!*key->text)
			return AT(ld, key, "'results.log': a metric needs a name");
		path = xstrfmt("results.log.%s", cfg_show(ld, key->text));
		ret = check_pattern(ld, v, path);
		free(path);
		if (ret)
			return SWEEP_ERR;
		r->log[r->nlog].name = xstrdup(key->text);
		r->log[r->nlog++].pattern = xstrdup(v->text);
	}
	return 0;
}

int cfg_read_results(struct loader *ld, const struct ytree_node *map)
{
	struct cfg_results *r = &ld->cfg->results;
	const struct ytree_node *step = NULL;

	if (cfg_expect(ld, map, YTREE_MAP, "results") || cfg_check_section(ld, map, "results"))
		return SWEEP_ERR;
	r->given = true;
	for (size_t i = 0; i < map->n; i += 2) {
		const struct ytree_node *key = map->items[i], *v = map->items[i + 1];

		if (!strcmp(key->text, "log")) {
			if (read_log_metrics(ld, v))
				return SWEEP_ERR;
			continue;
		}
		if (!strcmp(key->text, "step")) {
			if (cfg_get_string(ld, &r->step, v, "results.step") ||
			    check_pattern(ld, v, "results.step"))
				return SWEEP_ERR;
			step = v;
			continue;
		}
		if (cfg_get_string(ld, &r->file, v, "results.file"))
			return SWEEP_ERR;
		if (!*r->file)
			return AT(ld, v, "'results.file' is empty");
		if (cfg_results_format_of(&r->format, r->file))
			return AT(ld, v,
			          "'results.file': cannot tell the format of '%s' from its name: "
			          "end it in .json (an object), .jsonl or .ndjson (JSON Lines: the "
			          "last line) or .csv (a header, then the last row)",
			          cfg_show(ld, r->file));
		ld->results_file = v;
	}
	if (!r->file && !r->nlog)
		return AT(ld, map, "'results' needs 'file', 'log' or both");
	if (step && !r->nlog)
		return AT(ld, step,
		          "'results.step' goes with 'log': name the metrics of the learning curves "
		          "in 'results.log'");
	return 0;
}
