#ifndef SWEEP_STORE_H
#define SWEEP_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "array.h"
#include "taskdir.h"

struct plan;

/*
 * The state store: one SQLite database, <state_dir>/sweep.db, with one
 * folder per sweep beside it (<state_dir>/sweeps/<id>/) holding the
 * generated script, the settings table the tasks read, and the tasks'
 * own folders.
 *
 * Only the CLI writes the database; tasks only write files in their own
 * folders. Every write is one transaction, so a crash at any point leaves
 * the store consistent. The schema is versioned (PRAGMA user_version) and
 * migrated on open.
 *
 * Submission protocol: store_begin_sweep records the sweep as SUBMITTING
 * before sbatch runs; each accepted array job is recorded at once with
 * store_add_array; store_finish_sweep marks it SUBMITTED or FAILED. A sweep
 * left SUBMITTING (a crash in between) is never shown as running.
 */

enum sweep_status {
	SWEEP_SUBMITTING = 0,
	SWEEP_SUBMITTED = 1,
	SWEEP_FAILED = 2,
};

const char *sweep_status_name(enum sweep_status s);

struct sweep_rec {
	int64_t id;
	char *name;    /* job name */
	char *source;  /* the sweep file's absolute path */
	char *dir;     /* <state_dir>/sweeps/<id>, absolute */
	char *script;  /* the generated script's absolute path */
	char *logs;    /* absolute logs folder (log files: <logs>/<name>_<A>_<a>.out) */
	char *backend; /* "slurm" (or "local") */
	enum sweep_status status;
	char *error;          /* why submission failed, or NULL */
	int64_t created_at;   /* unix seconds */
	int64_t submitted_at; /* 0 while not submitted */
	size_t ntasks;
	size_t nsettings;
	size_t nseeds;
	unsigned max_concurrent; /* the %K throttle it was submitted with; 0 = none */
	unsigned pack;           /* sweep tasks per array task (1 = not packed) */
	/*
	 * Rolling submission: the array tasks per chunk when the sweep did not
	 * fit under the cluster's limits at once and follow-ups submit the rest
	 * as earlier chunks end (see rolling.h); 0 = submitted at once.
	 */
	uint32_t roll_chunk;
	enum taskdir_layout task_layout; /* where its task folders are (taskdir.h) */
};

void sweep_rec_init(struct sweep_rec *rec);
void sweep_rec_release(struct sweep_rec *rec);

struct store;

/*
 * Opens (creating the folder and database when create is non-zero) the
 * store in state_dir. Fails with a clear message when the folder or
 * database cannot be opened, or the schema is newer than this sweep knows.
 */
int store_open(struct store **out, const char *state_dir, int create);
/* Closes the store; NULL does nothing. */
void store_close(struct store *st);
/* Borrowed from st: the absolute state folder. */
const char *store_dir(const struct store *st);

/*
 * Records a new sweep as SUBMITTING with its plan, and the sweep file's
 * text, in one transaction. rec->name, source, logs, backend,
 * max_concurrent must be set; the store assigns id, dir, script
 * (<dir>/<name>.sbatch), created_at and the counts, and fills them into rec.
 * Creates the sweep's folder.
 */
int store_begin_sweep(struct store *st, struct sweep_rec *rec, const struct plan *plan,
                      const char *spec_text);

/* Records one accepted array job of the sweep (its own transaction). */
int store_add_array(struct store *st, int64_t sweep_id, const struct array_rec *arr);

/* Marks the sweep SUBMITTED (with submitted_at = now) or FAILED with a reason. */
int store_finish_sweep(struct store *st, int64_t sweep_id, enum sweep_status status,
                       const char *reason);

/*
 * Finds a sweep by id (all digits) or name (the most recent with that
 * name); which == NULL means the most recent sweep. Reports "no sweep
 * named ..." or "no sweeps in ..." when there is none.
 */
int store_find_sweep(struct store *st, struct sweep_rec *out, const char *which);

/* All sweeps, oldest first. *out is an array the caller frees with sweep_recs_free. */
int store_list_sweeps(struct store *st, struct sweep_rec **out, size_t *n);
void sweep_recs_free(struct sweep_rec *recs, size_t n);

