/*
 * The sweep file's `slurm:` section (cfg.c reads the rest): each #SBATCH
 * value, the warning signal and its defaults, and what `pack` cannot be
 * combined with. Described in README.md's "Sweep file reference".
 */
#include "cfg.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cfg_impl.h"
#include "error.h"
#include "sbopt.h"
#include "strbuf.h"
#include "units.h"
#include "banned.h"

#define DEFAULT_SIGNAL     "USR1"
#define DEFAULT_SIGNAL_SEC 120
/* slurmctld's PERIODIC_TIMEOUT: how early the warning signal may come. */
#define SIGNAL_EARLY_SEC 30

static const char *const signal_names[] = {"USR1", "USR2", "TERM", "INT", "HUP", "QUIT", "ALRM"};

static int read_signal(struct loader *ld, const struct ytree_node *n)
{
	struct cfg_slurm *s = &ld->cfg->slurm;
	const char *text, *at;
	char *name = NULL;
	size_t len, i;
	int64_t sec = DEFAULT_SIGNAL_SEC;
	int ret = SWEEP_ERR;

	if (cfg_expect(ld, n, YTREE_SCALAR, "slurm.signal"))
		return SWEEP_ERR;
	text = n->text;
	if (strchr(text, ':'))
		return AT(ld, n,
		          "'slurm.signal': write '%s' without 'B:' or 'R:' (sweep decides how "
		          "the signal is sent)",
		          cfg_show(ld, text));
	at = strchr(text, '@');
	len = at ? (size_t)(at - text) : strlen(text);
	if (len > 3 && !strncasecmp(text, "SIG", 3)) {
		text += 3;
		len -= 3;
	}
	name = xstrndup(text, len);
	for (i = 0; name[i]; i++)
		if (name[i] >= 'a' && name[i] <= 'z')
			name[i] = (char)(name[i] - 'a' + 'A');
	for (i = 0; i < ARRAY_SIZE(signal_names); i++)
		if (!strcmp(signal_names[i], name))
			break;
	if (i == ARRAY_SIZE(signal_names)) {
		AT(ld, n,
		   "'slurm.signal': unknown signal '%s': use USR1, USR2, TERM, INT, HUP, QUIT or "
		   "ALRM, optionally with @SECONDS",
		   cfg_show(ld, name));
		goto out;
	}
	if (at && (cfg_parse_int64(&sec, at + 1) || at[1] == '-' || sec > 65535)) {
		AT(ld, n,
		   "'slurm.signal': bad seconds in '%s': expected a whole number from 0 to "
		   "65535",
		   cfg_show(ld, n->text));
		goto out;
	}
	free(s->signal);
	s->signal = name;
	name = NULL;
	s->signal_seconds = (unsigned)sec;
	s->signal_explicit = true;
	ret = 0;
out:
	free(name);
	return ret;
}

static int read_extra(struct loader *ld, const struct ytree_node *list)
{
	struct cfg_slurm *s = &ld->cfg->slurm;
	size_t i, j;

	if (cfg_expect(ld, list, YTREE_LIST, "slurm.extra"))
		return SWEEP_ERR;
	s->extra = xcalloc(list->n, sizeof(*s->extra));
	for (i = 0; i < list->n; i++) {
		const struct ytree_node *item = list->items[i];
		char *why;
		size_t len;

		if (item->kind != YTREE_SCALAR || item->null)
			return AT(ld, item,
			          "'slurm.extra': expected a scalar in the list, found %s",
			          ytree_kind_name(item));
		if (sbopt_check_extra(item->text, &why)) {
			AT(ld, item, "'slurm.extra': %s", why);
			free(why);
			return SWEEP_ERR;
		}
		len = strcspn(item->text, "=");
		for (j = 0; j < i; j++)
			if (strcspn(s->extra[j], "=") == len &&
			    !strncmp(s->extra[j], item->text, len))
				return AT(ld, item,
				          "'slurm.extra': '%.*s' is given twice (first at line %u)",
				          (int)len, item->text, list->items[j]->line);
		s->extra[s->nextra++] = xstrdup(item->text);
	}
	return 0;
}

