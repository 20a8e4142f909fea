#ifndef SWEEP_SLURM_PACK_H
#define SWEEP_SLURM_PACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acct.h"

struct array_rec;
struct strbuf;

/*
 * Packed tasks without a job step each. A packed array task runs its sweep
 * tasks one after another in its own batch step, each through
 * `sweep __packrun FILE INDEX -- CMD...` (ACCT_PACK_COMMAND, slb_pack_run), which records the
 * task's start and end in FILE, <sweep dir>/ACCT_PACK_DIR/<job id> (one
 * file per array task), as a job step's record would: times, exit status
 * and signal, peak RSS and CPU time from wait4. The reader turns those
 * lines back into one acct_rec per sweep task (step_index set), exactly as
 * the records of steps named sweep-<index> (slurm_acct.c) read.
 *
 * A line, written with one write(2) to the file opened O_APPEND:
 *   S INDEX RESTART START_US HOST
 *   E INDEX RESTART START_US END_US EXIT SIGNAL MAXRSS_BYTES CPU_US HOST
 * RESTART is SLURM_RESTART_COUNT (a run of the array task after Slurm
 * requeued it); times are unix microseconds.
 */

/* The largest record file read: 10,000 tasks of ~100 bytes, twice over. */
#define SLB_PACK_MAX_BYTES (8u << 20)

struct slb_pack_line {
	bool end; /* an E line; else S */
	uint32_t index, restart;
	int64_t start_us, end_us; /* end_us 0 for an S line */
	int exit_code, signal;
	uint64_t maxrss_bytes, cpu_us;
	char host[256];
};

/*
 * Parses one line (without its newline, len bytes). Returns 0, or -1 with
 * *why set (a static text) when the line is not one of the two forms:
 * truncated, a bad number, a host name too long.
 */
int slb_pack_parse(struct slb_pack_line *out, const char *line, size_t len, const char **why);

/*
 * The records of one array task's file text: one acct_rec appended to out
 * per sweep task started in run `restart` of job (the array task's own
 * record, read from slurmdbd), with job's ids, time limit, requested
 * memory and CPUs. A task that ended: COMPLETED for exit 0 without a
 * signal, else FAILED. The last task started, when the array task itself
 * ended early (TIMEOUT, CANCELLED, OUT_OF_MEMORY, PREEMPTED, NODE_FAIL...)
 * and the task did not complete, or a task with no end line once the array
 * task ended: the array task's state (FAILED where that was COMPLETED), its
 * exit status, its end time and MaxRSS. A task with no end line while the
 * array task runs: RUNNING, elapsed up to now. Bad lines are skipped:
 * returns how many, and *why (the first's reason, with *bad_line its line
 * number) when there is one.
 */
size_t slb_pack_decode(struct acct_set *out, const struct acct_rec *job, uint32_t restart,
                       const char *text, size_t len, int64_t now, const char **why,
                       size_t *bad_line);

/*
 * Reads the record file path into out. Returns 1 when read, 0 when there is
 * none (an old sweep's array task, or one that has not started a task),
 * or a negative code with the error reported: a symbolic link or anything
 * else than a regular file in its place, a file someone else owns, larger
 * than SLB_PACK_MAX_BYTES, or unreadable.
 */
int slb_pack_read_file(struct strbuf *out, const char *path);

/*
 * Adds, after the records set->recs[from..] of one read, those of the sweep
 * tasks of each packed array task (arrays[].pack > 1) that has no step
 * named sweep-<index> among them, from its record file under sweep_dir.
 * Files that cannot be read are warned about; their tasks read as if they
 * had no record.
 */
void slb_pack_add(struct acct_set *set, size_t from, const char *sweep_dir,
                  const struct array_rec *arrays, size_t narrays, int64_t now);

/*
 * sweep __packrun FILE INDEX -- CMD [ARG...] (hidden, run by the packed
 * array task's script on the node): appends an S line to FILE, runs CMD,
 * waits for it with wait4, appends its E line, and exits with its status
 * (128 + N when signal N ended it). HUP, INT, QUIT, TERM, USR1, USR2 and
 * ALRM are ignored here (the script forwards the warning signal to this
 * process group, Slurm sends TERM to every process at the time limit: the
 * command gets them, this process outlives them to write the end); CMD
 * starts with their default actions. FILE is created mode 0600, never
 * through a symbolic link, and must be this user's own regular file.
 */
int slb_pack_run(int argc, char **argv);

#endif