/*
 * The text of the sweep file as it was submitted, into *out (the caller
 * frees it; "" for sweeps recorded without it).
 */
int store_load_spec(struct store *st, char **out, int64_t sweep_id);

/* The plan (parameters, settings, seeds) the sweep was submitted with. */
int store_load_plan(struct store *st, struct plan *out, int64_t sweep_id);

/* The sweep's array jobs, in submission order. Free with array_recs_free. */
int store_load_arrays(struct store *st, struct array_rec **out, size_t *n, int64_t sweep_id);

/* The highest attempt number recorded for the sweep (0 when none). */
int store_last_attempt(struct store *st, unsigned *out, int64_t sweep_id);

/*
 * Kept accounting records (acct_cache.h decides what): the records of array
 * jobs whose tasks have all finished, exactly as a query returned them.
 */
struct acct_cache_entry;
struct acct_set;

/*
 * Appends every kept record of the sweep to rows (in the order they were
 * kept, array job by array job) and lists the array jobs they belong to;
 * *kept is an array the caller frees (NULL when *n is 0).
 */
int store_acct_load(struct store *st, struct acct_cache_entry **kept, size_t *n,
                    struct acct_set *rows, int64_t sweep_id);

/*
 * In one transaction: forgets what was kept of the array jobs drop[0..ndrop-1],
 * and keeps, for each of keep[0..nkeep-1], the records of set whose
 * array_job_id is its job_id and whose task it keeps (replacing what was
 * kept of it before; but when the store keeps some of its tasks already,
 * for the same array job and with the same steps, adding only the rows of
 * the tasks kept since: their rows in set are the kept ones). Drop an array
 * job too to have all of its rows written anew.
 */
int store_acct_update(struct store *st, int64_t sweep_id, const struct acct_cache_entry *keep,
                      size_t nkeep, const struct acct_set *set, const uint32_t *drop, size_t ndrop);

/*
 * The local side of the seam (backend/local/): array jobs run on this machine by
 * a runner process (the sweep binary itself), and their tasks. The runner
 * writes a task's row at each change of state, each its own transaction;
 * the records query of the local side reads them.
 */
struct local_array_rec {
	uint32_t job_id; /* %A; its tasks have job ids job_id, job_id + 1, ... in order */
	int64_t sweep_id;
	uint32_t offset;       /* the script's argument: sweep index = offset + array task id */
	char *script;          /* absolute path */
	char *name;            /* --job-name (%x) */
	char *workdir;         /* --chdir */
	char *out_pattern;     /* --output, with sbatch's %x %A %a %j */
	char *err_pattern;     /* --error */
	int append;            /* --open-mode=append: logs are added to, not truncated */
	unsigned throttle;     /* at most this many tasks at once */
	uint64_t time_limit_s; /* 0 = none */
	int warn_signal;       /* sent warn_s seconds before the limit; 0 = none */
	unsigned warn_s;
	uint64_t mem_mb;       /* per task, 0 = none */
	unsigned ncpus;        /* CPUs per task */
	unsigned gpus;         /* GPUs per task */
	uint32_t after_job_id; /* starts once this local array job has ended; 0 = at once */
	char *host;            /* the machine it runs on */
	int64_t runner_pid;    /* 0 until the runner is started */
	uint64_t runner_start; /* its start time (clock ticks after boot), against pid reuse */
	int64_t submit_time;
};

void local_array_rec_release(struct local_array_rec *rec);

struct local_task_rec {
	uint32_t job_id; /* the task's own (SLURM_JOB_ID) */
	uint32_t array_job_id;
	uint32_t array_task_id;
	int state; /* enum task_state (acct.h) */
	int exit_code;
	int signal;
	int64_t pid;        /* its script's process, a session leader; 0 before it starts */
	uint64_t pid_start; /* that process's start time (clock ticks after boot) */
	int64_t start_time, end_time; /* unix seconds, 0 if not yet */
	uint64_t maxrss_bytes;        /* UINT64_MAX when none measured */
	uint64_t cpu_us;              /* user + system CPU time; UINT64_MAX when not measured */
	char *gpus;                   /* the GPUs it was given, "0,2"; NULL when none */
	/* Why it is still PENDING ("cap: ..."), or NULL: store_local_set_reason writes it. */
	char *reason;
};

