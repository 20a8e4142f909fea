/*
 * Reading causes: at most two log tails and one small file per failed
 * run, once per run. The store keeps what was read, keyed by the run
 * (array job, task, job id, end time), so a requeued task's new run is read
 * afresh and a finished sweep is never read again.
 */
#include "causes.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "error.h"
#include "gate.h"
#include "outcome.h"
#include "result.h"
#include "store.h"
#include "strbuf.h"
#include "taskdir.h"

#include "banned.h"

static void task_cause_release(struct task_cause *t)
{
	free(t->reason);
	free(t->line);
	free(t->note);
	free(t->text);
	free(t->group);
	free(t->ran_host);
	free(t->ran_path);
	memset(t, 0, sizeof(*t));
}

void causes_release(struct causes *c)
{
	for (size_t i = 0; i < c->ntasks; i++)
		task_cause_release(&c->tasks[i]);
	free(c->tasks);
	free(c->program);
	memset(c, 0, sizeof(*c));
}

static bool same_run(const struct cause_rec *k, const struct task_outcome *o)
{
	return k->array_job_id == o->array_job_id && k->array_task_id == o->array_task_id &&
	       k->job_id == o->job_id && k->end_time == o->end_time;
}

/* "JOBID\tHOST\tPATH" as the script wrote it, for this run only. */
static void read_ran(struct cause_rec *out, const struct sweep_rec *rec, size_t i,
                     const struct task_outcome *o)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = taskdir_file(rec->dir, rec->task_layout, i, ".ran"), *tab1, *tab2, *end;
	unsigned long job;

	if (result_read_tail(&sb, path, 4096) < 0)
		goto out;
	tab1 = strchr(sb.buf, '\t');
	tab2 = tab1 ? strchr(tab1 + 1, '\t') : NULL;
	if (!tab2)
		goto out;
	job = strtoul(sb.buf, &end, 10);
	if (end != tab1 || (job && job != o->job_id))
		goto out;
	strbuf_trim_trailing_newlines(&sb);
	out->ran_host = xstrndup(tab1 + 1, (size_t)(tab2 - tab1 - 1));
	out->ran_path = xstrdup(tab2 + 1);
out:
	free(path);
	strbuf_release(&sb);
}

/* Reads run o of task i into out (zeroed). */
static void read_run(struct cause_rec *out, const struct sweep_rec *rec, size_t i,
                     const struct task_outcome *o)
{
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	char *log =
	    outcome_log_path(rec->logs, rec->name, o->state, o->array_job_id, o->array_task_id);
	struct cause_pick pick;

	out->index = i;
	out->array_job_id = o->array_job_id;
	out->array_task_id = o->array_task_id;
	out->job_id = o->job_id;
	out->end_time = o->end_time;
	if (log) {
		if (result_read_tail(&text, log, CAUSE_TAIL_BYTES) < 0)
			strbuf_reset(&text);
		memcpy(log + strlen(log) - 4, ".err", 4);
		if (result_read_tail(&err, log, CAUSE_TAIL_BYTES) < 0)
			strbuf_reset(&err);
	}
	cause_pick(&pick, err.buf, err.len, text.buf, text.len);
	out->line = pick.line;
	out->log_oom = pick.log_oom;
	pick.line = NULL;
	read_ran(out, rec, i, o);
	free(log);
	strbuf_release(&err);
	strbuf_release(&text);
}

struct program {
	char *name, *submit_path;
	const char *home;
};

static void fill(struct task_cause *t, const struct task_outcome *o, const struct cause_rec *k,
                 const struct program *prog)
{
	struct strbuf sb = STRBUF_INIT;

	t->resource = cause_is_resource(o, k->log_oom);
	gate_run_failed(&sb, o);
	/* OverMemoryKill's line says what accounting cannot. */
	if (k->log_oom && !strstr(sb.buf, "out of memory"))
		strbuf_addstr(&sb, ", out of memory (slurmstepd: exceeded memory limit)");
	t->reason = strbuf_detach(&sb, NULL);
	t->line = k->line ? xstrdup(k->line) : NULL;
	if (k->ran_path && cause_ran_note(&sb, prog->name, k->ran_path, k->ran_host,
	                                  prog->submit_path, prog->home))
		t->note = strbuf_detach(&sb, NULL);
	cause_text(&sb, t->reason, t->resource, t->line, t->note);
	t->text = strbuf_detach(&sb, NULL);
	t->group = xstrdup(t->resource ? t->reason : t->text);
	t->ran_host = k->ran_host ? xstrdup(k->ran_host) : NULL;
	t->ran_path = k->ran_path ? xstrdup(k->ran_path) : NULL;
	t->failed = true;
}

