/*
 * status's view of a sweep and its printers (status_view.h). A view is
 * read again on every refresh of a watch; the printers only read it.
 */
#include "status_view.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "error.h"
#include "followup.h"
#include "gate.h"
#include "hold_print.h"
#include "loaded.h"
#include "output.h"
#include "rolling.h"
#include "table.h"
#include "task_table.h"
#include "verdict.h"

#include "banned.h"

#define BAR_WIDTH 30

void status_view_init(struct status_view *v)
{
	memset(v, 0, sizeof(*v));
	sweep_rec_init(&v->rec);
	acct_set_init(&v->set);
	strbuf_init(&v->finish, 0);
}

void status_view_release(struct status_view *v)
{
	sweep_rec_release(&v->rec);
	array_recs_free(v->arrays, v->narrays);
	acct_set_release(&v->set);
	for (size_t i = 0; v->no_metric && i < v->ntasks; i++)
		free(v->no_metric[i]);
	free(v->no_metric);
	free(v->tasks);
	free(v->stage);
	strbuf_release(&v->finish);
	causes_release(&v->causes);
	status_view_init(v);
}

/* A task of a rolling sweep that no array job holds yet: the next chunk will. */
#define NOT_SUBMITTED "NOT_SUBMITTED"

/* A run that passed whose metric is missing: gate_failures_text's words. */
#define NO_METRIC "completed, no metric"

bool status_view_not_submitted(const struct status_view *v, size_t i)
{
	return i >= v->unsubmitted_from && v->tasks[i].state == TS_MISSING;
}

/*
 * Which tasks completed without their metric, as list, report and
 * resubmit say it: report's verdict over this refresh's outcomes. Only the
 * results of runs that passed are read, and a watch reads each once
 * (reads): a run that passed has ended. A sweep whose result sources
 * cannot be told is shown without it, with a warning.
 */
static void judge(struct status_view *v, struct loaded_sweep *l, struct verdict_reads *reads)
{
	const struct cfg *cfg;
	error_handler_fn old;
	struct verdict vd;
	bool any = false;

	v->no_metric = xcalloc(v->ntasks ? v->ntasks : 1, sizeof(*v->no_metric));
	for (size_t i = 0; i < v->ntasks && !any; i++)
		any = gate_passed(&v->tasks[i], NULL);
	/* A kept file that no longer reads is not status's to say (cmd_status). */
	if (loaded_sweepfile(&cfg, l, LOADED_QUIET) < 0)
		return;
	v->judged = !any;
	if (!any)
		return;
	verdict_init(&vd);
	vd.prior = reads;
	old = error_set_handler(error_as_warning);
	if (verdict_check_outcomes(&vd, l, v->tasks, NULL, 0) == 0) {
		v->judged = true;
		for (size_t k = 0; k < vd.gate.nfailures; k++) {
			const struct gate_failure *f = &vd.gate.failures[k];

			if (!gate_failure_of_result(f) || f->index >= v->ntasks)
				continue;
			v->no_metric[f->index] = xstrdup(f->reason ? f->reason : "no metric");
			v->nno_metric++;
		}
		verdict_keep_reads(reads, &vd);
	}
	error_set_handler(old);
	verdict_release(&vd);
}

int status_view_load(struct status_view *v, struct loaded_sweep *l, const struct status_ask *o,
                     bool first, struct verdict_reads *reads)
{
	const struct plan *plan = &l->plan;
	struct store *st = l->st;
	char idstr[32];
	int ret;

	snprintf(idstr, sizeof(idstr), "%" PRId64, l->rec.id);
	ret = store_find_sweep(st, &v->rec, idstr);
	if (ret < 0)
		return ret;
	v->ntasks = plan->ntasks;
	v->tasks = xcalloc(plan->ntasks ? plan->ntasks : 1, sizeof(*v->tasks));
	v->read.steps = o->tasks || o->json;
	/* A watch re-reads only what is unfinished: --refresh applies to its first read. */
	v->read.refresh = o->refresh && first;
	ret = backend_load_outcomes(v->tasks, &v->set, &v->arrays, &v->narrays, &v->read, st,
	                            &v->rec);
	if (ret < 0)
		return ret;
	if (!o->watch && v->narrays)
		backend_read_note(&v->read, v->narrays);
	else if (v->narrays)
		backend_read_debug(&v->read);
	v->unsubmitted_from = plan->ntasks;
	if (v->rec.roll_chunk && v->rec.status == SWEEP_SUBMITTED)
		v->unsubmitted_from = rolling_next_index(&v->rec, v->arrays, v->narrays);
	for (size_t i = 0; i < plan->ntasks; i++) {
		enum task_state s = v->tasks[i].state;

		if (status_view_not_submitted(v, i)) {
			v->unsubmitted++;
			continue;
		}
		v->counts[s]++;
		if (task_state_is_final(s))
			v->done++;
		else if (s != TS_MISSING)
			v->active++;
	}
	judge(v, l, reads);
	v->stage = xcalloc(plan->ntasks ? plan->ntasks : 1, sizeof(*v->stage));
	if (o->stages)
		v->nstaged = script_stage_notes(v->stage, v->rec.dir, v->rec.task_layout, plan->ntasks);
	if (rolling_describe(&v->finish, st, &v->rec, v->arrays, v->narrays) < 0 ||
	    causes_load(&v->causes, st, &v->rec, v->tasks, plan->ntasks) < 0)
		return SWEEP_ERR;
	return followup_describe(&v->finish, &v->followups_active, st, &v->rec, v->tasks,
	                         plan->ntasks);
}