void local_task_recs_free(struct local_task_rec *recs, size_t n);

/*
 * Records a local array job and its tasks (PENDING, array task ids as
 * given, ascending) in one transaction, with job ids above every local
 * job id used before in this store: sets arr->job_id and submit_time.
 */
int store_local_add(struct store *st, struct local_array_rec *arr, const uint32_t *task_ids,
                    size_t n);
/* Records the runner of a local array job. */
int store_local_set_runner(struct store *st, uint32_t job_id, int64_t pid, uint64_t start);
/* One local array job; reports "no local array job N" when there is none. */
int store_local_load_array(struct store *st, struct local_array_rec *out, uint32_t job_id);
/*
 * The local array jobs of the sweep that run its script, oldest first, for
 * recovery (backend_ops.find): job_id, offset, submitted_at and attempt 1
 * set, spec NULL. One whose every task was cancelled before it started
 * (a submission that failed and cancelled it) ran nothing: left out. Free
 * with array_recs_free.
 */
int store_local_find(struct store *st, struct array_rec **out, size_t *n, int64_t sweep_id,
                     const char *script);
/* Its tasks, by array task id. Free with local_task_recs_free. */
int store_local_load_tasks(struct store *st, struct local_task_rec **out, size_t *n,
                           uint32_t array_job_id);
/* Writes one task's state, times, process and measurements (by job id). */
int store_local_update_task(struct store *st, const struct local_task_rec *t);
/* Sets why every PENDING task of a local array job waits (NULL: clears it), at once. */
int store_local_set_reason(struct store *st, uint32_t array_job_id, const char *reason);
/* Marks every PENDING task of a local array job CANCELLED, ended at end_time, at once. */
int store_local_cancel_pending(struct store *st, uint32_t array_job_id, int64_t end_time);

/*
 * What a sweep does by itself once its array jobs end (the sweep file's
 * retries, retry_on_exit, notify, fail_fast), the sweep binary its
 * follow-up jobs run, and what it extends. A sweep without a row has none
 * of it (all zero).
 */
struct sweep_policy {
	unsigned retries;    /* at most this many retry rounds (attempts 2..retries + 1) */
	bool retry_on_exit;  /* retry non-zero exits and missing metrics too */
	unsigned fail_fast;  /* cancel the rest after this many non-zero exits; 0 = never */
	char *mail;          /* notify.mail, or NULL */
	char *command;       /* notify.command, or NULL */
	char *program;       /* absolute path of the sweep binary follow-ups run, or NULL */
	int64_t notified_at; /* 0 until the one notification was claimed */
	int64_t extends;     /* the sweep this one extends; 0 = none */
	char *recipe;        /* what makes a task identical (extend.h), or NULL */
};

void sweep_policy_release(struct sweep_policy *p);

/* Records (or replaces) the sweep's policy. */
int store_set_policy(struct store *st, int64_t sweep_id, const struct sweep_policy *p);
/* The sweep's policy into out (overwritten; all zero when it has none). Release it. */
int store_load_policy(struct store *st, struct sweep_policy *out, int64_t sweep_id);
/*
 * Claims the sweep's one notification: sets *claimed when this call set
 * notified_at (it was 0), so however often it is called, one caller wins.
 */
int store_claim_notification(struct store *st, bool *claimed, int64_t sweep_id);

/*
 * Follow-up jobs: what runs when array jobs of a sweep end (followup.h).
 * seq numbers them 1, 2, ... per sweep; each is claimed once (PENDING ->
 * RUNNING) by whoever runs it, so it never acts twice.
 */
enum followup_state {
	FOLLOWUP_PENDING = 0,
	FOLLOWUP_RUNNING = 1,
	FOLLOWUP_DONE = 2,
	FOLLOWUP_CANCELLED = 3,
	FOLLOWUP_FAILED = 4,
};

const char *followup_state_name(enum followup_state s);