static bool run_failed(const struct task_outcome *o)
{
	return o->state != TS_MISSING && o->state != TS_REQUEUED && task_state_is_final(o->state) &&
	       !gate_passed(o, NULL);
}

int causes_load(struct causes *out, struct store *st, const struct sweep_rec *rec,
                const struct task_outcome *tasks, size_t ntasks)
{
	struct cause_rec *kept = NULL, *fresh = NULL;
	size_t nkept = 0, nfresh = 0, alloc = 0, k = 0;
	struct program prog = {NULL, NULL, getenv("HOME")};
	int ret;

	memset(out, 0, sizeof(*out));
	out->tasks = xcalloc(ntasks ? ntasks : 1, sizeof(*out->tasks));
	out->ntasks = ntasks;
	ret = store_load_causes(st, &kept, &nkept, rec->id);
	if (ret == 0)
		ret = store_load_program(st, &prog.name, &prog.submit_path, rec->id);
	for (size_t i = 0; ret == 0 && i < ntasks; i++) {
		const struct task_outcome *o = &tasks[i];

		if (!run_failed(o))
			continue;
		while (k < nkept && kept[k].index < i)
			k++;
		if (k < nkept && kept[k].index == i && same_run(&kept[k], o)) {
			fill(&out->tasks[i], o, &kept[k], &prog);
			out->kept++;
			continue;
		}
		ALLOC_GROW(fresh, nfresh + 1, alloc);
		memset(&fresh[nfresh], 0, sizeof(*fresh));
		read_run(&fresh[nfresh], rec, i, o);
		fill(&out->tasks[i], o, &fresh[nfresh++], &prog);
		out->logs_read++;
	}
	/* A cache: not kept (a full disk, say), they are read from the logs again next time. */
	if (ret == 0 && store_put_causes(st, rec->id, fresh, nfresh) < 0)
		warning("the causes read from the logs were not kept: the next command reads them "
		        "again");
	cause_recs_free(kept, nkept);
	cause_recs_free(fresh, nfresh);
	out->program = prog.name && *prog.name ? xstrdup(prog.name) : NULL;
	free(prog.name);
	free(prog.submit_path);
	return ret;
}

void causes_group(struct cause_groups *out, const struct causes *c, const size_t *only,
                  size_t nonly)
{
	size_t n = 0, total = only ? nonly : c->ntasks;
	size_t *indices = xcalloc(total ? total : 1, sizeof(*indices));
	const char **texts = xcalloc(total ? total : 1, sizeof(*texts));
	bool *resource = xcalloc(total ? total : 1, sizeof(*resource));

	for (size_t j = 0; j < total; j++) {
		size_t i = only ? only[j] : j;

		if (i >= c->ntasks || !c->tasks[i].failed)
			continue;
		indices[n] = i;
		texts[n] = c->tasks[i].group;
		resource[n++] = c->tasks[i].resource;
	}
	cause_groups_build(out, indices, texts, resource, n);
	free(indices);
	free(texts);
	free(resource);
}

bool causes_rerun_check(struct strbuf *why, const struct causes *c, const size_t *only,
                        size_t nonly)
{
	struct cause_groups g;
	bool same;

	causes_group(&g, c, only, nonly);
	for (size_t i = 0; i < g.n; i++) {
		const struct cause_group *grp = &g.groups[i];

		if (grp->resource)
			continue;
		strbuf_addf(why, "  %zu task%s (", grp->n, grp->n == 1 ? "" : "s");
		cause_add_indices(why, grp->indices, grp->n, 6);
		strbuf_addf(why, ") failed for no resource: %s\n", grp->text);
	}
	same = cause_groups_same_everywhere(&g);
	cause_groups_release(&g);
	return same;
}

