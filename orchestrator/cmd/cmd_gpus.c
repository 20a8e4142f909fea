/*
 * sweep gpus: which GPUs of this machine are free now, and why the others
 * are not (who runs what on them), as sweep submit --local chooses them.
 */
#include <getopt.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "board.h"
#include "cli.h"
#include "error.h"
#include "gpu.h"
#include "gpuproc.h"
#include "local.h"
#include "output.h"
#include "rules.h"
#include "strbuf.h"
#include "table.h"
#include "units.h"

#include "banned.h"

static const struct cli_option option_table[] = {
    {0, "mine", 'M', NULL,
     "only your processes on GPUs, and the kill line for those left\n"
     "by sweep tasks that ended (sweep never kills them itself)"},
    {0, "min-free", 'm', "SIZE",
     "free means no compute process and at least SIZE of memory free\n"
     "(4000, 512M, 20G; default: 90% of the GPU's memory)"},
    {0, "rules", 'r', NULL,
     "the lab's GPU rules ($SWEEP_GPU_RULES, else\n" RULES_DEFAULT_PATH
     ") and what they allow you now"},
    CLI_OPT_JSON,
    CLI_OPT_HELP,
    CLI_OPT_END,
};

static struct cli_command command = {
    .usage = "sweep gpus [options]",
    .intro =
        "Lists the GPUs, then each compute process on them: pid, user, elapsed time, memory\n"
        "and command (\"unknown\" for a process of another PID namespace). A process of yours\n"
        "that outlived the sweep task that started it is marked \"left by sweep N task I\".\n"
        "\n",
    .options = option_table,
    .outro = "\n"
             "The last line, CUDA_VISIBLE_DEVICES=..., names the free GPUs in nvidia-smi's order\n"
             "(with CUDA_DEVICE_ORDER=PCI_BUS_ID, printed before it). Before it, what each local\n"
             "runner of any user announces: its GPUs, its sweep, how far along it is and when it\n"
             "expects to end, or why its next task waits (the lab's rules, sweep(1)).\n"
             "\n"
             "exit status: 0 success, 1 error (no nvidia-smi, no GPU), 2 usage.\n",
};

static void mib_text(char *buf, size_t size, uint64_t mib)
{
	if (mib == GPU_NO_VALUE)
		snprintf(buf, size, "?");
	else
		units_format_bytes(buf, size, mib * 1024 * 1024);
}

static void proc_text(struct strbuf *out, const struct gpu_proc *p)
{
	char mem[32];

	mib_text(mem, sizeof(mem), p->used_mib);
	strbuf_addf(out, "pid %ld", p->pid);
	if (p->command)
		strbuf_addf(out, " %s", p->command);
	if (p->user)
		strbuf_addf(out, " (%s, %s)", p->user, mem);
	else
		strbuf_addf(out, " (%s, owner unknown: another container's?)", mem);
}

static void verdict_text(struct strbuf *out, const struct gpu_set *set, size_t i, uint64_t min_free,
                         const struct board_entry *runners, size_t nrunners)
{
	const struct gpu *g = &set->gpus[i];
	char need[32], have[32];
	bool first = true;

	switch (g->verdict) {
	case GPU_FREE:
		strbuf_addstr(out, "free");
		return;
	case GPU_UNKNOWN_MEMORY:
		strbuf_addstr(out, "not free: nvidia-smi does not report its memory use");
		return;
	case GPU_LOW_MEMORY:
		mib_text(have, sizeof(have), g->total_mib - g->used_mib);
		mib_text(need, sizeof(need), gpu_min_free_mib(g, min_free));
		strbuf_addf(out, "not free: no compute process, but only %s free (free needs %s)",
		            have, need);
		return;
	case GPU_HELD:
		for (size_t k = 0; k < nrunners; k++)
			if (board_holds(&runners[k], 1, g->uuid)) {
				strbuf_addf(out, "held: %s's runner (sweep ",
				            runners[k].user ? runners[k].user : "?");
				strbuf_add_shown(out, runners[k].sweep ? runners[k].sweep : "?");
				strbuf_addstr(out, "), no process on it yet");
				return;
			}
		strbuf_addstr(out, "held by a runner");
		return;
	case GPU_BUSY:
		break;
	}
	strbuf_addstr(out, "busy: ");
	for (size_t k = 0; k < set->nprocs; k++) {
		if (set->procs[k].gpu != i)
			continue;
		if (!first)
			strbuf_addstr(out, "; ");
		proc_text(out, &set->procs[k]);
		first = false;
	}
}

