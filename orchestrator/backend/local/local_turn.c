/*
 * The local runner's turn under the lab's rules (rules.h) and the board
 * (board.h): when a runner of GPU tasks may start one, what it announces
 * of itself, and why its tasks wait. The rest of the runner is
 * local_runner.c; local_runner_impl.h is what the two share.
 */
#include "local_runner_impl.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "acct.h"
#include "error.h"
#include "gpu.h"

#include "banned.h"

/* Says a new reason (or that none holds it back any more) once in the log. */
void local_turn_set_reason(struct runner *r, const char *why)
{
	struct run *run = local_next_pending(r);

	if (!strcmp(r->reason.buf, why ? why : ""))
		return;
	strbuf_reset(&r->reason);
	if (why)
		strbuf_addstr(&r->reason, why);
	if (why && run)
		local_say("task %" PRIu32 ": PENDING (%s)", run->rec.array_task_id, why);
	/* for sweep status: the REASON of every task still waiting */
	if (store_local_set_reason(r->st, r->arr.job_id, why) < 0)
		local_say("could not record why the tasks wait (see the error above)");
	r->board_dirty = true;
}

/* Reads the rule file again (an admin may change it while runners run). */
int local_turn_load_rules(struct runner *r)
{
	struct rules fresh;
	bool found;

	rules_init(&fresh);
	if (rules_load(&fresh, &found) < 0)
		return SWEEP_ERR;
	rules_release(&r->rules);
	r->rules = fresh;
	r->rules_found = found;
	return 0;
}

/* The turn: one runner at a time decides and takes GPUs by the rules. */
int local_turn_take(void)
{
	for (int tries = 0; tries < 50; tries++) {
		int fd = gpu_lock("sweep-turn", tries == 0);
		struct timespec ts = {0, 20 * 1000 * 1000};

		if (fd != GPU_LOCK_HELD)
			return fd;
		nanosleep(&ts, NULL);
	}
	return GPU_LOCK_HELD;
}

/* What this runner says of itself on the board. */
void local_turn_post_board(struct runner *r, double now)
{
	struct board_entry e = {0};
	double *done_s = xcalloc(r->nruns + 1, sizeof(*done_s));
	double *running_s = xcalloc(r->nruns + 1, sizeof(*running_s));
	size_t ndone = 0, nrunning = 0, nheld = 0, parallel;
	int64_t wall = (int64_t)time(NULL);

	for (size_t i = 0; i < r->nruns; i++)
		nheld += r->runs[i].ngpus;
	e.gpus = xcalloc(nheld + 1, sizeof(*e.gpus));
	e.uuids = xcalloc(nheld + 1, sizeof(*e.uuids));
	for (size_t i = 0; i < r->nruns; i++) {
		const struct run *run = &r->runs[i];

		for (size_t g = 0; g < run->ngpus; g++) {
			e.gpus[e.nheld] = run->indices[g];
			e.uuids[e.nheld++] = xstrdup(run->uuids[g]);
		}
		if (run->pid)
			running_s[nrunning++] = now - run->started;
		else if (task_state_is_final((enum task_state)run->rec.state)) {
			e.done++;
			if (run->rec.start_time && run->rec.end_time >= run->rec.start_time)
				done_s[ndone++] = (double)(run->rec.end_time - run->rec.start_time);
		}
	}
	parallel = nrunning ? nrunning : 1;
	if (r->arr.throttle && parallel > r->arr.throttle)
		parallel = r->arr.throttle;
	board_estimate(&e.ends_about, &e.ends_latest, done_s, ndone, running_s, nrunning,
	               local_count_pending(r), parallel, r->arr.time_limit_s, wall);
	e.pid = (long)getpid();
	e.host = xstrdup(r->host);
	e.sweep_id = r->arr.sweep_id;
	e.sweep = r->arr.name ? xstrdup(r->arr.name) : NULL;
	e.job_id = r->arr.job_id;
	e.user = xstrdup(r->user);
	e.total = r->nruns;
	e.time_limit_s = r->arr.time_limit_s;
	if (r->waiting_since && local_next_pending(r) && !r->stopping) {
		e.want = r->arr.gpus;
		e.waiting_since = r->waiting_since;
		e.reason = r->reason.len ? xstrdup(r->reason.buf) : NULL;
	}
	board_post(&r->board, &e);
	board_entry_release(&e);
	free(done_s);
	free(running_s);
	r->board_dirty = false;
	r->board_at = now + BOARD_REPOST_S;
}

/* GPUs the other runners hold, by the board. */
static unsigned held_by_others(const struct board_entry *others, size_t n)
{
	unsigned held = 0;

	for (size_t i = 0; i < n; i++)
		held += (unsigned)others[i].nheld;
	return held;
}

/* While waiting under the rules: a GPU another runner let go is a reason to look now. */
void local_turn_watch_board(struct runner *r)
{
	struct board_entry *others;
	size_t n;
	unsigned held;

	if (!r->rules_found || !r->waiting_since || board_read(&others, &n) < 0)
		return;
	held = held_by_others(others, n);
	if (held < r->others_held)
		r->gpu_retry_at = 0;
	r->others_held = held;
	board_entries_free(others, n);
}

