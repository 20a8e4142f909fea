/*
 * Held tasks in status: counts by kind and what releases them
 * (hold_print.h).
 */
#include "hold_print.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "output.h"

#include "banned.h"

/* At most this many array jobs named in one command. */
#define HOLD_MAX_ARRAYS 5

const char *hold_kind_text(enum acct_hold h)
{
	switch (h) {
	case ACCT_HOLD_USER:
		return "held by the user";
	case ACCT_HOLD_ADMIN:
		return "held by an administrator";
	case ACCT_HOLD_DEPENDENCY:
		return "waiting for a dependency";
	case ACCT_HOLD_DEP_NEVER:
		return "waiting for a dependency that can never be met";
	case ACCT_HOLD_BEGIN:
		return "waiting for a begin time";
	case ACCT_HOLD_NONE:
	case ACCT_NHOLDS:
		break;
	}
	return "";
}

static bool held(const struct task_outcome *o, enum acct_hold h)
{
	return o->state == TS_HELD && o->hold == h;
}

static size_t count_held(const struct task_outcome *tasks, size_t n, enum acct_hold h)
{
	size_t c = 0;

	for (size_t i = 0; i < n; i++)
		c += held(&tasks[i], h);
	return c;
}

void hold_add_counts(struct strbuf *out, const struct task_outcome *tasks, size_t n)
{
	bool first = true;

	for (int h = ACCT_HOLD_NONE + 1; h < ACCT_NHOLDS; h++) {
		size_t c = count_held(tasks, n, (enum acct_hold)h);

		if (!c)
			continue;
		strbuf_addf(out, "%s%zu %s", first ? " (" : ", ", c,
		            hold_kind_text((enum acct_hold)h));
		first = false;
	}
	if (!first)
		strbuf_addch(out, ')');
}

static int by_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Ascending, each once; returns the new count. */
static size_t sort_unique(uint32_t *v, size_t n)
{
	size_t m = 0;

	qsort(v, n, sizeof(*v), by_u32);
	for (size_t i = 0; i < n; i++)
		if (!m || v[m - 1] != v[i])
			v[m++] = v[i];
	return m;
}

/*
 * The jobs of the tasks held by h: "12", "12_5", "12_[3-4],13", as
 * hold_print.h says. Returns how many array jobs it left out.
 */
static size_t add_jobs(struct strbuf *out, const struct task_outcome *tasks, size_t n,
                       enum acct_hold h)
{
	uint32_t *arrays = xcalloc(n ? n : 1, sizeof(*arrays));
	uint32_t *ids = xcalloc(n ? n : 1, sizeof(*ids));
	size_t narrays = 0;

	for (size_t i = 0; i < n; i++)
		if (held(&tasks[i], h))
			arrays[narrays++] = tasks[i].array_job_id;
	narrays = sort_unique(arrays, narrays);
	for (size_t a = 0; a < narrays && a < HOLD_MAX_ARRAYS; a++) {
		size_t nids = 0;
		bool whole = false;

		for (size_t i = 0; i < n; i++) {
			if (!held(&tasks[i], h) || tasks[i].array_job_id != arrays[a])
				continue;
			/* No job id of its own: the task is in the array's pending record. */
			whole |= !tasks[i].job_id;
			ids[nids++] = tasks[i].array_task_id;
		}
		nids = sort_unique(ids, nids);
		strbuf_addf(out, "%s%" PRIu32, a ? "," : "", arrays[a]);
		if (whole)
			continue;
		if (nids == 1) {
			strbuf_addf(out, "_%" PRIu32, ids[0]);
			continue;
		}
		strbuf_addstr(out, "_[");
		array_spec_of_ids(out, ids, nids, 0);
		strbuf_addch(out, ']');
	}
	free(arrays);
	free(ids);
	return narrays > HOLD_MAX_ARRAYS ? narrays - HOLD_MAX_ARRAYS : 0;
}

