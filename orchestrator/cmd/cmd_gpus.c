/*
 * sweep gpus: which GPUs of this machine are free now, and why the others
 * are not (who runs what on them), as sweep submit --local chooses them.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "board.h"
#include "cli.h"
#include "error.h"
#include "gpu.h"
#include "gpu_board_view.h"
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
	gpu_board_view_runners(runners, nrunners);
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
			json_array_append_new(jrunners, gpu_board_view_runner_json(&runners[i]));
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
		if (gpu_board_view_rules(&set, runners, nrunners, json) < 0)
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
