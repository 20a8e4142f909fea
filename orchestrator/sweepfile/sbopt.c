#include "sbopt.h"

#include <assert.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "banned.h"

enum arg_kind {
	ARG_NONE, /* "--hold" only */
	ARG_REQ,  /* "--name=value" only */
	ARG_OPT,  /* either */
};

struct sb_option {
	const char *name;
	enum arg_kind arg;
};

/*
 * The long options of sbatch 22.05.8, from its man page and --help, each
 * checked against the binary ("sbatch --NAME" and "sbatch --NAME=1": an
 * unknown name is "unrecognized", and the answers tell which take a value).
 * sbatch's getopt also accepts any unique abbreviation; sweep does not, so
 * that a later option cannot make an abbreviation ambiguous.
 */
static const struct sb_option options[] = {
    {"account", ARG_REQ},
    {"acctg-freq", ARG_REQ},
    {"array", ARG_REQ},
    {"batch", ARG_REQ},
    {"bb", ARG_REQ},
    {"bbf", ARG_REQ},
    {"begin", ARG_REQ},
    {"chdir", ARG_REQ},
    {"cluster-constraint", ARG_REQ},
    {"clusters", ARG_REQ},
    {"comment", ARG_REQ},
    {"constraint", ARG_REQ},
    {"container", ARG_REQ},
    {"contiguous", ARG_NONE},
    {"core-spec", ARG_REQ},
    {"cores-per-socket", ARG_REQ},
    {"cpu-freq", ARG_REQ},
    {"cpus-per-gpu", ARG_REQ},
    {"cpus-per-task", ARG_REQ},
    {"deadline", ARG_REQ},
    {"delay-boot", ARG_REQ},
    {"dependency", ARG_REQ},
    {"distribution", ARG_REQ},
    {"error", ARG_REQ},
    {"exclude", ARG_REQ},
    {"exclusive", ARG_OPT},
    {"export", ARG_REQ},
    {"export-file", ARG_REQ},
    {"extra-node-info", ARG_REQ},
    {"get-user-env", ARG_OPT},
    {"gid", ARG_REQ},
    {"gpu-bind", ARG_REQ},
    {"gpu-freq", ARG_REQ},
    {"gpus", ARG_REQ},
    {"gpus-per-node", ARG_REQ},
    {"gpus-per-socket", ARG_REQ},
    {"gpus-per-task", ARG_REQ},
    {"gres", ARG_REQ},
    {"gres-flags", ARG_REQ},
    {"help", ARG_NONE},
    {"hint", ARG_REQ},
    {"hold", ARG_NONE},
    {"ignore-pbs", ARG_NONE},
    {"input", ARG_REQ},
    {"job-name", ARG_REQ},
    {"kill-on-invalid-dep", ARG_REQ},
    {"licenses", ARG_REQ},
    {"mail-type", ARG_REQ},
    {"mail-user", ARG_REQ},
    {"mcs-label", ARG_REQ},
    {"mem", ARG_REQ},
    {"mem-bind", ARG_REQ},
    {"mem-per-cpu", ARG_REQ},
    {"mem-per-gpu", ARG_REQ},
    {"mincpus", ARG_REQ},
    {"network", ARG_REQ},
    {"nice", ARG_OPT},
    {"no-kill", ARG_OPT},
    {"no-requeue", ARG_NONE},
    {"nodefile", ARG_REQ},
    {"nodelist", ARG_REQ},
    {"nodes", ARG_REQ},
    {"ntasks", ARG_REQ},
    {"ntasks-per-core", ARG_REQ},
    {"ntasks-per-gpu", ARG_REQ},
    {"ntasks-per-node", ARG_REQ},
    {"ntasks-per-socket", ARG_REQ},
    {"open-mode", ARG_REQ},
    {"output", ARG_REQ},
    {"overcommit", ARG_NONE},
    {"oversubscribe", ARG_NONE},
    {"parsable", ARG_NONE},
    {"partition", ARG_REQ},
    {"power", ARG_REQ},
    {"prefer", ARG_REQ},
    {"priority", ARG_REQ},
    {"profile", ARG_REQ},
    {"propagate", ARG_OPT},
    {"qos", ARG_REQ},
    {"quiet", ARG_NONE},
    {"reboot", ARG_NONE},
    {"requeue", ARG_NONE},
    {"reservation", ARG_REQ},
    {"signal", ARG_REQ},
    {"sockets-per-node", ARG_REQ},
    {"spread-job", ARG_NONE},
    {"switches", ARG_REQ},
    {"test-only", ARG_NONE},
    {"thread-spec", ARG_REQ},
    {"threads-per-core", ARG_REQ},
    {"time", ARG_REQ},
    {"time-min", ARG_REQ},
    {"tmp", ARG_REQ},
    {"uid", ARG_REQ},
    {"usage", ARG_NONE},
    {"use-min-nodes", ARG_NONE},
    {"verbose", ARG_NONE},
    {"version", ARG_NONE},
    {"wait", ARG_NONE},
    {"wait-all-nodes", ARG_REQ},
    {"wckey", ARG_REQ},
    {"wrap", ARG_REQ},
};