struct followup_rec {
	unsigned seq;
	uint32_t job_id; /* the scheduler's job, or 0 when a local runner runs it */
	char *after;     /* the job ids it waits for, "12,13" */
	char *purpose;   /* what it is for, in words: "retry round 1 of 2, notify" */
	bool mail;       /* submitted with the scheduler's mail at its end */
	enum followup_state state;
	char *note; /* what it did, or NULL */
	int64_t submitted_at, started_at, ended_at;
};

void followup_recs_free(struct followup_rec *recs, size_t n);

/* Records a PENDING follow-up (seq, job_id, after, purpose, mail; submitted_at 0 = now). */
int store_add_followup(struct store *st, int64_t sweep_id, const struct followup_rec *f);
/* The sweep's follow-ups by seq. Free with followup_recs_free. */
int store_load_followups(struct store *st, struct followup_rec **out, size_t *n, int64_t sweep_id);
/* PENDING -> RUNNING; *claimed is false when it was not PENDING (ran, or cancelled). */
int store_claim_followup(struct store *st, bool *claimed, int64_t sweep_id, unsigned seq);
/* Records the end of a follow-up: its state and what it did. */
int store_end_followup(struct store *st, int64_t sweep_id, unsigned seq, enum followup_state state,
                       const char *note);
/* Marks every PENDING follow-up of the sweep CANCELLED. */
int store_cancel_followups(struct store *st, int64_t sweep_id);

/*
 * The tasks an extending sweep (submit --extend) took from earlier sweeps
 * instead of running them: its task index -> the sweep and index that ran
 * it (the one that really ran, not a sweep that reused it in turn).
 */
struct reused_rec {
	size_t index;
	int64_t from_sweep;
	size_t from_index;
};

/* Records the reused tasks of a sweep, in one transaction. */
int store_add_reused(struct store *st, int64_t sweep_id, const struct reused_rec *recs, size_t n);
/* The reused tasks of a sweep by index (*out NULL when none); the caller frees *out. */
int store_load_reused(struct store *st, struct reused_rec **out, size_t *n, int64_t sweep_id);

/* A setting left out of a sweep's report (report --exclude), and why. */
struct exclusion_rec {
	char *selector; /* "lr=-0.1" or "lr=-0.1,wd=0": the settings with these values */
	char *reason;
	int64_t created_at;
};

void exclusion_recs_free(struct exclusion_rec *recs, size_t n);
/* Records (or replaces) an exclusion of sweep_id. */
int store_add_exclusion(struct store *st, int64_t sweep_id, const char *selector,
                        const char *reason);
/* Forgets one; *found says whether there was one. */
int store_remove_exclusion(struct store *st, bool *found, int64_t sweep_id, const char *selector);
/* The exclusions of a sweep, oldest first (*out NULL when none); free with exclusion_recs_free. */
int store_load_exclusions(struct store *st, struct exclusion_rec **out, size_t *n,
                          int64_t sweep_id);
/*
 * Why failed tasks failed (store_cause.c): what the end of a run's logs
 * said, kept per task index for the run it was read from, so that a
 * finished sweep's logs are read once.
 */
struct cause_rec {
	size_t index;
	uint32_t array_job_id, array_task_id, job_id;
	int64_t end_time; /* of the run the logs are from */
	char *line;       /* cause_pick's line, or NULL */
	bool log_oom;
	char *ran_host;   /* the task script's record of what ran: the host, and */
	char *ran_path;   /* the command's first word resolved there ("" not found); NULL none */
};

void cause_recs_free(struct cause_rec *recs, size_t n);
/* Every kept cause of a sweep, by ascending index; the caller frees with cause_recs_free. */
int store_load_causes(struct store *st, struct cause_rec **out, size_t *n, int64_t sweep_id);
/* Keeps recs (replacing what was kept for their indices), in one transaction. */
int store_put_causes(struct store *st, int64_t sweep_id, const struct cause_rec *recs, size_t n);

/*
 * The command's first word (the program) and where the submitting host
 * found it on PATH (NULL: not found there), recorded by submit.
 */
int store_set_program(struct store *st, int64_t sweep_id, const char *name,
                      const char *submit_path);
/* *name NULL when none was recorded (an older sweep); the caller frees both. */
int store_load_program(struct store *st, char **name, char **submit_path, int64_t sweep_id);

#endif
