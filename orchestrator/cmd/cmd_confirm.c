/*
 * sweep confirm: the best settings of a finished sweep, run again on seeds
 * it did not use, so that the number a paper prints is not the winner's
 * curse. Writes a sweep file for them (the sweep's own, with its settings
 * replaced by the K best as `cases:`, its seeds by fresh ones, and
 * `confirm_of:` naming the sweep) into the sweep's folder and submits it as
 * `sweep submit` does, from the folder the sweep was submitted from, on the
 * same backend. The link lives in the new sweep's own file, so it is
 * recorded with the sweep in one transaction.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yaml.h>

#include "cfg.h"
#include "cli.h"
#include "compare.h"
#include "confirm.h"
#include "confirms.h"
#include "error.h"
#include "gate.h"
#include "loaded.h"
#include "path.h"
#include "plan.h"
#include "report.h"
#include "store.h"
#include "strbuf.h"
#include "verdict.h"

#include "banned.h"

static const char usage[] = "sweep confirm [SWEEP] [--top K] [--seeds M] [--goal METRIC=max|min] "
                            "[--resources-from SWEEP] [--dry-run] [--state-dir DIR]";
static const char options[] =
    "options:\n"
    "  --top K              the K best settings by the sweep's goal (default 3)\n"
    "  --seeds M            each on M seeds that neither the sweep nor an earlier\n"
    "                       confirm of it used (default: as many as the sweep had)\n"
    "  --goal METRIC=max|min  the metric to rank by, over the sweep file's `metrics:`\n"
    "  --resources-from SWEEP  --mem and --time from that sweep's tasks (as submit)\n"
    "  --dry-run            print the sweep file and the plan; submit nothing\n"
    "  --state-dir DIR      the state folder (default $SWEEP_STATE_DIR or .sweep)\n"
    "  -h, --help           show this help\n";

#define MAX_SEEDS 1000000

struct confirm_opts {
	const char *which, *state_dir, *resources_from;
	size_t top, nseeds;
	bool dry_run;
	struct compare_goals goals;
};

static int parse_count(size_t *out, const char *name, const char *text)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(text, &end, 10);
	if (end == text || *end || errno || n < 1 || n > MAX_SEEDS)
		return error("--%s takes a whole number from 1 to %d, not '%s'", name, MAX_SEEDS,
		             text);
	*out = (size_t)n;
	return 0;
}

static int parse_options(struct confirm_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"top", required_argument, NULL, 'T'},
	    {"seeds", required_argument, NULL, 'S'},
	    {"goal", required_argument, NULL, 'g'},
	    {"resources-from", required_argument, NULL, 'r'},
	    {"dry-run", no_argument, NULL, 'n'},
	    {"state-dir", required_argument, NULL, 's'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int opt, code;

	o->top = 3;
	cli_getopt_start();
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'T':
			if (parse_count(&o->top, "top", optarg) < 0)
				return cli_usage(stderr, usage, options);
			break;
		case 'S':
			if (parse_count(&o->nseeds, "seeds", optarg) < 0)
				return cli_usage(stderr, usage, options);
			break;
		case 'g':
			if (compare_goals_parse(&o->goals, optarg) < 0)
				return cli_usage(stderr, usage, options);
			break;
		case 'r':
			o->resources_from = optarg;
			break;
		case 'n':
			o->dry_run = true;
			break;
		default:
			code = cli_common_option(opt, &o->state_dir, argv, longopts, usage, options);
			if (code != CLI_CONTINUE)
				return code;
		}
	}
	return cli_take_sweep(&o->which, argc, argv, usage, options);
}

/* What confirm takes from the sweep: its best settings and the seeds it may not use. */
struct choice {
	size_t *settings; /* the K best, best first */
	size_t n;
	char *metric; /* ranked by */
	enum compare_goal goal;
	int64_t *used; /* seeds of the sweep and of every earlier confirm of it */
	size_t nused;
	unsigned earlier; /* other sweeps of its family (confirms of it, or what it confirms) */
};

static void choice_release(struct choice *c)
{
	free(c->settings);
	free(c->metric);
	free(c->used);
	memset(c, 0, sizeof(*c));
}

