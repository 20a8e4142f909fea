#ifndef SWEEP_RULES_H
#define SWEEP_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A lab's GPU rules: the file a GPU server's admin writes for the local
 * runner (sweep submit --local), read with the sweep file reader's
 * machinery, so a mistake is "FILE:LINE:COLUMN: message" and an unknown
 * key gets a "did you mean". The file (README, "A lab's GPU rules"):
 *
 *   max_gpus_per_user: 2        # GPUs one user's runners hold at once
 *   debug_gpus:                 # kept for short and interactive work
 *     gpus: [0]
 *     max_time: "1:00:00"       # a task allowed longer never goes there
 *   long_runs:                  # optional: when long runs may start
 *     longer_than: "4:00:00"
 *     start: "20:00-08:00"
 *   priority:                   # first = highest; the rest come after
 *     - user: alice
 *       until: 2026-12-20       # through that day (local time)
 *     - group: phd
 *
 * Times are sbatch's --time forms ("60" is minutes). With no file the
 * runner keeps no rule (rules_load's found is false).
 *
 * Every string is owned by the struct and freed by rules_release.
 */

#define RULES_DEFAULT_PATH "/etc/sweep/gpu-rules.yaml"
#define RULES_MAX_BYTES    (1u << 20)

struct rules_priority {
	char *user; /* exactly one of user and group */
	char *group;
	int64_t until; /* unix seconds it ends; 0 = no end */
	unsigned line; /* where it stood in the file */
};

struct rules {
	char *file;           /* the path it was read from */
	unsigned max_gpus;    /* max_gpus_per_user; 0 = no cap */
	unsigned *debug_gpus; /* nvidia-smi indices, ascending */
	size_t ndebug;
	uint64_t debug_max_s;        /* debug_gpus.max_time */
	bool long_runs;              /* long_runs given */
	uint64_t long_over_s;        /* a run whose time limit is over this is long */
	unsigned long_from, long_to; /* minutes after midnight, [from, to) wrapping midnight */
	struct rules_priority *prio;
	size_t nprio;
};

void rules_init(struct rules *r);
void rules_release(struct rules *r);

/* The rule file's path: $SWEEP_GPU_RULES, else RULES_DEFAULT_PATH. Borrowed. */
const char *rules_path(void);

/*
 * Reads text[0..len) (file names it in messages) into out (initialised).
 * On a mistake reports "FILE:LINE:COLUMN: ..." through error(), releases
 * out and returns SWEEP_ERR. An `until` in the past is not a mistake: the
 * entry no longer counts (rules_rank).
 */
int rules_parse(struct rules *out, const char *file, const char *text, size_t len);

/*
 * Reads rules_path() into out (initialised). *found is false, and out
 * left empty, when there is no file there (ENOENT): no rule applies.
 * Fails (error() names the path) when it cannot be read or is wrong.
 */
int rules_load(struct rules *out, bool *found);

/*
 * The rank of a user in the priority list at time now: the position of
 * the first entry naming user or one of groups that has not ended, or
 * r->nprio when none does (after every listed one). Lower goes first.
 * With entry, *entry is that entry (NULL for none).
 */
size_t rules_rank(const struct rules *r, const char *user, const char *const *groups,
                  size_t ngroups, int64_t now, const struct rules_priority **entry);

/* Whether GPU index is one of the debug GPUs. */
bool rules_is_debug(const struct rules *r, unsigned index);

/*
 * Whether a task of time limit limit_s (0 = none, longer than any) may go
 * on GPU index: not a debug GPU, or one whose max_time it keeps within.
 */
bool rules_gpu_allows(const struct rules *r, unsigned index, uint64_t limit_s);

/*
 * Whether a run of time limit limit_s (0 = none) may start at minute
 * (after local midnight) of the day: a short one always; a long one (over
 * long_runs.longer_than) only within long_runs.start.
 */
bool rules_may_start(const struct rules *r, uint64_t limit_s, unsigned minute);

#endif
