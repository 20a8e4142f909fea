/*
 * What sweep gpus shows of the lab's GPU rules (--rules: the rules and
 * what they allow this user now) and of the local runners' announcements
 * on the board, as text and JSON.
 */
#include "gpu_board_view.h"

#include <pwd.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "gpu.h"
#include "output.h"
#include "rules.h"
#include "strbuf.h"

#include "banned.h"

/* ---- --rules: the lab's rules and what they allow this user now ---- */

struct allowed {
	uint64_t limit_s; /* the time limit asked about; 0 = none */
	bool may_start;
	unsigned gpu; /* the GPU it would get */
	struct strbuf why;
};

/* What board_decide says now of one task asking one GPU, for this user. */
static void decide_now(struct allowed *out, const struct rules *rules, const struct gpu_set *set,
                       const struct board_entry *runners, size_t nrunners, const char *user,
                       size_t rank, int64_t now)
{
	struct board_gpu *idle = xcalloc(set->ngpus + 1, sizeof(*idle));
	struct board_turn t = {0};
	time_t tnow = (time_t)now;
	struct tm tm;
	const struct board_entry *blocker;
	size_t chosen[1];

	localtime_r(&tnow, &tm);
	for (size_t i = 0; i < set->ngpus; i++)
		if (set->gpus[i].verdict == GPU_FREE &&
		    !board_holds(runners, nrunners, set->gpus[i].uuid))
			idle[t.nfree++].index = set->gpus[i].index;
	t.rules = rules;
	t.free = idle;
	t.others = runners;
	t.nothers = nrunners;
	t.user = user;
	t.uid = (unsigned)getuid();
	t.pid = (long)getpid();
	t.rank = rank;
	t.want = 1;
	t.waiting_since = now;
	t.limit_s = out->limit_s;
	t.minute = (unsigned)(tm.tm_hour * 60 + tm.tm_min);
	strbuf_init(&out->why, 0);
	out->may_start = board_decide(chosen, &out->why, &blocker, &t) == 0;
	if (out->may_start)
		out->gpu = idle[chosen[0]].index;
	free(idle);
}

static void limit_text(char *buf, size_t size, uint64_t limit_s)
{
	char t[24];

	if (!limit_s) {
		snprintf(buf, size, "with no time limit");
		return;
	}
	board_format_limit(t, sizeof(t), limit_s);
	snprintf(buf, size, "with a time limit of %s", t);
}

static void print_rules_text(const struct rules *r, bool found, const char *user, unsigned held,
                             size_t rank, const struct rules_priority *entry,
                             const struct allowed *now, size_t nnow)
{
	char t[64];

	if (!found) {
		printf("no GPU rules: '%s' does not exist; runners of every user take free GPUs as "
		       "they find them\n",
		       rules_path());
	} else {
		printf("GPU rules: '%s'\n", r->file);
		if (r->max_gpus)
			printf("  cap: %u GPU%s per user at once; %s holds %u\n", r->max_gpus,
			       r->max_gpus == 1 ? "" : "s", user, held);
		else
			printf("  cap: none; %s holds %u\n", user, held);
		if (r->ndebug) {
			board_format_limit(t, sizeof(t), r->debug_max_s);
			printf("  debug GPU%s ", r->ndebug == 1 ? "" : "s");
			for (size_t i = 0; i < r->ndebug; i++)
				printf("%s%u", i ? "," : "", r->debug_gpus[i]);
			printf(": for tasks up to %s\n", t);
		}
		if (r->long_runs) {
			board_format_limit(t, sizeof(t), r->long_over_s);
			printf("  long runs (over %s) start %02u:%02u-%02u:%02u\n", t,
			       r->long_from / 60, r->long_from % 60, r->long_to / 60,
			       r->long_to % 60);
		}
		for (size_t i = 0; i < r->nprio; i++) {
			const struct rules_priority *p = &r->prio[i];
			char until[32] = "";

			if (p->until) {
				time_t last = (time_t)(p->until - 1);
				struct tm tm;

				strftime(until, sizeof(until), " until %Y-%m-%d",
				         localtime_r(&last, &tm));
			}
			printf("  priority %zu: %s %s%s%s\n", i + 1, p->user ? "user" : "group",
			       p->user ? p->user : p->group, until,
			       p->until && p->until <= (int64_t)time(NULL) ? " (ended)" : "");
		}
		if (r->nprio && entry)
			printf("  %s: priority %zu (%s %s)\n", user, rank + 1,
			       entry->user ? "user" : "group",
			       entry->user ? entry->user : entry->group);
		else if (r->nprio)
			printf("  %s: not on the priority list, after its %zu entr%s\n", user,
			       r->nprio, r->nprio == 1 ? "y" : "ies");
	}
	printf("\nnow, a task of %s asking 1 GPU:\n", user);
	for (size_t i = 0; i < nnow; i++) {
		limit_text(t, sizeof(t), now[i].limit_s);
		if (now[i].may_start)
			printf("  %s: may start, on GPU %u\n", t, now[i].gpu);
		else
			printf("  %s: waits (%s)\n", t, now[i].why.buf);
	}
}