/* ", a script, '#!/usr/bin/env bash'" when path is one on this machine (read as a task's file). */
static void add_script_note(struct strbuf *out, const char *path)
{
	struct strbuf head = STRBUF_INIT;
	size_t len;

	if (path[0] == '/' && result_read_tail(&head, path, 4096) == 0 &&
	    !strncmp(head.buf, "#!", 2)) {
		len = strcspn(head.buf, "\r\n");
		if (len > 60)
			len = 60;
		strbuf_addstr(out, "; a script, '");
		for (size_t i = 0; i < len; i++)
			strbuf_addch(out, (unsigned char)head.buf[i] < 0x20 ? '?' : head.buf[i]);
		strbuf_addstr(out, "', that runs another program");
	}
	strbuf_release(&head);
}

void causes_add_programs(struct strbuf *out, const struct causes *c, const size_t *only,
                         size_t nonly)
{
	size_t total = only ? nonly : c->ntasks, shown = 0, unrecorded = 0, more = 0;
	const struct task_cause **seen = xcalloc(total ? total : 1, sizeof(*seen));
	const char *name = c->program ? c->program : "the command";

	for (size_t j = 0; j < total; j++) {
		size_t i = only ? only[j] : j, k;
		const struct task_cause *t;

		if (i >= c->ntasks || !c->tasks[i].failed)
			continue;
		t = &c->tasks[i];
		if (!t->ran_path) {
			unrecorded++;
			continue;
		}
		for (k = 0; k < shown; k++)
			if (!strcmp(seen[k]->ran_path, t->ran_path) &&
			    !strcmp(seen[k]->ran_host ? seen[k]->ran_host : "",
			            t->ran_host ? t->ran_host : ""))
				break;
		if (k < shown)
			continue;
		if (shown == CAUSES_PROGRAMS_SHOWN) {
			more++;
			continue;
		}
		seen[shown++] = t;
		if (!*t->ran_path) {
			strbuf_addf(out, "the program that ran: none: '%s' was not found on %s\n",
			            name, t->ran_host && *t->ran_host ? t->ran_host : "the node");
			continue;
		}
		strbuf_addf(out, "the program that ran: %s (resolved on %s", t->ran_path,
		            t->ran_host && *t->ran_host ? t->ran_host : "the node");
		add_script_note(out, t->ran_path);
		strbuf_addstr(out, ")\n");
	}
	if (more)
		strbuf_addf(out, "  and %zu more program%s or node%s\n", more, more == 1 ? "" : "s",
		            more == 1 ? "" : "s");
	if (unrecorded)
		strbuf_addf(
		    out,
		    "the program that ran: not recorded for %zu task%s (the run ended before "
		    "its command started)\n",
		    unrecorded, unrecorded == 1 ? "" : "s");
	free(seen);
}

json_t *causes_groups_json(const struct causes *c, const size_t *only, size_t nonly)
{
	struct cause_groups g;
	json_t *arr = json_array();

	causes_group(&g, c, only, nonly);
	for (size_t i = 0; i < g.n; i++) {
		json_t *obj = json_object(), *idx = json_array();

		for (size_t k = 0; k < g.groups[i].n; k++)
			json_array_append_new(idx,
			                      json_integer((json_int_t)g.groups[i].indices[k]));
		json_object_set_new(obj, "count", json_integer((json_int_t)g.groups[i].n));
		json_object_set_new(obj, "indices", idx);
		json_object_set_new(obj, "cause", json_string(g.groups[i].text));
		json_object_set_new(obj, "resource", json_boolean(g.groups[i].resource));
		json_array_append_new(arr, obj);
	}
	cause_groups_release(&g);
	return arr;
}

void causes_views(const char ***text, const char ***group, bool **resource, const struct causes *c)
{
	size_t n = c->ntasks ? c->ntasks : 1;

	*text = xcalloc(n, sizeof(**text));
	*group = xcalloc(n, sizeof(**group));
	*resource = xcalloc(n, sizeof(**resource));
	for (size_t i = 0; i < c->ntasks; i++) {
		if (!c->tasks[i].failed)
			continue;
		(*text)[i] = c->tasks[i].text;
		(*group)[i] = c->tasks[i].group;
		(*resource)[i] = c->tasks[i].resource;
	}
}