static char *log_path(const struct sweep_rec *rec, const struct task_outcome *t)
{
	return outcome_log_path(rec->logs, rec->name, t->state, t->array_job_id, t->array_task_id);
}

static void print_header(FILE *f, const struct status_view *v, size_t ntasks)
{
	fprintf(f, "sweep %" PRId64 " '%s': %zu task%s, %zu array job%s", v->rec.id, v->rec.name,
	        ntasks, output_plural(ntasks, "", "s"), v->narrays,
	        output_plural(v->narrays, "", "s"));
	for (size_t i = 0; i < v->narrays && i < 5; i++)
		fprintf(f, "%s%" PRIu32, i ? ", " : " (", v->arrays[i].job_id);
	if (v->narrays > 5)
		fprintf(f, ", ...");
	fprintf(f, "%s\n", v->narrays ? ")" : "");

	switch (v->rec.status) {
	case SWEEP_SUBMITTED:
		break;
	case SWEEP_FAILED:
		fprintf(f, "submission failed: %s\n",
		        v->rec.error ? v->rec.error : "no reason recorded");
		break;
	case SWEEP_SUBMITTING:
		fprintf(f, "submission interrupted\n");
		break;
	}
}

/* Array jobs were accepted, yet the backend knows none of their tasks. */
static void explain_missing(FILE *f, const struct status_view *v)
{
	const struct backend_ops *ops = backend_get(v->rec.backend);

	if (!ops)
		return;
	fprintf(f, "%s\n",
	        loaded_records_may_lag(v->arrays, v->narrays) ? ops->no_record_yet
	                                                      : ops->no_record);
}

/* " (5 out of memory, 5 exit code 1)": the FAILED tasks by the scheduler's reason. */
static void print_reasons(FILE *f, const struct status_view *v, size_t ntasks)
{
	const char **reasons = xcalloc(ntasks ? ntasks : 1, sizeof(*reasons));
	size_t *counts = xcalloc(ntasks ? ntasks : 1, sizeof(*counts)), n = 0;

	for (size_t i = 0; i < ntasks; i++) {
		const char *why = v->causes.tasks[i].reason;
		size_t r;

		if (v->tasks[i].state != TS_FAILED || !why)
			continue;
		for (r = 0; r < n && strcmp(reasons[r], why); r++)
			;
		if (r == n)
			reasons[n++] = why;
		counts[r]++;
	}
	for (size_t r = 0; r < n; r++)
		fprintf(f, "%s%zu %s", r ? ", " : " (", counts[r], reasons[r]);
	if (n)
		fputc(')', f);
	free(reasons);
	free(counts);
}

/* The failed tasks grouped by cause, largest group first. */
static void print_groups(FILE *f, const struct status_view *v)
{
	struct cause_groups g;
	struct strbuf sb = STRBUF_INIT;

	causes_group(&g, &v->causes, NULL, 0);
	if (g.n) {
		cause_add_groups(&sb, &g, "  ");
		fprintf(f, "failed, by cause:\n%s", sb.buf);
	}
	strbuf_release(&sb);
	cause_groups_release(&g);
}

/* " (2 held by the user)": the HELD tasks by kind of hold. */
static void print_holds(FILE *f, const struct status_view *v, size_t ntasks)
{
	struct strbuf sb = STRBUF_INIT;

	hold_add_counts(&sb, v->tasks, ntasks);
	fputs(sb.buf, f);
	strbuf_release(&sb);
}