static void print_rules_json(const struct rules *r, bool found, const char *user, unsigned held,
                             size_t rank, const struct allowed *now, size_t nnow)
{
	json_t *root = json_object(), *debug = json_array(), *prio = json_array(),
	       *tasks = json_array();

	for (size_t i = 0; i < r->ndebug; i++)
		json_array_append_new(debug, json_integer(r->debug_gpus[i]));
	for (size_t i = 0; i < r->nprio; i++) {
		json_t *e = json_object();

		json_object_set_new(
		    e, r->prio[i].user ? "user" : "group",
		    json_string(r->prio[i].user ? r->prio[i].user : r->prio[i].group));
		json_object_set_new(
		    e, "until", r->prio[i].until ? json_integer(r->prio[i].until) : json_null());
		json_array_append_new(prio, e);
	}
	for (size_t i = 0; i < nnow; i++) {
		json_t *e = json_object();

		json_object_set_new(e, "time_limit_s",
		                    now[i].limit_s ? json_integer((json_int_t)now[i].limit_s)
		                                   : json_null());
		json_object_set_new(e, "may_start", json_boolean(now[i].may_start));
		json_object_set_new(e, "gpu",
		                    now[i].may_start ? json_integer(now[i].gpu) : json_null());
		json_object_set_new(e, "reason",
		                    now[i].may_start ? json_null() : json_string(now[i].why.buf));
		json_array_append_new(tasks, e);
	}
	json_object_set_new(root, "file", json_string(found ? r->file : rules_path()));
	json_object_set_new(root, "found", json_boolean(found));
	json_object_set_new(root, "user", json_string(user));
	json_object_set_new(root, "held", json_integer(held));
	json_object_set_new(root, "max_gpus_per_user",
	                    r->max_gpus ? json_integer(r->max_gpus) : json_null());
	json_object_set_new(root, "debug_gpus", debug);
	json_object_set_new(root, "debug_max_time_s",
	                    r->ndebug ? json_integer((json_int_t)r->debug_max_s) : json_null());
	if (r->long_runs) {
		json_t *l = json_object();

		json_object_set_new(l, "longer_than_s", json_integer((json_int_t)r->long_over_s));
		json_object_set_new(l, "start_minute", json_integer(r->long_from));
		json_object_set_new(l, "end_minute", json_integer(r->long_to));
		json_object_set_new(root, "long_runs", l);
	} else {
		json_object_set_new(root, "long_runs", json_null());
	}
	json_object_set_new(root, "priority", prio);
	json_object_set_new(root, "rank",
	                    rank < r->nprio ? json_integer((json_int_t)rank + 1) : json_null());
	json_object_set_new(root, "now", tasks);
	output_json_print(stdout, root, JSON_INDENT(2));
}

int gpu_board_view_rules(const struct gpu_set *set, const struct board_entry *runners,
                         size_t nrunners, bool json)
{
	struct rules rules;
	const struct rules_priority *entry = NULL;
	struct allowed now[2];
	struct passwd *pw = getpwuid(getuid());
	char *user = pw ? xstrdup(pw->pw_name) : xstrfmt("%u", (unsigned)getuid());
	int64_t when = (int64_t)time(NULL);
	unsigned held = 0;
	size_t rank = 0, nnow = 0;
	bool found;

	rules_init(&rules);
	if (rules_load(&rules, &found) < 0) {
		free(user);
		return SWEEP_ERR;
	}
	for (size_t i = 0; i < nrunners; i++)
		if (runners[i].uid == (unsigned)getuid())
			held += (unsigned)runners[i].nheld;
	if (found)
		rank = board_rank(&rules, (unsigned)getuid(), user, when, &entry);
	/* a short task (the debug GPUs' bound, else an hour), then one with no limit */
	now[nnow++].limit_s = rules.ndebug ? rules.debug_max_s : 3600;
	now[nnow++].limit_s = 0;
	for (size_t i = 0; i < nnow; i++)
		decide_now(&now[i], found ? &rules : NULL, set, runners, nrunners, user, rank,
		           when);
	if (json)
		print_rules_json(&rules, found, user, held, rank, now, nnow);
	else
		print_rules_text(&rules, found, user, held, rank, entry, now, nnow);
	for (size_t i = 0; i < nnow; i++)
		strbuf_release(&now[i].why);
	rules_release(&rules);
	free(user);
	return 0;
}