int cfg_read_slurm(struct loader *ld, const struct ytree_node *map)
{
	struct cfg_slurm *s = &ld->cfg->slurm;
	size_t i;

	if (cfg_expect(ld, map, YTREE_MAP, "slurm"))
		return SWEEP_ERR;
	if (cfg_check_section(ld, map, "slurm"))
		return SWEEP_ERR;
	for (i = 0; i < map->n; i += 2) {
		const struct ytree_node *key = map->items[i], *v = map->items[i + 1];
		const char *k = key->text, *why;
		char *path = xstrfmt("slurm.%s", k);
		uint64_t seconds;
		bool unlimited;
		int ret = 0;

		if (!strcmp(k, "partition"))
			ret = cfg_get_sbatch_value(ld, &s->partition, v, path, 1);
		else if (!strcmp(k, "account"))
			ret = cfg_get_sbatch_value(ld, &s->account, v, path, 1);
		else if (!strcmp(k, "qos"))
			ret = cfg_get_sbatch_value(ld, &s->qos, v, path, 1);
		else if (!strcmp(k, "gres"))
			ret = cfg_get_sbatch_value(ld, &s->gres, v, path, 1);
		else if (!strcmp(k, "gpus_per_task"))
			ret = cfg_get_sbatch_value(ld, &s->gpus_per_task, v, path, 1);
		else if (!strcmp(k, "constraint"))
			ret = cfg_get_sbatch_value(ld, &s->constraint, v, path, 1);
		else if (!strcmp(k, "cpus_per_task"))
			ret = cfg_get_positive(ld, &s->cpus_per_task, v, path);
		else if (!strcmp(k, "nodes"))
			ret = cfg_get_positive(ld, &s->nodes, v, path);
		else if (!strcmp(k, "ntasks"))
			ret = cfg_get_positive(ld, &s->ntasks, v, path);
		else if (!strcmp(k, "max_concurrent"))
			ret = cfg_get_positive(ld, &s->max_concurrent, v, path);
		else if (!strcmp(k, "mem") || !strcmp(k, "mem_per_cpu")) {
			int per_cpu = !strcmp(k, "mem_per_cpu");

			ret = cfg_expect(ld, v, YTREE_SCALAR, path);
			if (!ret && units_parse_mem(per_cpu ? &s->mem_per_cpu_mb : &s->mem_mb,
			                            v->text, &why))
				ret = AT(ld, v, "'%s': bad memory size '%s': %s", path,
				         cfg_show(ld, v->text), why);
			if (per_cpu)
				ld->mem_per_cpu_key = key;
			else
				ld->mem_key = key;
		} else if (!strcmp(k, "time")) {
			ret = cfg_expect(ld, v, YTREE_SCALAR, path);
			if (!ret && units_parse_time(&seconds, &unlimited, v->text, &why))
				ret = AT(ld, v, "'slurm.time': bad time '%s': %s",
				         cfg_show(ld, v->text), why);
			if (!ret) {
				ld->time_value = v;
				s->time_unlimited = unlimited;
				s->time_min = unlimited ? 0 : (uint32_t)((seconds + 59) / 60);
			}
		} else if (!strcmp(k, "signal")) {
			ld->signal_value = v;
			ret = read_signal(ld, v);
		} else if (!strcmp(k, "extra"))
			ret = read_extra(ld, v);
		else if (!strcmp(k, "requeue"))
			ret = cfg_get_bool(ld, &s->requeue, v, path);
		else if (!strcmp(k, "max_restarts")) {
			ld->max_restarts_value = v;
			ret = cfg_get_positive(ld, &s->max_restarts, v, path);
		} else if (!strcmp(k, "tmp_base")) {
			ret = cfg_get_string(ld, &s->tmp_base, v, path);
			if (!ret && s->tmp_base[0] != '/')
				ret = AT(ld, v, "'slurm.tmp_base': '%s' is not an absolute path",
				         cfg_show(ld, s->tmp_base));
		}
		free(path);
		if (ret)
			return SWEEP_ERR;
	}
	if (ld->mem_key && ld->mem_per_cpu_key) {
		const struct ytree_node *later =
		    ld->mem_key->line > ld->mem_per_cpu_key->line ||
		            (ld->mem_key->line == ld->mem_per_cpu_key->line &&
		             ld->mem_key->column > ld->mem_per_cpu_key->column)
		        ? ld->mem_key
		        : ld->mem_per_cpu_key;

		return AT(ld, later, "'slurm.mem' and 'slurm.mem_per_cpu' cannot both be given");
	}
	return 0;
}