#define NOPTIONS (sizeof(options) / sizeof(options[0]))

/*
 * Options sweep writes itself or that would break a submission. Either key
 * (the sweep file key to use instead) or note (why not) is set.
 */
struct reserved {
	const char *name;
	const char *key;
	const char *note;
};

static const struct reserved reserved[] = {
    {"account", "slurm.account", NULL},
    {"array", NULL, "sweep writes --array itself (the %K throttle is 'slurm.max_concurrent')"},
    {"chdir", NULL, "sweep sets the working folder itself"},
    {"clusters", NULL, "sweep submits to and reads accounting from the local cluster only"},
    {"constraint", "slurm.constraint", NULL},
    {"cpus-per-task", "slurm.cpus_per_task", NULL},
    {"error", NULL, "sweep sets the log files itself (the folder is the 'logs' key)"},
    {"export", NULL,
     "tasks get the submitting environment and their values from sweep; set variables "
     "with 'env'"},
    {"export-file", NULL,
     "tasks get the submitting environment and their values from sweep; set variables "
     "with 'env'"},
    {"gpus-per-task", "slurm.gpus_per_task", NULL},
    {"gres", "slurm.gres", NULL},
    {"help", NULL, "sbatch would print help and submit nothing"},
    {"job-name", "name", NULL},
    {"mem", "slurm.mem", NULL},
    {"mem-per-cpu", "slurm.mem_per_cpu", NULL},
    {"nodes", "slurm.nodes", NULL},
    {"open-mode", NULL,
     "sweep writes --open-mode=append itself, so that a requeued task adds to its logs"},
    {"ntasks", "slurm.ntasks", NULL},
    {"output", NULL, "sweep sets the log files itself (the folder is the 'logs' key)"},
    {"parsable", NULL, "sweep passes it to sbatch itself"},
    {"partition", "slurm.partition", NULL},
    {"qos", "slurm.qos", NULL},
    {"signal", "slurm.signal", NULL},
    {"test-only", NULL, "sbatch would submit nothing"},
    {"time", "slurm.time", NULL},
    {"usage", NULL, "sbatch would print its usage and submit nothing"},
    {"version", NULL, "sbatch would print its version and submit nothing"},
    {"wait", NULL, "sbatch would block until the whole array has ended"},
    {"wrap", NULL, "sweep writes the batch script itself"},
};

static int refuse(const char **why, const char *text)
{
	if (why)
		*why = text;
	return -1;
}

int sbopt_check_value(const char *value, int allow_percent, const char **why)
{
	const unsigned char *p;

	if (!*value)
		return refuse(why, "empty value");
	if (strlen(value) > SBOPT_MAX_VALUE)
		return refuse(why, "longer than 1024 bytes");
	for (p = (const unsigned char *)value; *p; p++) {
		if (*p < 0x20 || *p == 0x7f)
			return refuse(why, "control characters (newline, tab...) are not allowed");
		if (*p == '"' || *p == '\'')
			return refuse(why, "quotes are not allowed (sbatch's #SBATCH parser would "
			                   "take them as its own)");
		if (*p == '\\')
			return refuse(why, "backslashes are not allowed (sbatch's #SBATCH parser "
			                   "reads them as escapes)");
		if (*p == '%' && !allow_percent)
			return refuse(why,
			              "'%' is not allowed here (sbatch expands %x, %A, %a... in "
			              "file names)");
	}
	return 0;
}

static int needs_quotes(const char *value)
{
	const unsigned char *p;

	for (p = (const unsigned char *)value; *p; p++)
		if (*p == '#' || *p == ' ' || (*p < 0x80 && isspace(*p)))
			return 1;
	return 0;
}

size_t sbopt_render(char *out, size_t size, const char *value)
{
	int quote = needs_quotes(value);
	size_t len = strlen(value);
	size_t need = len + (quote ? 2 : 0);

	assert(size > need);
	if (size <= need)
		return 0;
	if (quote)
		snprintf(out, size, "\"%s\"", value);
	else
		snprintf(out, size, "%s", value);
	return need;
}