/* What releases the held tasks, a line per kind of hold. */
static void print_release(FILE *f, const struct status_view *v, size_t ntasks)
{
	struct strbuf sb = STRBUF_INIT;

	if (v->counts[TS_HELD])
		hold_add_hints(&sb, v->tasks, ntasks);
	fputs(sb.buf, f);
	strbuf_release(&sb);
}

static void print_counts(FILE *f, const struct status_view *v, size_t ntasks, bool tty)
{
	bool first = true;

	if (v->rec.status != SWEEP_SUBMITTED && !v->narrays) {
		fprintf(f, "no array job was accepted: nothing ran\n");
		return;
	}
	for (int s = 0; s < TS_NSTATES; s++) {
		if (!v->counts[s])
			continue;
		fprintf(f, "%s%s %zu", first ? "" : ", ", task_state_name(s), v->counts[s]);
		if (s == TS_FAILED)
			print_reasons(f, v, ntasks);
		if (s == TS_COMPLETED && v->nno_metric)
			fprintf(f, " (%zu completed, no metric)", v->nno_metric);
		if (s == TS_HELD)
			print_holds(f, v, ntasks);
		first = false;
	}
	if (v->unsubmitted) {
		fprintf(f, "%s%s %zu", first ? "" : ", ", NOT_SUBMITTED, v->unsubmitted);
		first = false;
	}
	if (!first)
		fputc('\n', f);
	if (tty && ntasks) {
		size_t fill = v->done * BAR_WIDTH / ntasks;

		fputc('[', f);
		for (size_t i = 0; i < BAR_WIDTH; i++)
			fputc(i < fill ? '#' : '.', f);
		fputs("] ", f);
	}
	fprintf(f, "%zu/%zu done\n", v->done, ntasks);
	if (v->narrays && ntasks && v->counts[TS_MISSING] == ntasks)
		explain_missing(f, v);
}

/* ["NODE_FAIL", "requeued by signal"...]: outcome_restart_reasons as a list. */
static json_t *restart_reasons_json(const struct task_outcome *t)
{
	json_t *why = json_array();

	for (int s = 0; s < TS_NSTATES; s++) {
		if (!(t->restart_states & (UINT32_C(1) << s)))
			continue;
		json_array_append_new(why, json_string(s == TS_REQUEUED
		                                           ? "requeued by signal"
		                                           : task_state_name((enum task_state)s)));
	}
	return why;
}

/*
 * The scheduler's reason for a failure, or why a PENDING task waits or
 * what holds a HELD one; NULL for none.
 */
static const char *task_reason(const struct status_view *v, size_t i)
{
	if (v->causes.tasks[i].reason)
		return v->causes.tasks[i].reason;
	return task_state_is_queued(v->tasks[i].state) ? v->tasks[i].pending_reason : NULL;
}

/* The program's line and what ran, or "-". */
static char *cause_cell(const struct task_cause *c)
{
	if (!c->failed || (!c->line && !c->note))
		return xstrdup("-");
	if (!c->note)
		return xstrdup(c->line);
	if (!c->line)
		return xstrdup(c->note);
	return xstrfmt("%s (%s)", c->line, c->note);
}

static void print_tasks(FILE *f, const struct status_view *v, const struct plan *plan)
{
	static const enum task_col cols[] = {TT_INDEX,    TT_SETTING, TT_SEED,    TT_STATE,
	                                     TT_ATTEMPTS, TT_EXIT,    TT_ELAPSED, TT_MAXRSS,
	                                     TT_RESTARTS, TT_LOG,     TT_REASON,  TT_CAUSE};
	char **labels = xcalloc(plan->nsettings ? plan->nsettings : 1, sizeof(*labels));
	struct task_table t;

	for (size_t s = 0; s < plan->nsettings; s++)
		labels[s] = plan_setting_label(plan, s);
	task_table_init(&t, cols, sizeof(cols) / sizeof(cols[0]));
	for (size_t i = 0; i < plan->ntasks; i++) {
		struct task_row row;
		char *log = log_path(&v->rec, &v->tasks[i]);
		char *cause = cause_cell(&v->causes.tasks[i]);

		task_row_init(&row, i, &v->tasks[i]);
		row.setting = labels[plan_setting_of(plan, i)];
		row.seed = plan_seed_of(plan, i);
		if (status_view_not_submitted(v, i))
			row.state_text = NOT_SUBMITTED;
		row.log = log;
		row.reason = task_reason(v, i);
		row.cause = cause;
		if (v->no_metric[i]) {
			row.reason = NO_METRIC;
			row.cause = v->no_metric[i];
		}
		task_table_add(&t, &row);
		free(log);
		free(cause);
	}
	fputc('\n', f);
	task_table_print(f, &t);
	task_table_release(&t);
	for (size_t s = 0; s < plan->nsettings; s++)
		free(labels[s]);
	free(labels);
}

