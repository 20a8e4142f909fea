#ifndef SWEEP_BACKEND_H
#define SWEEP_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acct.h"

struct acct_set;
struct quota;
struct reused_rec;
struct array_rec;
struct store;
struct sweep_rec;
struct task_outcome;

/*
 * Where tasks run: one seam with two sides, "submit these indices of this
 * plan" and "give me the records of this sweep". The Slurm side is
 * backend/slurm/ (sbatch, libslurm, slurmdbd), the local one backend/local/;
 * a sweep records which side ran it
 * (sweep_rec.backend). Nothing after this seam knows which side it was:
 * status, report, rightsize and resubmit see an acct_set either way.
 */

/* One array job to submit: the script, the --array value, its index offset. */
struct backend_submit {
	const char *script; /* path of the generated script */
	const char *array;  /* --array value, e.g. "0-49%10" or "3,17%2" */
	uint32_t offset;    /* sweep index = offset + array task id (the script's argument) */
	const char *const
	    *extra_args;    /* sbatch options overriding the script's, NULL-terminated, or NULL */
	unsigned timeout_s; /* give up after this long (0 = 60) */
	const char *const *script_args; /* the script's arguments instead of the offset
	                                   (packed resubmissions: "@i,j,k" and the step's
	                                   minutes), NULL-terminated, or NULL */
	const struct quota *quota;      /* limits read before submitting, to name the one a
	                                   refusal is about; may be NULL */
	/*
	 * A descriptor (never 0) that sbatch inherits and so holds while it
	 * runs: the submission lock, which must outlive a killed submit for as
	 * long as the sbatch it started may still create the job. 0 = none.
	 */
	int hold_fd;
};

/*
 * A follow-up job (followup.h): the sweep binary, run once every job in
 * after has ended, whatever their end (afterany).
 */
struct backend_followup {
	const char *script;    /* the follow-up script; its one argument is arg */
	const char *arg;       /* the follow-up's number */
	const uint32_t *after; /* the jobs it waits for */
	size_t nafter;
	const char *mail; /* the scheduler's own mail at its end to this address, or NULL */
	unsigned begin_s; /* start no earlier than this many seconds from now (0 = at once) */
};

/*
 * How a command reads records (in), and where they came from (out). The
 * Slurm side keeps the records of array jobs whose tasks all finished in
 * the state store (acct_cache.h) and asks slurmdbd only about the others;
 * the local side's records are local already and it ignores steps and
 * refresh.
 */
struct backend_read {
	bool steps;        /* in: MaxRSS is needed (status --tasks/--json, rightsize, resubmit) */
	bool refresh;      /* in: ignore what the store kept and read everything again */
	size_t kept;       /* out: array jobs answered from the state store */
	size_t asked;      /* out: array jobs the scheduler's accounting was asked about */
	unsigned queries;  /* out: queries sent to the scheduler's accounting (slurmdbd) */
	size_t tasks_kept; /* out: tasks of array jobs asked about answered from the state store */
	unsigned long step_records; /* out: job records whose steps the scheduler returned */
	unsigned long records;      /* out: job records the scheduler's accounting returned */
};

struct backend_ops {
	const char *name; /* as recorded in sweep_rec.backend */
	/*
	 * How commands show this side to the user: the program that submits
	 * ("sbatch"), the command line printed for a submission ("sbatch
	 * --parsable"), and why tasks have no record while their records may
	 * still be on their way, and after; who accepts array jobs ("Slurm",
	 * "the local runner") and how recovery found them.
	 */
	const char *submitter;
	const char *taker;
	const char *found_by;
	const char *submit_command;
	const char *no_record_yet;
	const char *no_record;
	/* The largest array this side accepts (the highest index is one less); 0 = no limit. */
	int (*max_array_size)(uint32_t *out);
	/* Submits one array job; sets its id. */
	int (*submit)(uint32_t *job_id, const struct backend_submit *req);
	/* Every record (all runs) of the given array jobs of the sweep; rd as above. */
	int (*records)(struct acct_set *out, struct backend_read *rd, struct store *st,
	               const struct sweep_rec *rec, const struct array_rec *arrays, size_t narrays);
	/* Cancels the given array jobs; ones already finished are not an error. */
	int (*cancel)(struct store *st, const struct sweep_rec *rec, const struct array_rec *arrays,
	              size_t narrays);
	/*
	 * The array jobs this side accepted for the sweep's script (job_id,
	 * offset and attempt 1 set; spec NULL), after a submission that died
	 * before recording them: Slurm's by the job name and the script, the
	 * local runner's from its tables in the state store. NULL when this
	 * side records its jobs itself.
	 */
	int (*find)(struct array_rec **out, size_t *n, const struct sweep_rec *rec);
	/*
	 * Submits a follow-up job; sets its id. NULL when this side runs
	 * follow-ups itself when the jobs they wait for end (the local runner).
	 */
	int (*followup)(uint32_t *job_id, const struct backend_followup *req);
	/*
	 * Asks the scheduler to mail addr when job job_id (a follow-up, running)
	 * ends. NULL when this side has no mail.
	 */
	int (*mail_at_end)(uint32_t job_id, const char *addr);
	/*
	 * What the scheduler lets this user queue now, for a job of this account
	 * and QOS (NULL: the defaults): quota.h. NULL on a side without limits.
	 */
	int (*limits)(struct quota *out, const char *account, const char *qos);
};