/* The K best settings of a complete sweep (report's ranking: its first metric with a goal). */
static int rank(struct choice *out, const struct verdict *v, const struct compare_goals *goals,
                size_t top, const struct sweep_rec *rec)
{
	enum compare_goal *by = xcalloc(v->gate.nmetrics ? v->gate.nmetrics : 1, sizeof(*by));
	struct report rep;
	size_t m = 0;
	int ret = 0;

	report_init(&rep);
	for (size_t i = 0; i < v->gate.nmetrics; i++)
		by[i] = compare_goals_get(goals, v->gate.metrics[i]);
	while (m < v->gate.nmetrics && by[m] == GOAL_NONE)
		m++;
	if (m == v->gate.nmetrics) {
		ret = error("sweep %" PRId64 " '%s' has no goal to rank its settings by: give "
		            "--goal METRIC=max|min, or `metrics: {METRIC: max}` in the sweep file",
		            rec->id, rec->name);
		goto out;
	}
	report_build(&rep, v->plan, &v->gate, v->results);
	report_rank(&rep, by);
	report_order(&rep, top);
	out->n = report_nshown(&rep);
	out->settings = xcalloc(out->n ? out->n : 1, sizeof(*out->settings));
	for (size_t i = 0; i < out->n; i++)
		out->settings[i] = report_shown(&rep, i);
	out->metric = xstrdup(v->gate.metrics[m]);
	out->goal = by[m];
out:
	report_release(&rep);
	free(by);
	return ret;
}

/* ---- The sweep file of the confirm -------------------------------------- */