/* status --tasks of a sweep with `stage:`: what staging took each task. */
static void print_staging(FILE *f, const struct status_view *v, size_t ntasks)
{
	static const char *const head[] = {"INDEX", "STAGING", "HOW", "NODE"};
	struct table t;

	table_init_head(&t, head, sizeof(head) / sizeof(head[0]));
	for (size_t i = 0; i < ntasks; i++) {
		const struct stage_note *n = &v->stage[i];

		if (!n->found)
			continue;
		table_add(&t, xstrfmt("%zu", i));
		table_add(&t, xstrfmt("%.2f s", n->seconds));
		table_addstr(&t, n->unpacked ? "copied" : "shared");
		table_addstr(&t, n->node);
	}
	fputc('\n', f);
	table_print(f, &t);
	table_release(&t);
}

void status_view_print_text(FILE *f, const struct status_view *v, const struct plan *plan,
                            const struct status_ask *o, bool tty)
{
	print_header(f, v, plan->ntasks);
	print_counts(f, v, plan->ntasks, tty);
	print_release(f, v, plan->ntasks);
	fputs(v->finish.buf, f);
	print_groups(f, v);
	script_stage_summary(f, v->stage, plan->ntasks);
	if (o->tasks)
		print_tasks(f, v, plan);
	if (o->tasks && v->nstaged)
		print_staging(f, v, plan->ntasks);
}

static json_t *json_uint_or_null(bool defined, uint64_t x)
{
	return defined && x <= INT64_MAX ? json_integer((json_int_t)x) : json_null();
}

/*
 * Report's verdict on task i: "passed", "completed, no metric", "failed",
 * or null while it has not ended or when the verdict is not known.
 */
static json_t *verdict_json(const struct status_view *v, size_t i)
{
	const struct task_outcome *t = &v->tasks[i];

	if (!v->judged || status_view_not_submitted(v, i) || !task_state_is_final(t->state))
		return json_null();
	if (v->no_metric[i])
		return json_string(NO_METRIC);
	return json_string(gate_passed(t, NULL) ? "passed" : "failed");
}

static json_t *json_task(const struct status_view *v, const struct plan *plan, size_t i)
{
	const struct task_outcome *t = &v->tasks[i];
	size_t s = plan_setting_of(plan, i);
	json_t *obj = json_object(), *setting = json_object();
	bool ran = task_state_is_final(t->state);
	char *log = log_path(&v->rec, t);
	const struct task_cause *c = &v->causes.tasks[i];

	for (size_t p = 0; p < plan->nparams; p++)
		json_object_set_new(setting, plan->params[p], json_string(plan_value(plan, s, p)));
	json_object_set_new(obj, "index", json_integer((json_int_t)i));
	json_object_set_new(obj, "setting", setting);
	json_object_set_new(obj, "seed", json_integer(plan_seed_of(plan, i)));
	json_object_set_new(obj, "state",
	                    json_string(status_view_not_submitted(v, i)
	                                    ? NOT_SUBMITTED
	                                    : task_state_name(t->state)));
	json_object_set_new(obj, "held", json_boolean(t->state == TS_HELD));
	json_object_set_new(obj, "hold",
	                    t->state == TS_HELD && acct_hold_name(t->hold)
	                        ? json_string(acct_hold_name(t->hold))
	                        : json_null());
	json_object_set_new(obj, "exit_code", ran ? json_integer(t->exit_code) : json_null());
	json_object_set_new(obj, "signal", ran ? json_integer(t->signal) : json_null());
	json_object_set_new(obj, "elapsed_s", json_integer((json_int_t)t->elapsed_s));
	json_object_set_new(obj, "maxrss_bytes",
	                    json_uint_or_null(t->maxrss_bytes != ACCT_NO_VALUE, t->maxrss_bytes));
	json_object_set_new(obj, "node_mem_bytes",
	                    json_uint_or_null(t->maxrss_bytes != ACCT_NO_VALUE, t->node_mem_bytes));
	json_object_set_new(obj, "tasks_per_node", json_integer(t->tasks_per_node));
	json_object_set_new(obj, "restarts", json_integer(t->restarts));
	json_object_set_new(obj, "restart_reasons", restart_reasons_json(t));
	json_object_set_new(obj, "attempts", json_integer(t->attempts));
	json_object_set_new(obj, "job_id", json_uint_or_null(t->job_id, t->job_id));
	json_object_set_new(obj, "array_job_id",
	                    json_uint_or_null(t->array_job_id, t->array_job_id));
	json_object_set_new(obj, "array_task_id",
	                    json_uint_or_null(t->array_job_id, t->array_task_id));
	json_object_set_new(obj, "log", log ? json_string(log) : json_null());
	json_object_set_new(obj, "reason",
	                    task_reason(v, i) ? json_string(task_reason(v, i)) : json_null());
	json_object_set_new(obj, "verdict", verdict_json(v, i));
	json_object_set_new(obj, "cause",
	                    c->failed         ? json_string(c->text)
	                    : v->no_metric[i] ? json_string(v->no_metric[i])
	                                      : json_null());
	json_object_set_new(obj, "program_line", c->line ? json_string(c->line) : json_null());
	json_object_set_new(obj, "what_ran", c->note ? json_string(c->note) : json_null());
	json_object_set_new(obj, "staging_s",
	                    v->stage[i].found ? json_real(v->stage[i].seconds) : json_null());
	json_object_set_new(obj, "staging",
	                    !v->stage[i].found     ? json_null()
	                    : v->stage[i].unpacked ? json_string("copied")
	                                           : json_string("shared"));
	free(log);
	return obj;
}

