#ifndef SWEEP_BACKEND_H
#define SWEEP_BACKEND_H

#include <stddef.h>
#include <stdint.h>

struct acct_set;
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
	/*
	 * A descriptor (never 0) that sbatch inherits and so holds while it
	 * runs: the submission lock, which must outlive a killed submit for as
	 * long as the sbatch it started may still create the job. 0 = none.
	 */
	int hold_fd;
};

struct backend_ops {
	const char *name; /* as recorded in sweep_rec.backend */
	/*
	 * How commands show this side to the user: the program that submits
	 * ("sbatch"), the command line printed for a submission ("sbatch
	 * --parsable"), and why tasks have no record while their records may
	 * still be on their way, and after.
	 */
	const char *submitter;
	const char *submit_command;
	const char *no_record_yet;
	const char *no_record;
	/* The largest array this side accepts (the highest index is one less); 0 = no limit. */
	int (*max_array_size)(uint32_t *out);
	/* Submits one array job; sets its id. */
	int (*submit)(uint32_t *job_id, const struct backend_submit *req);
	/* Every record (all runs) of the given array jobs of the sweep. */
	int (*records)(struct acct_set *out, struct store *st, const struct sweep_rec *rec,
	               const struct array_rec *arrays, size_t narrays);
	/* Cancels the given array jobs; ones already finished are not an error. */
	int (*cancel)(struct store *st, const struct sweep_rec *rec, const struct array_rec *arrays,
	              size_t narrays);
	/*
	 * The array jobs this side accepted for the sweep's script, found by
	 * the job name and the script (job_id, offset and attempt 1 set; spec
	 * NULL), after a submission that died before recording them. NULL when
	 * this side records its jobs itself.
	 */
	int (*find)(struct array_rec **out, size_t *n, const struct sweep_rec *rec);
};

/* The side named name (NULL: the default, Slurm); reports and returns NULL for an unknown one. */
const struct backend_ops *backend_get(const char *name);

/* The side that runs tasks on this machine, without a scheduler (sweep submit --local). */
const struct backend_ops *backend_local(void);

/*
 * The outcome of every task of a sweep: its array jobs from the store, one
 * records query on its side, outcome_build. out has rec->ntasks entries.
 * *arrays (free with array_recs_free) and set stay the caller's, since
 * outcomes borrow from set.
 */
int backend_load_outcomes(struct task_outcome *out, struct acct_set *set, struct array_rec **arrays,
                          size_t *narrays, struct store *st, const struct sweep_rec *rec);

/*
 * The hidden command a backend's own helper process runs as (the local
 * backend's runner), and its entry point; main.c dispatches it.
 */
#define BACKEND_HELPER_COMMAND "__local-runner"
int backend_helper_main(int argc, char **argv);

#endif