/* The first held task's reason, and whether the others' differ. */
static const char *first_reason(const struct task_outcome *tasks, size_t n, enum acct_hold h,
                                bool *others)
{
	const char *first = NULL;

	*others = false;
	for (size_t i = 0; i < n; i++) {
		const char *r = tasks[i].pending_reason;

		if (!held(&tasks[i], h) || !r)
			continue;
		if (!first)
			first = r;
		else if (strcmp(first, r))
			*others = true;
	}
	return first;
}

static void add_hint(struct strbuf *out, const struct task_outcome *tasks, size_t n,
                     enum acct_hold h, size_t c)
{
	const char *them = output_plural(c, "it", "them"), *reason;
	size_t more = 0;
	bool others;

	strbuf_addf(out, "%zu task%s ", c, output_plural(c, "", "s"));
	switch (h) {
	case ACCT_HOLD_USER:
		strbuf_addf(out, "held by the user: release %s with 'scontrol release ", them);
		more = add_jobs(out, tasks, n, h);
		strbuf_addch(out, '\'');
		break;
	case ACCT_HOLD_ADMIN:
		strbuf_addf(out,
		            "held by an administrator: only an operator or administrator can "
		            "release %s ('scontrol release ",
		            them);
		more = add_jobs(out, tasks, n, h);
		strbuf_addstr(out, "'); ask one");
		break;
	case ACCT_HOLD_DEPENDENCY:
	case ACCT_HOLD_DEP_NEVER:
	case ACCT_HOLD_BEGIN:
		reason = first_reason(tasks, n, h, &others);
		if (h == ACCT_HOLD_BEGIN && reason)
			/* "begins at ..." is a task's: the line names the kind first. */
			strbuf_addf(out, "%s (%s%s): ", hold_kind_text(h), reason,
			            others ? ", and others" : "");
		else
			strbuf_addf(out, "%s%s: ", reason ? reason : hold_kind_text(h),
			            others ? " (and others)" : "");
		if (h == ACCT_HOLD_DEPENDENCY)
			strbuf_addstr(out, output_plural(c, "it starts", "they start"));
		else if (h == ACCT_HOLD_DEP_NEVER)
			strbuf_addstr(
			    out, output_plural(c, "it will never start", "they will never start"));
		else
			strbuf_addstr(out, output_plural(c, "it starts by itself",
			                                 "they start by themselves"));
		strbuf_addstr(out, h == ACCT_HOLD_DEPENDENCY
		                       ? " once it is met; 'scontrol update JobId="
		                   : h == ACCT_HOLD_BEGIN ? " then; 'scontrol update JobId="
		                                          : "; 'scontrol update JobId=");
		more = add_jobs(out, tasks, n, h);
		if (h == ACCT_HOLD_BEGIN)
			strbuf_addf(out, " StartTime=now' starts %s now", them);
		else if (h == ACCT_HOLD_DEPENDENCY)
			strbuf_addstr(out, " Dependency=' drops it");
		else
			strbuf_addf(out, " Dependency=' drops it, or cancel %s", them);
		break;
	case ACCT_HOLD_NONE:
	case ACCT_NHOLDS:
		break;
	}
	if (more)
		strbuf_addf(out, " (and %zu more array job%s)", more, output_plural(more, "", "s"));
	strbuf_addch(out, '\n');
}

void hold_add_hints(struct strbuf *out, const struct task_outcome *tasks, size_t n)
{
	for (int h = ACCT_HOLD_NONE + 1; h < ACCT_NHOLDS; h++) {
		size_t c = count_held(tasks, n, (enum acct_hold)h);

		if (c)
			add_hint(out, tasks, n, (enum acct_hold)h, c);
	}
}

json_t *hold_counts_json(const struct task_outcome *tasks, size_t n)
{
	json_t *obj = json_object();

	for (int h = ACCT_HOLD_NONE + 1; h < ACCT_NHOLDS; h++) {
		size_t c = count_held(tasks, n, (enum acct_hold)h);

		if (c)
			json_object_set_new(obj, acct_hold_name((enum acct_hold)h),
			                    json_integer((json_int_t)c));
	}
	return obj;
}