/*
 * Remembers the runner ahead that the free GPUs went to. One that leaves
 * them untaken for BOARD_STALL_S (it announces that it waits, but does not
 * take what it is given: hung, or not a sweep runner at all) is passed over.
 */
static void note_blocker(struct runner *r, const struct board_entry *blocker, int64_t wall)
{
	if (!blocker) {
		r->blocked_since = 0;
		return;
	}
	if (r->blocked_since && blocker->uid == r->blocker_uid && blocker->pid == r->blocker_pid)
		return;
	r->blocker_uid = blocker->uid;
	r->blocker_pid = blocker->pid;
	r->blocked_since = wall;
	r->blocker_said = false;
}

static void pass_over_stalled(struct runner *r, struct board_entry *e, int64_t wall)
{
	if (!r->blocked_since || e->uid != r->blocker_uid || e->pid != r->blocker_pid ||
	    wall - r->blocked_since < BOARD_STALL_S)
		return;
	e->passed_over = true;
	if (!r->blocker_said)
		local_say("the runner of %s (pid %ld) has left free GPUs untaken for %" PRId64
		          " s while it says it waits: passed over",
		          e->user ? e->user : "?", e->pid, wall - r->blocked_since);
	r->blocker_said = true;
}

/* Starts the tasks the rules allow now, one decision (board_decide) each. */
void local_turn_start_by_rules(struct runner *r, const struct gpu_set *set, int64_t wall)
{
	struct board_entry *others = NULL;
	size_t nothers = 0;
	struct strbuf why = STRBUF_INIT;
	struct board_gpu *free_gpus = xcalloc(set->ngpus + 1, sizeof(*free_gpus));
	size_t *where = xcalloc(set->ngpus + 1, sizeof(*where)); /* free_gpus -> set */
	size_t *chosen = xcalloc(r->arr.gpus + 1, sizeof(*chosen));
	bool *only = xcalloc(set->ngpus + 1, sizeof(*only));
	struct tm tm;
	time_t t_now = (time_t)wall;

	localtime_r(&t_now, &tm);
	board_read(&others, &nothers);
	for (size_t i = 0; i < nothers; i++) {
		others[i].rank = board_rank(&r->rules, others[i].uid, others[i].user, wall, NULL);
		pass_over_stalled(r, &others[i], wall);
	}
	r->others_held = held_by_others(others, nothers);
	while (local_next_pending(r) &&
	       local_schedule(r->running, local_count_pending(r), r->arr.throttle, 0, 0)) {
		struct board_turn t = {0};
		struct strbuf ids = STRBUF_INIT;
		struct run *run = local_next_pending(r);
		const struct board_entry *blocker;
		size_t nfree = 0;
		unsigned held = 0;

		for (size_t i = 0; i < set->ngpus; i++) {
			const struct gpu *g = &set->gpus[i];

			if (g->verdict != GPU_FREE || local_held_here(r, g->uuid) ||
			    board_holds(others, nothers, g->uuid))
				continue;
			free_gpus[nfree].index = g->index;
			where[nfree++] = i;
		}
		for (size_t i = 0; i < r->nruns; i++)
			held += (unsigned)r->runs[i].ngpus;
		if (!r->waiting_since)
			r->waiting_since = wall;
		t.rules = &r->rules;
		t.free = free_gpus;
		t.nfree = nfree;
		t.others = others;
		t.nothers = nothers;
		t.user = r->user;
		t.uid = (unsigned)geteuid();
		t.pid = (long)getpid();
		t.rank = board_rank(&r->rules, t.uid, r->user, wall, NULL);
		t.want = r->arr.gpus;
		t.waiting_since = r->waiting_since;
		t.limit_s = r->arr.time_limit_s;
		t.held = held;
		t.minute = (unsigned)(tm.tm_hour * 60 + tm.tm_min);
		strbuf_reset(&why);
		if (board_decide(chosen, &why, &blocker, &t) != 0) {
			note_blocker(r, blocker, wall);
			local_turn_set_reason(r, why.buf);
			break;
		}
		note_blocker(r, NULL, wall);
		memset(only, 0, (set->ngpus + 1) * sizeof(*only));
		for (size_t k = 0; k < r->arr.gpus; k++)
			only[where[chosen[k]]] = true;
		if (local_take_gpus(r, run, set, &ids, only) < 0) {
			strbuf_release(&ids);
			local_turn_set_reason(
			    r, "resources: a GPU the rules gave is locked by another runner");
			break;
		}
		local_turn_set_reason(r, NULL);
		local_start_task(r, run, ids.buf);
		strbuf_release(&ids);
		/* Served: behind every runner that waits now. */
		r->waiting_since = local_next_pending(r) ? (int64_t)time(NULL) : 0;
		r->board_dirty = true;
	}
	board_entries_free(others, nothers);
	strbuf_release(&why);
	free(free_gpus);
	free(where);
	free(chosen);
	free(only);
}
