/*
 * The per-task table's columns (task_table.h). A column is a row of
 * columns[]: its header, its alignment and how it writes a cell, so a new
 * table is a list of column ids, not a new printer.
 */
#include "task_table.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "units.h"

#include "banned.h"

static char *dash(void)
{
	return xstrdup("-");
}

static char *text_or_dash(const char *s)
{
	return xstrdup(s ? s : "-");
}

/* "30%"; "-" when unknown. */
static char *eff_text(double eff)
{
	if (isnan(eff))
		return dash();
	return xstrfmt("%.0f%%", round(eff * 100));
}

static char *time_text(uint64_t seconds)
{
	char buf[64];

	if (seconds == ACCT_NO_VALUE)
		return dash();
	units_format_time(buf, sizeof(buf), seconds);
	return xstrdup(buf);
}

static char *cell_index(const struct task_row *r)
{
	return xstrfmt("%zu", r->index);
}

static char *cell_setting(const struct task_row *r)
{
	return text_or_dash(r->setting);
}

static char *cell_seed(const struct task_row *r)
{
	return xstrfmt("%" PRId64, r->seed);
}

static char *cell_state(const struct task_row *r)
{
	return xstrdup(r->state_text ? r->state_text : task_state_name(r->state));
}

static char *cell_attempts(const struct task_row *r)
{
	return r->o ? xstrfmt("%u", r->o->attempts) : dash();
}

static char *cell_exit(const struct task_row *r)
{
	return task_table_exit_text(r->state, r->exit_code, r->signal);
}

static char *cell_job(const struct task_row *r)
{
	if (!r->array_job_id)
		return dash();
	return xstrfmt("%" PRIu32 "_%" PRIu32, r->array_job_id, r->array_task_id);
}

static char *cell_elapsed(const struct task_row *r)
{
	if (!r->o || r->state == TS_MISSING || task_state_is_queued(r->state))
		return dash();
	return time_text(r->o->elapsed_s);
}

static char *cell_time(const struct task_row *r)
{
	return r->o ? time_text(r->o->timelimit_s) : dash();
}

static char *cell_time_eff(const struct task_row *r)
{
	return eff_text(r->time_eff);
}

static char *cell_maxrss(const struct task_row *r)
{
	const struct task_outcome *o = r->o;
	char rss[32], node[32];

	if (!o || o->maxrss_bytes == ACCT_NO_VALUE)
		return dash();
	units_format_bytes(rss, sizeof(rss), o->maxrss_bytes);
	if (o->tasks_per_node <= 1)
		return xstrdup(rss);
	/* Several tasks on a node: what the node needed, an upper bound. */
	units_format_bytes(node, sizeof(node), o->node_mem_bytes);
	return xstrfmt("%s (x %u: %s/node)", rss, (unsigned)o->tasks_per_node, node);
}

static char *cell_mem(const struct task_row *r)
{
	char buf[64];

	if (!r->o || !r->o->req_mem_mb || r->o->req_mem_mb == UINT64_MAX)
		return dash();
	units_format_mem(buf, sizeof(buf), r->o->req_mem_mb);
	return xstrdup(buf);
}

static char *cell_mem_eff(const struct task_row *r)
{
	return eff_text(r->mem_eff);
}

static char *cell_cpus(const struct task_row *r)
{
	return r->o && r->o->ncpus ? xstrfmt("%" PRIu32, r->o->ncpus) : dash();
}

static char *cell_cpu_eff(const struct task_row *r)
{
	return eff_text(r->cpu_eff);
}

static char *cell_restarts(const struct task_row *r)
{
	struct strbuf sb = STRBUF_INIT;

	if (!r->o)
		return dash();
	strbuf_addf(&sb, "%u", r->o->restarts);
	if (r->o->restarts && r->o->restart_states) {
		strbuf_addstr(&sb, " (");
		outcome_restart_reasons(&sb, r->o);
		strbuf_addch(&sb, ')');
	}
	return strbuf_detach(&sb, NULL);
}

static char *cell_reason(const struct task_row *r)
{
	return text_or_dash(r->reason);
}

static char *cell_request(const struct task_row *r)
{
	return text_or_dash(r->request);
}

