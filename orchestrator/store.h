#ifndef SWEEP_STORE_H
#define SWEEP_STORE_H

#include <stddef.h>
#include <stdint.h>

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
	char *name;      /* job name */
	char *source;    /* the sweep file's absolute path */
	char *dir;       /* <state_dir>/sweeps/<id>, absolute */
	char *script;    /* the generated script's absolute path */
	char *logs;      /* absolute logs folder (log files: <logs>/<name>_<A>_<a>.out) */
	char *backend;   /* "slurm" (or "local") */
	enum sweep_status status;
	char *error;     /* why submission failed, or NULL */
	int64_t created_at;   /* unix seconds */
	int64_t submitted_at; /* 0 while not submitted */
	size_t ntasks;
	size_t nsettings;
	size_t nseeds;
	unsigned max_concurrent; /* the %K throttle it was submitted with; 0 = none */
};

void sweep_rec_init(struct sweep_rec *rec);
void sweep_rec_release(struct sweep_rec *rec);

/* One array job of a sweep: a chunk of the first submission, or a resubmission. */
struct array_rec {
	uint32_t job_id;  /* the array's job id (%A) */
	uint32_t offset;  /* sweep index = offset + array task id */
	char *spec;       /* the --array value it was submitted with, e.g. "0-49%10" or "3,17" */
	unsigned attempt; /* 1 for the first submission, 2 for the first resubmission... */
	int64_t submitted_at;
};

void array_rec_release(struct array_rec *rec);
void array_recs_free(struct array_rec *recs, size_t n);

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

/* The plan (parameters, settings, seeds) the sweep was submitted with. */
int store_load_plan(struct store *st, struct plan *out, int64_t sweep_id);

/* The sweep's array jobs, in submission order. Free with array_recs_free. */
int store_load_arrays(struct store *st, struct array_rec **out, size_t *n, int64_t sweep_id);

/* The highest attempt number recorded for the sweep (0 when none). */
int store_last_attempt(struct store *st, unsigned *out, int64_t sweep_id);

#endif