/*
 * The warning signal must come after the start: Slurm sends it as soon as
 * the time left is below the seconds asked for, and before the command has
 * set up its handler the signal would end it. slurmctld looks at time
 * limits every 30 s and sends the signal when less than the seconds asked
 * for plus those 30 are left, so USR1@50 under a one-minute limit came in
 * the first second and ended a task that would have completed (the 26.05
 * rehearsal's test_faults).
 */
int cfg_check_signal_time(struct loader *ld)
{
	const struct cfg_slurm *s = &ld->cfg->slurm;
	const struct ytree_node *at = ld->signal_value ? ld->signal_value : ld->time_value;

	if (!s->signal || !ld->time_value || s->time_unlimited || !s->time_min)
		return 0;
	if ((uint64_t)s->signal_seconds + SIGNAL_EARLY_SEC < (uint64_t)s->time_min * 60)
		return 0;
	return AT(ld, at,
	          "the warning signal (%s@%u) would be sent at the start: Slurm sends it up to "
	          "30 s early, and 'slurm.time' is only %u minute%s; give 'slurm.signal' fewer "
	          "seconds (e.g. %s@%u) or more time",
	          s->signal, s->signal_seconds, (unsigned)s->time_min, s->time_min == 1 ? "" : "s",
	          s->signal, s->time_min * 60 / 4);
}

/*
 * The warning signal is used only when asked for: slurm.signal, or requeue
 * and checkpoints, which need it (default USR1@120). A program without a
 * handler dies of the signal, so it is never sent by default. A default
 * that does not fit a short time limit is scaled down, with a note.
 */
void cfg_default_signal(struct cfg *cfg)
{
	struct cfg_slurm *s = &cfg->slurm;
	unsigned limit_s;

	if (s->signal || (!s->requeue && !cfg->checkpoint.size_mb))
		return;
	s->signal = xstrdup(DEFAULT_SIGNAL);
	s->signal_seconds = DEFAULT_SIGNAL_SEC;
	if (s->time_unlimited || !s->time_min ||
	    (uint64_t)s->time_min * 60 > DEFAULT_SIGNAL_SEC + SIGNAL_EARLY_SEC)
		return;
	limit_s = s->time_min * 60;
	s->signal_seconds = limit_s / 4;
	cfg->signal_note =
	    xstrfmt("the default warning signal %s@%u does not fit 'slurm.time' of %u minute%s: "
	            "using %s@%u (write 'slurm.signal' to choose)",
	            DEFAULT_SIGNAL, DEFAULT_SIGNAL_SEC, (unsigned)s->time_min,
	            s->time_min == 1 ? "" : "s", DEFAULT_SIGNAL, s->signal_seconds);
}

/*
 * A packed array task runs its sweep tasks one after another, each as a
 * one-process job step: a requeue would run all of them again, a
 * multi-process job would start the command once per process, and the
 * steps write the array task's one log, so a log pattern would give every
 * task the last task's number (found by bench/big_sweep.sh: mean ± 0).
 */
int cfg_check_pack(struct loader *ld)
{
	const struct cfg *cfg = ld->cfg;

	if (!ld->pack_value || cfg->pack == 1)
		return 0;
	if (cfg->slurm.requeue)
		return AT(
		    ld, ld->pack_value,
		    "'pack' cannot be combined with 'slurm.requeue: true' (a requeue would run "
		    "every task of the pack again); use 'pack: 1' or drop 'requeue'");
	if (cfg->slurm.nodes > 1 || cfg->slurm.ntasks > 1)
		return AT(ld, ld->pack_value,
		          "'pack' runs each task as a one-process job step: it cannot be combined "
		          "with 'slurm.%s' above 1",
		          cfg->slurm.nodes > 1 ? "nodes" : "ntasks");
	if (cfg->results.nlog)
		return AT(
		    ld, ld->pack_value,
		    "'pack' cannot be combined with 'results: log' (the packed tasks write one "
		    "log, and each would read the last task's '%s'); write the metrics to a "
		    "file ('results: file' or $SWEEP_RESULT) or use 'pack: 1'",
		    cfg->results.log[0].name);
	return 0;
}
