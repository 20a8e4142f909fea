#ifndef SWEEP_LOCAL_RUNNER_IMPL_H
#define SWEEP_LOCAL_RUNNER_IMPL_H

/*
 * Shared by the runner's two files, nowhere else: local_runner.c (the
 * runner: its tasks, their GPUs, deadlines and ends) and local_turn.c (the
 * lab's rules and the board: when a runner of GPU tasks may start one).
 * Both work on one struct runner, which the runner owns.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "board.h"
#include "local.h"
#include "rules.h"
#include "store.h"
#include "strbuf.h"

struct gpu_set;

#define RUN_MAX_SIDS   64 /* sessions followed per task (setsid in the task) */
#define BOARD_REPOST_S 10 /* the board's estimate is refreshed this often */

struct run {
	struct local_task_rec rec;
	pid_t pid; /* its script, while it runs */
	double started;
	bool warned, termed;
	enum local_stop why;
	double kill_at; /* SIGKILL its session from then on; 0: not yet */
	uint64_t peak;  /* polled peak of its session's RSS, bytes */
	uint64_t rss;
	char **uuids; /* its GPUs, their indices, and their locks */
	unsigned *indices;
	int *locks;
	size_t ngpus;
	/*
	 * Its sessions: the script's (sids[0] = pid), and those its processes
	 * made with setsid, found each second while their parent is one of
	 * the task's. Memory, the time limit and the end apply to all.
	 */
	long sids[RUN_MAX_SIDS];
	size_t nsids;
};

struct runner {
	struct store *st;
	struct local_array_rec arr;
	struct run *runs;
	size_t nruns;
	size_t next; /* runs before it have been started or were never pending */
	size_t running;
	struct local_deadlines dl;
	bool stopping;
	bool after_done;
	double gpu_retry_at;
	bool gpu_waiting;            /* said so in the log */
	struct strbuf refused_locks; /* "\n<uuid>\n..." of GPUs whose lock was unsafe, said once */
	uint32_t task_min, task_max;
	char offset[16];
	char host[256];
	unsigned fail_fast; /* the sweep's fail_fast; 0 = none */
	char *sweep_dir;    /* where the fail_fast counter is */
	/* The lab's rules (rules.h) and the board (board.h), for runners of GPU tasks. */
	struct rules rules;
	bool rules_found;
	struct board board;
	bool board_dirty;
	double board_at;       /* post again from then on */
	int64_t waiting_since; /* unix seconds since the next task waits for a GPU; 0 = not */
	struct strbuf reason;  /* why it waits, as said in the log and on the board */
	unsigned others_held;  /* GPUs other runners held at the last look */
	char *user;
	/* The runner ahead the free GPUs last went to, and since when (board_decide). */
	unsigned blocker_uid;
	long blocker_pid;
	int64_t blocked_since; /* unix seconds; 0 = none */
	bool blocker_said;
};

/* ---- the runner (local_runner.c) ---- */

/* A line of the runner's log: the local time, then fmt. */
void local_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The next task still pending, or NULL; the tasks before it never wait again. */
struct run *local_next_pending(struct runner *r);
/* How many tasks still wait to start. */
size_t local_count_pending(const struct runner *r);
/* Whether one of this runner's tasks holds the GPU uuid. */
bool local_held_here(const struct runner *r, const char *uuid);
/*
 * Gives run r->arr.gpus GPUs, lowest index first, of those only marked in
 * only (by position in set; NULL: any), and adds their indices to ids;
 * 0, or -1 (nothing held, ids emptied) when too few could be locked.
 */
int local_take_gpus(struct runner *r, struct run *run, const struct gpu_set *set,
                    struct strbuf *ids, const bool *only);
/* Starts run's script on the GPUs gpus ("0,2"; NULL: none); a failure is recorded. */
void local_start_task(struct runner *r, struct run *run, const char *gpus);

/* ---- the lab's rules and the board (local_turn.c) ---- */

/*
 * Sets why the next tasks wait (NULL: nothing holds them back); a new
 * reason is said once in the log, recorded for sweep status and posted.
 */
void local_turn_set_reason(struct runner *r, const char *why);
/* Reads the rule file again into r; SWEEP_ERR (reported) when it does not read. */
int local_turn_load_rules(struct runner *r);
/*
 * Takes the turn (one runner at a time decides and takes GPUs by the
 * rules), trying for about a second: its lock's descriptor (>= 0, the
 * caller closes it), GPU_LOCK_HELD when another runner kept it, or
 * gpu_lock's other codes (GPU_LOCK_NONE, GPU_LOCK_UNSAFE) when no lock
 * can be had (the caller goes on without the turn).
 */
int local_turn_take(void);
/* Posts what this runner says of itself on the board (now: local_now_s()). */
void local_turn_post_board(struct runner *r, double now);
/* While waiting under the rules: a GPU another runner let go makes it look again now. */
void local_turn_watch_board(struct runner *r);
/* Starts the tasks the rules allow now on set's GPUs (wall: unix seconds). */
void local_turn_start_by_rules(struct runner *r, const struct gpu_set *set, int64_t wall);

#endif
