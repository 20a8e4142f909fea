#ifndef SWEEP_BOARD_H
#define SWEEP_BOARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rules;
struct rules_priority;
struct strbuf;

/*
 * The board: what each local runner that uses GPUs says of itself, in the
 * GPU lock folder (gpu_lock_dir()), so that the runners of every user on
 * the machine keep the lab's rules (rules.h) together, and `sweep gpus`
 * shows who holds what and until when.
 *
 * One file per runner, sweep-runner-<uid>-<pid>.json, made as the GPU locks
 * are (O_EXCL, 0644, never through a link) and replaced whole with
 * rename(2), so a reader sees an old or a new announcement, never half of
 * one. The runner holds a flock on it while it lives: a file that can be
 * locked belongs to a runner that is gone (kill -9 included) and is passed
 * over, and removed by the next runner of its owner. A reader believes a
 * file only when it is a regular file with one name whose owner is the uid
 * its name gives.
 *
 * Every string of an entry is owned by it (board_entries_free).
 */

struct board_entry {
	unsigned uid; /* the file's owner, checked against its name */
	char *user;   /* that uid's name (or its number) */
	long pid;
	char *host;
	int64_t sweep_id;
	char *sweep; /* the sweep's name */
	uint32_t job_id;
	unsigned *gpus; /* indices of the GPUs its tasks hold */
	char **uuids;   /* and their uuids */
	size_t nheld;
	unsigned want;         /* GPUs its next task asks while it waits; 0 = not waiting */
	int64_t waiting_since; /* unix seconds, while want */
	uint64_t time_limit_s; /* its tasks' (0 = none) */
	char *reason;          /* why its next task waits ("cap: ..."), or NULL */
	size_t done, total;    /* tasks ended, tasks in all */
	int64_t ends_about;    /* unix seconds; 0 = no estimate yet */
	int64_t ends_latest;   /* by the time limits; 0 = no limit */
	size_t rank;           /* filled by the caller: rules_rank */
	bool passed_over;      /* set by the caller: it left GPUs it was given the turn for */
};

void board_entry_release(struct board_entry *e);
void board_entries_free(struct board_entry *e, size_t n);

/* The announcement as JSON text (appended to out). */
void board_entry_format(struct strbuf *out, const struct board_entry *e);
/* Reads text into out (zeroed first); -1, out released, when it is not one. uid is not read. */
int board_entry_parse(struct board_entry *out, const char *text);

/* The runner's own file: its path and the descriptor it holds the flock on. */
struct board {
	char *path;
	int fd; /* -1 before the first post */
};

#define BOARD_INIT                                                                                 \
	{                                                                                          \
		NULL, -1                                                                           \
	}

/*
 * Publishes e (its uid and pid are this process's) in place of the last
 * announcement. Fails quietly (returns -1, says nothing) when the folder
 * cannot take it: the board is a courtesy, the GPU locks are the safety.
 */
int board_post(struct board *b, const struct board_entry *e);
/* Removes the announcement and releases b; nothing when none was posted. */
void board_withdraw(struct board *b);

/*
 * Every live announcement in the folder, but this process's own; a
 * missing folder gives none. Stale files of this user are removed.
 * *out is freed with board_entries_free.
 */
int board_read(struct board_entry **out, size_t *n);

/*
 * The rank of the user of uid (named user) in the rules' priority list at
 * time now: rules_rank with the user's name and every group it is in
 * (entry, when not NULL, is set as rules_rank sets it).
 */
size_t board_rank(const struct rules *rules, unsigned uid, const char *user, int64_t now,
                  const struct rules_priority **entry);

/* Whether one of the runners e[0..n) holds the GPU of uuid. */
bool board_holds(const struct board_entry *e, size_t n, const char *uuid);

/*
 * When a runner expects to be done, in unix seconds: from the elapsed
 * times of its ended tasks (their mean m), its running tasks' elapsed
 * times, how many wait and how many run at once (parallel, at least 1).
 * about: each running task ends after max(m - elapsed, 0), the waiting
 * ones in rounds of parallel, m each; 0 when no task ended yet. latest:
 * the same with the time limit, the upper bound; 0 with no limit. about is
 * never after latest.
 */
void board_estimate(int64_t *about, int64_t *latest, const double *done_s, size_t ndone,
                    const double *running_s, size_t nrunning, size_t pending, size_t parallel,
                    uint64_t limit_s, int64_t now);

/* A GPU that is free and that no live runner holds, for board_turn. */
struct board_gpu {
	unsigned index;
};

/* What one runner asks of a turn. */
struct board_turn {
	const struct rules *rules;
	const struct board_gpu *free; /* ascending index */
	size_t nfree;
	const struct board_entry *others; /* live, rank filled */
	size_t nothers;
	const char *user; /* this runner's */
	unsigned uid;
	long pid;
	size_t rank;
	unsigned want;         /* GPUs its task asks */
	int64_t waiting_since; /* unix seconds */
	uint64_t limit_s;      /* its tasks' time limit, 0 = none */
	unsigned held;         /* GPUs this runner holds */
	unsigned minute;       /* of the local day, for long_runs */
};

/*
 * The rules' decision for this runner's next task, pure: 0 and chosen[0..
 * want) set to positions in free (the GPUs to take), or 1 and the reason
 * it waits in why, and *blocker the runner ahead that the free GPUs go to
 * (NULL when none: the rules or too few GPUs hold it back). A runner
 * passed_over is not ahead of anyone: a runner that announces it waits
 * and does not take the GPUs it is given would otherwise hold everyone
 * back (the caller decides when one is, BOARD_STALL_S). Never past a user's cap (held by all the
 * user's runners); never a debug GPU for a task allowed longer than its max_time; long runs only in
 * their hours. Free GPUs go first to the waiting runners ahead of it: by rank, then by who waited
 * longer (then uid, pid); a runner ahead that the free GPUs cannot serve now keeps no GPU from
 * those behind. A short task takes debug GPUs first, leaving the others to long runs.
 */
int board_decide(size_t *chosen, struct strbuf *why, const struct board_entry **blocker,
                 const struct board_turn *t);

/* How long a runner ahead may leave free GPUs it was given the turn for. */
#define BOARD_STALL_S 15

/* "1h", "90min", "1-00:00:30": a time limit for people. */
void board_format_limit(char *buf, size_t size, uint64_t s);

#endif