void status_view_print_json(FILE *f, const struct status_view *v, const struct plan *plan,
                            bool one_line)
{
	json_t *root = json_object(), *sweep = json_object(), *counts = json_object();
	json_t *arrays = json_array(), *tasks = json_array();

	json_object_set_new(sweep, "id", json_integer(v->rec.id));
	json_object_set_new(sweep, "name", json_string(v->rec.name));
	json_object_set_new(sweep, "ntasks", json_integer((json_int_t)plan->ntasks));
	json_object_set_new(sweep, "status", json_string(sweep_status_name(v->rec.status)));
	json_object_set_new(sweep, "error", v->rec.error ? json_string(v->rec.error) : json_null());
	for (size_t i = 0; i < v->narrays; i++)
		json_array_append_new(arrays, json_integer(v->arrays[i].job_id));
	json_object_set_new(sweep, "array_job_ids", arrays);
	json_object_set_new(root, "sweep", sweep);
	for (int s = 0; s < TS_NSTATES; s++)
		if (v->counts[s])
			json_object_set_new(counts, task_state_name(s),
			                    json_integer((json_int_t)v->counts[s]));
	if (v->unsubmitted)
		json_object_set_new(counts, NOT_SUBMITTED,
		                    json_integer((json_int_t)v->unsubmitted));
	json_object_set_new(root, "counts", counts);
	json_object_set_new(root, "held", hold_counts_json(v->tasks, plan->ntasks));
	if (v->counts[TS_HELD]) {
		struct strbuf sb = STRBUF_INIT;

		hold_add_hints(&sb, v->tasks, plan->ntasks);
		json_object_set_new(root, "release", json_string(sb.buf));
		strbuf_release(&sb);
	} else {
		json_object_set_new(root, "release", json_null());
	}
	json_object_set_new(root, "done", json_integer((json_int_t)v->done));
	json_object_set_new(root, "completed_no_metric",
	                    v->judged ? json_integer((json_int_t)v->nno_metric) : json_null());
	json_object_set_new(root, "finish",
	                    v->finish.len ? json_string(v->finish.buf) : json_null());
	for (size_t i = 0; i < plan->ntasks; i++)
		json_array_append_new(tasks, json_task(v, plan, i));
	json_object_set_new(root, "tasks", tasks);
	json_object_set_new(root, "cause_groups", causes_groups_json(&v->causes, NULL, 0));
	output_json_print(f, root, one_line ? JSON_COMPACT : JSON_INDENT(2));
}

/*
 * Whether --watch can stop: nothing pending or running any more, and no
 * follow-up job pending or running (it may start more tasks). Tasks with
 * no record at all may be on their way: slurmdbd hears of a task's start a
 * moment after slurmctld, and of a new array job a moment after sbatch
 * returns. They are taken as missing only once their number has not changed
 * for MISSING_SETTLE_S.
 */
#define MISSING_SETTLE_S 30

bool status_view_settled(const struct status_view *v, struct status_settling *st)
{
	size_t missing = v->counts[TS_MISSING];
	time_t now = time(NULL);

	if (v->active || v->followups_active)
		return false;
	if (!missing)
		return true;
	if (missing != st->missing) {
		st->missing = missing;
		st->missing_at = now;
		return false;
	}
	return now - st->missing_at >= MISSING_SETTLE_S;
}