/* Keys of the sweep's file that say which settings and seeds run: replaced. */
static bool replaced_key(const char *k)
{
	static const char *const keys[] = {"name",   "seeds",  "grid",        "zip",
	                                   "cases",  "sample", "trials",      "sample_seed",
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

/* `cases:` of the chosen settings: each parameter's value, as the command received it. */
static int add_cases(yaml_document_t *d, const struct plan *plan, const struct choice *c)
{
	int seq = yaml_document_add_sequence(d, NULL, YAML_BLOCK_SEQUENCE_STYLE);

	for (size_t i = 0; seq && i < c->n; i++) {
		int map = yaml_document_add_mapping(d, NULL, YAML_FLOW_MAPPING_STYLE);

		for (size_t p = 0; map && p < plan->nparams; p++) {
			const char *value = plan->values[c->settings[i] * plan->nparams + p];

			if (value &&
			    !yaml_document_append_mapping_pair(
			        d, map, add_text(d, plan->params[p], YAML_PLAIN_SCALAR_STYLE),
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

/*
 * The sweep file of the confirm: the sweep's stored file with its settings
 * and seeds replaced, and `confirm_of:`. Into out.
 */
static int confirm_file(struct strbuf *out, const char *spec, const struct sweep_rec *rec,
                        const struct plan *plan, const struct choice *c, const int64_t *seeds,
                        size_t nseeds)
{
	yaml_parser_t parser;
	yaml_emitter_t emitter;
	yaml_document_t src, dst;
	yaml_node_t *top;
	char name[128], id[32];
	int root, ok = 1;

	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)spec, strlen(spec));
	if (!yaml_parser_load(&parser, &src)) {
		yaml_parser_delete(&parser);
		return error("the sweep file of sweep %" PRId64 " no longer reads", rec->id);
	}
	yaml_parser_delete(&parser);
	top = yaml_document_get_root_node(&src);
	if (!top || top->type != YAML_MAPPING_NODE) {
		yaml_document_delete(&src);
		return error("the sweep file of sweep %" PRId64 " is not a mapping", rec->id);
	}
	yaml_document_initialize(&dst, NULL, NULL, NULL, 1, 1);
	root = yaml_document_add_mapping(&dst, NULL, YAML_BLOCK_MAPPING_STYLE);
	/* The name sweep report NAME finds it by; a job name of at most 100 bytes. */
	snprintf(name, sizeof(name), "%.92s-confirm", rec->name);
	snprintf(id, sizeof(id), "%" PRId64, rec->id);
	ok = root && yaml_document_append_mapping_pair(
	                 &dst, root, add_text(&dst, "name", YAML_PLAIN_SCALAR_STYLE),
	                 add_text(&dst, name, YAML_PLAIN_SCALAR_STYLE));
	ok = ok && yaml_document_append_mapping_pair(
	               &dst, root, add_text(&dst, "confirm_of", YAML_PLAIN_SCALAR_STYLE),
	               add_text(&dst, id, YAML_PLAIN_SCALAR_STYLE));
	for (yaml_node_pair_t *p = top->data.mapping.pairs.start;
	     ok && p < top->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(&src, p->key);

		if (k->type == YAML_SCALAR_NODE && replaced_key((const char *)k->data.scalar.value))
			continue;
		ok = add_pair(&dst, root, &src, p, rec->source);
	}
	ok = ok && yaml_document_append_mapping_pair(
	               &dst, root, add_text(&dst, "seeds", YAML_PLAIN_SCALAR_STYLE),
	               add_seed_list(&dst, seeds, nseeds));
	ok = ok && yaml_document_append_mapping_pair(
	               &dst, root, add_text(&dst, "cases", YAML_PLAIN_SCALAR_STYLE),
	               add_cases(&dst, plan, c));
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

/* ---- The command ----------------------------------------------------------- */

static void print_plan(const struct confirm_opts *o, const struct sweep_rec *rec,
                       const struct plan *plan, const struct choice *c, const int64_t *seeds,
                       size_t nseeds)
{
	struct strbuf sb = STRBUF_INIT;

	printf("confirming the best %zu of %zu settings of sweep %" PRId64 " '%s' by %s (%s):\n",
	       c->n, plan->nsettings, rec->id, rec->name, c->metric, compare_goal_name(c->goal));
	for (size_t i = 0; i < c->n; i++) {
		printf("  %zu.", i + 1);
		for (size_t p = 0; p < plan->nparams; p++) {
			const char *v = plan->values[c->settings[i] * plan->nparams + p];

			if (v && plan->varies[p])
				printf(" %s=%s", plan->params[p], v);
		}
		printf("\n");
	}
	confirm_add_provenance(&sb, rec->id, plan->seeds, plan->nseeds, seeds, nseeds);
	printf("%s%s\n", sb.buf,
	       c->earlier ? " (and not the seeds of the related confirm sweeps)" : "");
	if (o->dry_run)
		printf("\n");
	strbuf_release(&sb);
}

/* Writes the file as <sweep dir>/confirm-N.yaml, N the first free; the caller frees *path. */
static int save(char **path, const struct sweep_rec *rec, const struct strbuf *file)
{
	for (unsigned n = 1; n < 10000; n++) {
		int fd;

		*path = xstrfmt("%s/confirm-%u.yaml", rec->dir, n);
		fd = open(*path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		          PATH_PRIVATE_FILE);
		if (fd >= 0) {
			ssize_t w = fchmod(fd, PATH_PRIVATE_FILE) < 0 ? -1
			                                              : write(fd, file->buf, file->len);

			if (close(fd) < 0 || w != (ssize_t)file->len)
				return error("cannot write '%s': %s", *path, strerror(errno));
			return 0;
		}
		if (errno != EEXIST)
			return error("cannot create '%s': %s", *path, strerror(errno));
		free(*path);
	}
	*path = NULL;
	return error("too many confirm files in '%s'", rec->dir);
}

/* sweep submit FILE, in workdir, on the sweep's backend. */
static int submit(const struct confirm_opts *o, const char *file, const char *state_dir,
                  const struct sweep_rec *rec, const char *workdir)
{
	char *argv[10];
	int argc = 0;

	if (chdir(workdir) < 0)
		return error("cannot go to '%s', where sweep %" PRId64 " was submitted from: %s",
		             workdir, rec->id, strerror(errno));
	argv[argc++] = "submit";
	argv[argc++] = (char *)file;
	argv[argc++] = "--state-dir";
	argv[argc++] = (char *)state_dir;
	if (!strcmp(rec->backend, "local"))
		argv[argc++] = "--local";
	if (o->resources_from) {
		argv[argc++] = "--resources-from";
		argv[argc++] = (char *)o->resources_from;
	}
	if (o->dry_run)
		argv[argc++] = "--dry-run";
	argv[argc] = NULL;
	return cmd_submit(argc, argv);
}

int cmd_confirm(int argc, char **argv)
{
	struct confirm_opts o = {0};
	struct loaded_sweep l;
	struct verdict v;
	struct choice c = {0};
	struct compare_goals goals;
	struct strbuf file = STRBUF_INIT;
	char *workdir = NULL, *path = NULL, *state_dir = NULL, *cwd = NULL;
	int64_t *seeds = NULL;
	size_t nseeds;
	int ret = EXIT_ERROR, code, lock_fd = -1;

	loaded_init(&l);
	verdict_init(&v);
	compare_goals_init(&o.goals);
	compare_goals_init(&goals);
	code = parse_options(&o, argc, argv);
	if (code != CLI_CONTINUE) {
		ret = code;
		goto out;
	}
	cwd = getcwd(NULL, 0);
	state_dir = path_absolute(cli_state_dir(o.state_dir), cwd ? cwd : ".");
	if (loaded_open(&l, state_dir, o.which) < 0 || loaded_plan(&l) < 0 ||
	    loaded_outcomes(&l) < 0 || verdict_check_loaded(&v, &l, NULL, 0) < 0)
		goto out;
	/* The completeness gate: the best of a sweep with holes is not known. */
	if (!gate_complete(&v.gate)) {
		error("sweep %" PRId64 " '%s' is incomplete (%zu of %zu tasks missing or failed): its "
		      "best settings are not known; sweep report %" PRId64 " says which",
		      l.rec.id, l.rec.name, v.gate.nfailures, l.plan.ntasks, l.rec.id);
		goto out;
	}
	for (size_t i = 0; i < v.cfg->nmetrics; i++)
		if (v.cfg->metrics[i].has_goal)
			compare_goals_set(&goals, v.cfg->metrics[i].name,
			                  v.cfg->metrics[i].maximize ? GOAL_MAX : GOAL_MIN);
	/* A --goal for a metric the sweep does not report would rank by the file's goal. */
	if (compare_goals_check(&o.goals, v.gate.metrics, v.gate.nmetrics) < 0)
		goto out;
	for (size_t i = 0; i < o.goals.n; i++)
		compare_goals_set(&goals, o.goals.items[i].name, o.goals.items[i].goal);
	/* Held until submit has recorded the sweep: a confirm beside it waits (confirms.h). */
	if (rank(&c, &v, &goals, o.top, &l.rec) < 0 ||
	    confirms_used_seeds(&c.used, &c.nused, &c.earlier, o.dry_run ? NULL : &lock_fd, l.st,
	                        &l.rec) < 0)
		goto out;
	/* The verdict read the kept sweep file already. */
	if (l.file.state == KEPT_NONE) {
		error("sweep %" PRId64 " was recorded without its sweep file: it cannot be run again",
		      l.rec.id);
		goto out;
	}
	nseeds = o.nseeds ? o.nseeds : l.plan.nseeds;
	seeds = confirm_fresh_seeds(c.used, c.nused, nseeds);
	if (confirm_file(&file, l.file.text, &l.rec, &l.plan, &c, seeds, nseeds) < 0 ||
	    verdict_workdir(&workdir, &l.rec, "the sweep's folder") < 0)
		goto out;
	print_plan(&o, &l.rec, &l.plan, &c, seeds, nseeds);
	if (save(&path, &l.rec, &file) < 0)
		goto out;
	if (o.dry_run)
		printf("# the sweep file, %s:\n%s\n", path, file.buf);
	/* submit opens the store itself; this connection holds no lock meanwhile. */
	ret = submit(&o, path, state_dir, &l.rec, workdir);
	/* A dry run leaves no file behind. */
	if (o.dry_run)
		unlink(path);
out:
	if (lock_fd >= 0)
		close(lock_fd);
	free(seeds);
	free(workdir);
	free(path);
	free(state_dir);
	free(cwd);
	strbuf_release(&file);
	choice_release(&c);
	compare_goals_release(&goals);
	compare_goals_release(&o.goals);
	verdict_release(&v);
	loaded_release(&l);
	return ret;
}