/* "18:40" today, "Mon 18:40" within a week, else "2026-12-20 18:40". */
static void clock_text(char *buf, size_t size, int64_t when, int64_t now)
{
	time_t t = (time_t)when, n = (time_t)now;
	struct tm tm, today;

	localtime_r(&t, &tm);
	localtime_r(&n, &today);
	if (tm.tm_year == today.tm_year && tm.tm_yday == today.tm_yday)
		strftime(buf, size, "%H:%M", &tm);
	else if (when > now && when - now < 6 * 86400)
		strftime(buf, size, "%a %H:%M", &tm);
	else
		strftime(buf, size, "%Y-%m-%d %H:%M", &tm);
}

static void gpu_list_text(struct strbuf *out, const struct board_entry *e)
{
	strbuf_addstr(out, e->nheld == 1 ? "GPU " : "GPUs ");
	for (size_t g = 0; g < e->nheld; g++)
		strbuf_addf(out, "%s%u", g ? "," : "", e->gpus[g]);
}

/*
 * One runner's announcement: "alice: GPUs 2,3, sweep resnet-lr, 12 of 40
 * tasks, ends about 18:40, at the latest 23:10", and why it waits. Its
 * texts come from another user's file: shown escaped, never raw.
 */
static void runner_text(struct strbuf *out, const struct board_entry *e, int64_t now)
{
	char when[32];

	strbuf_addf(out, "%s: ", e->user ? e->user : "?");
	if (e->nheld)
		gpu_list_text(out, e);
	else
		strbuf_addstr(out, "no GPU");
	strbuf_addstr(out, ", sweep ");
	strbuf_add_shown(out, e->sweep ? e->sweep : "?");
	strbuf_addf(out, ", %zu of %zu task%s", e->done, e->total, e->total == 1 ? "" : "s");
	if (e->ends_about) {
		clock_text(when, sizeof(when), e->ends_about, now);
		strbuf_addf(out, ", ends about %s", when);
	}
	if (e->ends_latest) {
		clock_text(when, sizeof(when), e->ends_latest, now);
		strbuf_addf(out, ", at the latest %s", when);
	}
	if (e->want) {
		clock_text(when, sizeof(when), e->waiting_since, now);
		strbuf_addf(out, "; waits for %u GPU%s since %s", e->want, e->want == 1 ? "" : "s",
		            when);
		if (e->reason) {
			strbuf_addstr(out, " (");
			strbuf_add_escaped(out, e->reason);
			strbuf_addch(out, ')');
		}
	}
}

void gpu_board_view_runners(const struct board_entry *e, size_t n)
{
	int64_t now = (int64_t)time(NULL);

	if (!n)
		return;
	printf("\nrunners (sweep submit --local):\n");
	for (size_t i = 0; i < n; i++) {
		struct strbuf line = STRBUF_INIT;

		runner_text(&line, &e[i], now);
		printf("  %s\n", line.buf);
		strbuf_release(&line);
	}
}

json_t *gpu_board_view_runner_json(const struct board_entry *e)
{
	json_t *o = json_object(), *gpus = json_array();

	for (size_t g = 0; g < e->nheld; g++)
		json_array_append_new(gpus, json_integer(e->gpus[g]));
	json_object_set_new(o, "user", json_string(e->user ? e->user : "?"));
	json_object_set_new(o, "pid", json_integer(e->pid));
	json_object_set_new(o, "host", e->host ? json_string(e->host) : json_null());
	json_object_set_new(o, "sweep_id", json_integer(e->sweep_id));
	json_object_set_new(o, "sweep", e->sweep ? json_string(e->sweep) : json_null());
	json_object_set_new(o, "gpus", gpus);
	json_object_set_new(o, "done", json_integer((json_int_t)e->done));
	json_object_set_new(o, "total", json_integer((json_int_t)e->total));
	json_object_set_new(o, "ends_about",
	                    e->ends_about ? json_integer(e->ends_about) : json_null());
	json_object_set_new(o, "ends_latest",
	                    e->ends_latest ? json_integer(e->ends_latest) : json_null());
	json_object_set_new(o, "waiting_for_gpus", json_integer(e->want));
	json_object_set_new(o, "waiting_since",
	                    e->want ? json_integer(e->waiting_since) : json_null());
	json_object_set_new(o, "reason",
	                    e->want && e->reason ? json_string(e->reason) : json_null());
	return o;
}