static void print_procs(const struct gpu_set *set, const struct gpuproc *info, bool mine);

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

/* sweep gpus --rules */
static int show_rules(const struct gpu_set *set, const struct board_entry *runners, size_t nrunners,
                      bool json)
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

static void print_runners(const struct board_entry *e, size_t n)
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

static json_t *json_runner(const struct board_entry *e)
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

/* The GPUs, the processes on them, and last the line to paste. */
static void print_text(const struct gpu_set *set, const struct gpuproc *info, size_t nfree,
                       uint64_t min_free, const struct board_entry *runners, size_t nrunners)
{
	static const char *const head[] = {"GPU", "NAME", "MEMORY USED", "STATE"};
	struct strbuf ids = STRBUF_INIT;
	struct table t;

	table_init_head(&t, head, sizeof(head) / sizeof(head[0]));
	for (size_t i = 0; i < set->ngpus; i++) {
		const struct gpu *g = &set->gpus[i];
		struct strbuf verdict = STRBUF_INIT;
		char used[32], total[32];

		mib_text(used, sizeof(used), g->used_mib);
		mib_text(total, sizeof(total), g->total_mib);
		verdict_text(&verdict, set, i, min_free, runners, nrunners);
		table_add(&t, xstrfmt("%u", g->index));
		table_addstr(&t, g->name);
		table_add(&t, xstrfmt("%s of %s", used, total));
		table_add(&t, strbuf_detach(&verdict, NULL));
	}
	table_print(stdout, &t);
	table_release(&t);
	if (set->nprocs)
		print_procs(set, info, false);
	print_runners(runners, nrunners);
	gpu_free_list(&ids, set);
	printf("\n%zu of %zu GPU%s free\n", nfree, set->ngpus, output_plural(set->ngpus, "", "s"));
	printf("export CUDA_DEVICE_ORDER=PCI_BUS_ID\nCUDA_VISIBLE_DEVICES=%s\n", ids.buf);
	strbuf_release(&ids);
}

/* What /proc says of each process nvidia-smi lists, in set->procs order. */
static struct gpuproc *read_procs(const struct gpu_set *set)
{
	struct gpuproc *info = xcalloc(set->nprocs ? set->nprocs : 1, sizeof(*info));

	for (size_t k = 0; k < set->nprocs; k++)
		gpuproc_read(&info[k], set->procs[k].pid);
	return info;
}

static void free_procs(struct gpuproc *info, size_t n)
{
	for (size_t k = 0; k < n; k++)
		gpuproc_release(&info[k]);
	free(info);
}

static bool is_mine(const struct gpuproc *p)
{
	return p->known && p->uid == getuid();
}

static void proc_row(struct table *t, const struct gpu_set *set, const struct gpuproc *p, size_t k)
{
	const struct gpu_proc *g = &set->procs[k];
	char mem[32], etime[32];

	mib_text(mem, sizeof(mem), g->used_mib);
	gpuproc_format_etime(etime, sizeof(etime), p->elapsed_s);
	table_add(t, g->gpu < set->ngpus ? xstrfmt("%u", set->gpus[g->gpu].index) : xstrdup("?"));
	table_add(t, xstrfmt("%ld", p->pid));
	table_addstr(t, p->known ? p->user : "unknown");
	table_addstr(t, p->known ? etime : "unknown");
	table_addstr(t, mem);
	table_addstr(t, p->command ? p->command : "unknown");
	if (p->outlived)
		table_add(t, xstrfmt("left by sweep %lld task %ld", (long long)p->sweep_id,
		                     p->task_index));
	else if (p->sweep_id >= 0)
		table_add(t, xstrfmt("sweep %lld task %ld", (long long)p->sweep_id, p->task_index));
	else
		table_addstr(t, "");
}