static const struct sb_option *find_option(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < NOPTIONS; i++)
		if (strlen(options[i].name) == len && !memcmp(options[i].name, name, len))
			return &options[i];
	return NULL;
}

/*
 * Appends to sb the options that name abbreviates, as getopt would take
 * them; returns how many there are.
 */
static size_t find_abbreviated(struct strbuf *sb, const char *name, size_t len)
{
	size_t i, n = 0;

	for (i = 0; i < NOPTIONS; i++) {
		if (strncmp(options[i].name, name, len))
			continue;
		strbuf_addf(sb, "%s'--%s'", n ? ", " : "", options[i].name);
		n++;
	}
	return n;
}

static const struct reserved *find_reserved(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
		if (!strcmp(reserved[i].name, name))
			return &reserved[i];
	return NULL;
}

/* Lower-case letters, digits and '-' make sbatch's names; upper case and '_' are let through
 * to the lookup so that "--Mem" or "--cpus_per_task" get a suggestion. */
static int valid_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_';
}

int sbopt_check_extra(const char *arg, char **why)
{
	struct strbuf sb = STRBUF_INIT;
	const char *name, *eq, *value = NULL;
	const struct sb_option *opt;
	const struct reserved *res;
	const char *vwhy;
	char *name_z = NULL;
	size_t len, i;
	int ret = -1;

	if (arg[0] != '-' || arg[1] != '-' || !valid_name_char(arg[2]) || arg[2] == '-') {
		strbuf_addch(&sb, '\'');
		strbuf_add_shown(&sb, arg);
		strbuf_addstr(&sb, "' is not a long sbatch option: write --name or --name=value");
		goto out;
	}
	name = arg + 2;
	eq = strchr(name, '=');
	len = eq ? (size_t)(eq - name) : strlen(name);
	for (i = 0; i < len; i++) {
		if (valid_name_char(name[i]))
			continue;
		strbuf_addch(&sb, '\'');
		strbuf_add_shown(&sb, arg);
		if (name[i] == ' ')
			strbuf_addstr(&sb, "': write the value after '=', as in --name=value");
		else
			strbuf_addstr(&sb, "' is not a valid option name");
		goto out;
	}
	name_z = xstrndup(name, len);

	opt = find_option(name, len);
	if (!opt) {
		struct strbuf full = STRBUF_INIT;
		size_t nfull = find_abbreviated(&full, name, len);
		const char *names[NOPTIONS];
		const char *guess;

		if (nfull == 1)
			strbuf_addf(&sb, "'--%s' is an abbreviation: write %s in full", name_z,
			            full.buf);
		else if (nfull)
			strbuf_addf(&sb, "'--%s' is an abbreviation of %s: write one in full",
			            name_z, full.buf);
		strbuf_release(&full);
		if (nfull)
			goto out;
		for (i = 0; i < NOPTIONS; i++)
			names[i] = options[i].name;
		strbuf_addf(&sb, "unknown sbatch option '--%s'", name_z);
		guess = sbopt_suggest(name_z, names, NOPTIONS);
		if (guess)
			strbuf_addf(&sb, "; did you mean '--%s'?", guess);
		goto out;
	}

	res = find_reserved(opt->name);
	if (res) {
		if (res->key)
			strbuf_addf(&sb, "'--%s' has its own key: use '%s' instead", opt->name,
			            res->key);
		else
			strbuf_addf(&sb, "'--%s' is not allowed in 'slurm.extra': %s", opt->name,
			            res->note);
		goto out;
	}

	if (eq)
		value = eq + 1;
	if (opt->arg == ARG_REQ && !value) {
		strbuf_addf(&sb, "'--%s' needs a value: write --%s=VALUE", opt->name, opt->name);
		goto out;
	}
	if (opt->arg == ARG_NONE && value) {
		strbuf_addf(&sb, "'--%s' takes no value: write just --%s", opt->name, opt->name);
		goto out;
	}
	if (value && sbopt_check_value(value, 1, &vwhy)) {
		strbuf_addf(&sb, "bad value for '--%s': %s", opt->name, vwhy);
		goto out;
	}
	ret = 0;
out:
	free(name_z);
	if (ret)
		*why = strbuf_detach(&sb, NULL);
	else
		strbuf_release(&sb);
	return ret;
}

static const struct sbopt_name *named(const struct sbopt_name *names, size_t nnames,
                                      const char *name, size_t len)
{
	for (size_t i = 0; i < nnames; i++)
		if (strlen(names[i].name) == len && !memcmp(names[i].name, name, len))
			return &names[i];
	return NULL;
}