static char *cell_note(const struct task_row *r)
{
	return text_or_dash(r->note);
}

static char *cell_log(const struct task_row *r)
{
	return text_or_dash(r->log);
}

static char *cell_cause(const struct task_row *r)
{
	return text_or_dash(r->cause);
}

/* The column table: every per-task table of sweep reads its columns here. */
static const struct task_column {
	const char *name;
	bool right; /* right-aligned, header included: counts and percentages */
	char *(*cell)(const struct task_row *r);
} columns[TT_NCOLS] = {
    /* INDEX stays left-aligned: a row starts with its index ("^[0-9]+ "). */
    [TT_INDEX] = {"INDEX", false, cell_index},
    [TT_SETTING] = {"SETTING", false, cell_setting},
    [TT_SEED] = {"SEED", false, cell_seed},
    [TT_STATE] = {"STATE", false, cell_state},
    [TT_ATTEMPTS] = {"ATTEMPTS", true, cell_attempts},
    [TT_EXIT] = {"EXIT", false, cell_exit},
    [TT_JOB] = {"JOB", false, cell_job},
    [TT_ELAPSED] = {"ELAPSED", false, cell_elapsed},
    [TT_TIME] = {"TIME", false, cell_time},
    [TT_TIME_EFF] = {"TIME EFF", true, cell_time_eff},
    [TT_MAXRSS] = {"MAXRSS", false, cell_maxrss},
    [TT_MEM] = {"MEM", false, cell_mem},
    [TT_MEM_EFF] = {"MEM EFF", true, cell_mem_eff},
    [TT_CPUS] = {"CPUS", true, cell_cpus},
    [TT_CPU_EFF] = {"CPU EFF", true, cell_cpu_eff},
    [TT_RESTARTS] = {"RESTARTS", false, cell_restarts},
    [TT_REASON] = {"REASON", false, cell_reason},
    [TT_REQUEST] = {"REQUEST", false, cell_request},
    [TT_NOTE] = {"NOTE", false, cell_note},
    [TT_LOG] = {"LOG", false, cell_log},
    [TT_CAUSE] = {"CAUSE", false, cell_cause},
};

void task_row_init(struct task_row *row, size_t index, const struct task_outcome *o)
{
	memset(row, 0, sizeof(*row));
	row->index = index;
	row->state = TS_MISSING;
	row->mem_eff = row->time_eff = row->cpu_eff = NAN;
	row->o = o;
	if (!o)
		return;
	row->state = o->state;
	row->exit_code = o->exit_code;
	row->signal = o->signal;
	row->array_job_id = o->array_job_id;
	row->array_task_id = o->array_task_id;
}

const char *task_col_name(enum task_col c)
{
	assert(c >= 0 && c < TT_NCOLS);
	return columns[c].name;
}

char *task_table_exit_text(enum task_state state, int exit_code, int signal)
{
	if (!task_state_is_final(state))
		return dash();
	if (!signal || state == TS_TIMEOUT || state == TS_DEADLINE)
		return xstrfmt("%d", exit_code);
	return xstrfmt("%d:%d", exit_code, signal);
}

char *task_table_cell(enum task_col c, const struct task_row *row)
{
	assert(c >= 0 && c < TT_NCOLS);
	return columns[c].cell(row);
}

void task_table_init(struct task_table *tt, const enum task_col *cols, size_t ncols)
{
	assert(ncols && ncols <= TT_NCOLS);
	memcpy(tt->cols, cols, ncols * sizeof(*cols));
	tt->ncols = ncols;
	table_init(&tt->t, ncols);
	for (size_t i = 0; i < ncols; i++) {
		table_addstr(&tt->t, task_col_name(cols[i]));
		if (columns[cols[i]].right)
			table_align_right(&tt->t, i);
	}
}

void task_table_add(struct task_table *tt, const struct task_row *row)
{
	for (size_t i = 0; i < tt->ncols; i++)
		table_add(&tt->t, task_table_cell(tt->cols[i], row));
}

void task_table_print(FILE *f, const struct task_table *tt)
{
	table_print(f, &tt->t);
}

void task_table_release(struct task_table *tt)
{
	table_release(&tt->t);
	tt->ncols = 0;
}