/*
 * The processes on GPUs (only the caller's with mine), and with mine the
 * kill line for those left by ended sweep tasks.
 */
static void print_procs(const struct gpu_set *set, const struct gpuproc *info, bool mine)
{
	static const char *const head[] = {"GPU",    "PID",     "USER", "ELAPSED",
	                                   "MEMORY", "COMMAND", "SWEEP"};
	struct strbuf kill = STRBUF_INIT;
	struct table t;
	size_t shown = 0;

	table_init_head(&t, head, sizeof(head) / sizeof(head[0]));
	for (size_t k = 0; k < set->nprocs; k++) {
		if (mine && !is_mine(&info[k]))
			continue;
		proc_row(&t, set, &info[k], k);
		shown++;
		if (is_mine(&info[k]) && info[k].outlived)
			strbuf_addf(&kill, " %ld", info[k].pid);
	}
	if (shown) {
		fputc('\n', stdout);
		table_print(stdout, &t);
	} else {
		printf("%sno %sprocess on a GPU\n", mine ? "" : "\n",
		       mine ? "process of yours, no " : "");
	}
	if (mine && kill.len)
		printf("\nleft by sweep tasks that ended; to stop them:\nkill%s\n", kill.buf);
	else if (mine)
		printf("\nnone of them was left by an ended sweep task\n");
	table_release(&t);
	strbuf_release(&kill);
}

static json_t *json_mib(uint64_t mib)
{
	return mib == GPU_NO_VALUE ? json_null() : json_integer((json_int_t)mib);
}

static json_t *json_proc(const struct gpu_proc *p, const struct gpuproc *info)
{
	json_t *po = json_object();

	json_object_set_new(po, "pid", json_integer(p->pid));
	json_object_set_new(po, "user", p->user ? json_string(p->user) : json_null());
	json_object_set_new(po, "command", p->command ? json_string(p->command) : json_null());
	json_object_set_new(po, "command_line",
	                    info->command ? json_string(info->command) : json_null());
	json_object_set_new(po, "elapsed_s",
	                    info->known ? json_integer((json_int_t)info->elapsed_s) : json_null());
	json_object_set_new(po, "used_memory_mib", json_mib(p->used_mib));
	json_object_set_new(po, "sweep_id",
	                    info->sweep_id >= 0 ? json_integer(info->sweep_id) : json_null());
	json_object_set_new(po, "task_index",
	                    info->sweep_id >= 0 ? json_integer(info->task_index) : json_null());
	json_object_set_new(po, "outlived_task", json_boolean(info->outlived));
	return po;
}