/* c is never 0: a 0 letter stands for none. */
static const struct sbopt_name *lettered(const struct sbopt_name *names, size_t nnames, char c)
{
	for (size_t i = 0; i < nnames; i++)
		if (names[i].letter == c)
			return &names[i];
	return NULL;
}

int sbopt_read_words(const char *const *words, size_t n, const struct sbopt_name *names,
                     size_t nnames, sbopt_fn fn, void *data)
{
	for (size_t i = 0; i < n; i++) {
		const char *w = words[i], *eq, *value;
		const struct sbopt_name *opt;
		size_t len;
		int ret;

		if (w[0] != '-' || !w[1])
			continue;
		if (w[1] == '-') {
			eq = strchr(w + 2, '=');
			len = eq ? (size_t)(eq - w - 2) : strlen(w + 2);
			opt = named(names, nnames, w + 2, len);
			value = eq ? eq + 1 : NULL;
		} else {
			opt = lettered(names, nnames, w[1]);
			value = w[2] ? w + 2 : NULL;
		}
		/* Other options are skipped: only the named ones are known to take a value. */
		if (!opt)
			continue;
		if (!value && i + 1 < n)
			value = words[++i];
		ret = fn(data, opt->name, value);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* The words of an #SBATCH line: blanks separate, quotes group, a '#' starting a word ends it. */
static size_t split_words(char ***out, const char *s)
{
	size_t n = 0, alloc = 0;
	char **words = NULL;

	for (;;) {
		struct strbuf w = STRBUF_INIT;
		char quote = 0;

		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s || *s == '\n' || *s == '#')
			break;
		for (; *s && *s != '\n'; s++) {
			if (quote) {
				if (*s == quote)
					quote = 0;
				else
					strbuf_addch(&w, *s);
			} else if (*s == '"' || *s == '\'') {
				quote = *s;
			} else if (*s == ' ' || *s == '\t') {
				break;
			} else {
				strbuf_addch(&w, *s);
			}
		}
		ALLOC_GROW(words, n + 1, alloc);
		words[n++] = strbuf_detach(&w, NULL);
	}
	*out = words;
	return n;
}

int sbopt_read_script(const char *text, const struct sbopt_name *names, size_t nnames, sbopt_fn fn,
                      void *data)
{
	const char *line = text;

	/* As sbatch: #SBATCH lines count up to the first line that is not a comment. */
	while (*line) {
		const char *s = line + strspn(line, " \t");
		const char *nl;

		if (*s != '#' && *s != '\n')
			break;
		if (!strncmp(s, "#SBATCH", 7) && (s[7] == ' ' || s[7] == '\t')) {
			char **words;
			size_t n = split_words(&words, s + 7);
			int ret = sbopt_read_words((const char *const *)words, n, names, nnames, fn,
			                           data);

			for (size_t i = 0; i < n; i++)
				free(words[i]);
			free(words);
			if (ret < 0)
				return ret;
		}
		nl = strchr(s, '\n');
		if (!nl)
			break;
		line = nl + 1;
	}
	return 0;
}

static size_t levenshtein(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, d;
	size_t *prev = xmalloc((lb + 1) * sizeof(*prev));
	size_t *cur = xmalloc((lb + 1) * sizeof(*cur));
	size_t *tmp;

	for (j = 0; j <= lb; j++)
		prev[j] = j;
	for (i = 1; i <= la; i++) {
		cur[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
			size_t del = prev[j] + 1;
			size_t ins = cur[j - 1] + 1;

			d = sub < del ? sub : del;
			cur[j] = d < ins ? d : ins;
		}
		tmp = prev;
		prev = cur;
		cur = tmp;
	}
	d = prev[lb];
	free(prev);
	free(cur);
	return d;
}

const char *sbopt_suggest(const char *word, const char *const *names, size_t n)
{
	size_t max = strlen(word) / 3, best_d = (size_t)-1, i;
	const char *best = NULL;

	if (max < 2)
		max = 2;
	for (i = 0; i < n; i++) {
		size_t la = strlen(word), lb = strlen(names[i]), d;

		/* The length difference alone already exceeds the limit. */
		if ((la > lb ? la - lb : lb - la) > max)
			continue;
		d = levenshtein(word, names[i]);
		/* d < la: a name that shares nothing with the word is no suggestion. */
		if (d <= max && d < la && d < best_d) {
			best = names[i];
			best_d = d;
		}
	}
	/* Too far to be a slip, but one is the other spelt out: "memory" for "mem". */
	for (i = 0; !best && i < n; i++) {
		size_t la = strlen(word), lb = strlen(names[i]);

		if (la >= 3 && lb >= 3 && !strncmp(word, names[i], la < lb ? la : lb))
			best = names[i];
	}
	return best;
}