/* The side named name (NULL: the default, Slurm); reports and returns NULL for an unknown one. */
const struct backend_ops *backend_get(const char *name);

/* The side that runs tasks on this machine, without a scheduler (sweep submit --local). */
const struct backend_ops *backend_local(void);

/*
 * The outcome of every task of a sweep: its array jobs from the store, one
 * records query on its side (rd as for records), outcome_build. out has
 * rec->ntasks entries. *arrays (free with array_recs_free) and set stay
 * the caller's, since outcomes borrow from set.
 */
int backend_load_outcomes(struct task_outcome *out, struct acct_set *set, struct array_rec **arrays,
                          size_t *narrays, struct backend_read *rd, struct store *st,
                          const struct sweep_rec *rec);

/*
 * backend_load_outcomes with the sweep's reused tasks (submit --extend)
 * given: reused[0..nreused-1] as store_load_reused has them, read once
 * by the caller (loaded_reused), their outcomes read from the sweeps
 * that ran them. backend_load_outcomes reads them from the store itself.
 */
int backend_outcomes_reusing(struct task_outcome *out, struct acct_set *set,
                             struct array_rec **arrays, size_t *narrays, struct backend_read *rd,
                             struct store *st, const struct sweep_rec *rec,
                             const struct reused_rec *reused, size_t nreused);

/*
 * The records of the given array jobs on the sweep's side (ops->records),
 * with runs that died of the warning signal the script forwarded marked as
 * ended by the time limit (outcome_apply_signal_note, from the note in each
 * such task's folder); with SWEEP_DEBUG_RECORDS=FILE in the environment, every field of every
 * record is also appended to FILE, one line each (tests compare reads).
 */
int backend_records(struct acct_set *out, struct backend_read *rd, struct store *st,
                    const struct sweep_rec *rec, const struct array_rec *arrays, size_t narrays);

/*
 * Says on stderr where the records of rd came from, when the state store
 * answered for any array job: "records of N array jobs from the state store
 * (finished; --refresh to re-read)". With SWEEP_DEBUG_QUERIES=1 in the
 * environment, also how many accounting queries were sent.
 */
void backend_read_note(const struct backend_read *rd, size_t narrays);
/* The SWEEP_DEBUG_QUERIES line alone (status --watch, once per refresh). */
void backend_read_debug(const struct backend_read *rd);

/*
 * For `sweep version`: the libslurm the Slurm side was built against and
 * the one the process runs with. libslurm changes its soname with every
 * Slurm release, so a binary works only with the release series it was
 * built for. Needs no slurm.conf and no controller.
 */
struct backend_versions {
	char built_release[16];   /* "22.05.8", from the headers' SLURM_VERSION_NUMBER */
	const char *built_soname; /* "libslurm.so.38", from the build; "" when unknown */
	unsigned built_api;       /* 38: the soname's number; 0 when unknown */
	char running_api[16];     /* "38.0.0", from slurm_api_version() at run time */
	unsigned running_api_major;
	char running_path[4096]; /* the library file the loader chose; "" when unknown */
};
void backend_versions(struct backend_versions *out);

/*
 * The hidden command a backend's own helper process runs as (the local
 * backend's runner), and its entry point; main.c dispatches it.
 */
#define BACKEND_HELPER_COMMAND "__local-runner"
int backend_helper_main(int argc, char **argv);

/*
 * The hidden command a packed Slurm array task runs each of its sweep
 * tasks through, recording what a job step would have (slurm_pack.h).
 */
#define BACKEND_PACKRUN_COMMAND ACCT_PACK_COMMAND
int backend_packrun_main(int argc, char **argv);

/*
 * What a side that runs follow-ups itself (followup.h; the local runner)
 * calls when array job job_id of a sweep has no task left to run; main.c
 * sets it to the follow-up code. NULL (the default) calls nothing.
 */
typedef int (*backend_end_hook)(const char *state_dir, int64_t sweep_id, uint32_t job_id);
void backend_set_end_hook(backend_end_hook hook);

/*
 * For the end hook, which waits for several array jobs: whether every task
 * of the local side's array job job_id has a final state (*done). Fails,
 * after error(), when the store cannot be read.
 */
int backend_local_job_done(bool *done, struct store *st, uint32_t job_id);

#endif