static void print_json(const struct gpu_set *set, const struct gpuproc *info, bool mine,
                       const struct board_entry *runners, size_t nrunners)
{
	static const char *const verdicts[] = {
	    [GPU_FREE] = NULL,
	    [GPU_BUSY] = "busy",
	    [GPU_LOW_MEMORY] = "low_memory",
	    [GPU_UNKNOWN_MEMORY] = "unknown_memory",
	    [GPU_HELD] = "held_by_runner",
	};
	json_t *root = json_object(), *gpus = json_array(), *free_ids = json_array();
	json_t *jrunners = json_array();
	struct strbuf ids = STRBUF_INIT;

	for (size_t i = 0; i < set->ngpus; i++) {
		const struct gpu *g = &set->gpus[i];
		json_t *obj = json_object(), *procs = json_array();
		const char *why = verdicts[g->verdict];

		for (size_t k = 0; k < set->nprocs; k++)
			if (set->procs[k].gpu == i && (!mine || is_mine(&info[k])))
				json_array_append_new(procs, json_proc(&set->procs[k], &info[k]));
		json_object_set_new(obj, "index", json_integer(g->index));
		json_object_set_new(obj, "uuid", json_string(g->uuid));
		json_object_set_new(obj, "name", json_string(g->name));
		json_object_set_new(obj, "memory_used_mib", json_mib(g->used_mib));
		json_object_set_new(obj, "memory_total_mib", json_mib(g->total_mib));
		json_object_set_new(obj, "free", json_boolean(g->verdict == GPU_FREE));
		json_object_set_new(obj, "why_not", why ? json_string(why) : json_null());
		json_object_set_new(obj, "processes", procs);
		json_array_append_new(gpus, obj);
		if (g->verdict == GPU_FREE)
			json_array_append_new(free_ids, json_integer(g->index));
	}
	gpu_free_list(&ids, set);
	json_object_set_new(root, "gpus", gpus);
	json_object_set_new(root, "free", free_ids);
	for (size_t i = 0; i < nrunners; i++)
		if (!mine || runners[i].uid == (unsigned)getuid())
			json_array_append_new(jrunners, json_runner(&runners[i]));
	json_object_set_new(root, "runners", jrunners);
	json_object_set_new(root, "cuda_visible_devices", json_string(ids.buf));
	output_json_print(stdout, root, JSON_INDENT(2));
	strbuf_release(&ids);
}

int cmd_gpus(int argc, char **argv)
{
	struct gpu_set set;
	struct gpuproc *info = NULL;
	struct board_entry *runners = NULL;
	size_t nrunners = 0;
	uint64_t min_free = 0;
	bool json = false, mine = false, rules = false;
	const char *why;
	size_t nfree;
	int opt, code, ret = EXIT_ERROR;

	gpu_set_init(&set);
	cli_command_prepare(&command);
	while ((opt = getopt_long(argc, argv, command.shortopts, command.longopts, NULL)) != -1) {
		switch (opt) {
		case 'm':
			if (units_parse_mem(&min_free, optarg, &why) < 0) {
				error("--min-free '%s': %s", optarg, why);
				return cli_usage(stderr, command.usage, command.help);
			}
			break;
		case 'j':
			json = true;
			break;
		case 'M':
			mine = true;
			break;
		case 'r':
			rules = true;
			break;
		default:
			code = cli_common_option(opt, NULL, argv, command.longopts, command.usage,
			                         command.help);
			if (code != CLI_CONTINUE)
				return code;
		}
	}
	code = cli_no_operands(argc, argv, command.usage, command.help);
	if (code != CLI_CONTINUE)
		return code;
	if (gpu_query(&set, true) < 0)
		goto out;
	if (!set.ngpus) {
		error("no GPU on this machine (nvidia-smi lists none); sweeps that ask no GPU run "
		      "here with 'sweep submit --local' (--gpus-per-task 0, the default)");
		goto out;
	}
	nfree = gpu_select(&set, min_free);
	info = read_procs(&set);
	board_read(&runners, &nrunners);
	for (size_t i = 0; i < set.ngpus; i++)
		if (set.gpus[i].verdict == GPU_FREE &&
		    board_holds(runners, nrunners, set.gpus[i].uuid)) {
			set.gpus[i].verdict = GPU_HELD;
			nfree--;
		}
	if (rules) {
		if (show_rules(&set, runners, nrunners, json) < 0)
			goto out;
	} else if (json) {
		print_json(&set, info, mine, runners, nrunners);
	} else {
		if (mine)
			print_procs(&set, info, true);
		else
			print_text(&set, info, nfree, min_free, runners, nrunners);
	}
	ret = EXIT_OK;
out:
	free_procs(info, info ? set.nprocs : 0);
	board_entries_free(runners, nrunners);
	gpu_set_release(&set);
	return ret;
}
