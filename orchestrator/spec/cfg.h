#ifndef SWEEP_CFG_H
#define SWEEP_CFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct strbuf;

/*
 * The sweep file reader: YAML (yamltree.h) -> a validated spec. What a
 * sweep file may hold is described in README.md, "Sweep file reference";
 * the placeholders of `command` are defined in placeholder.h.
 *
 * Every value is kept exactly as written in the file (the scalar's text), so
 * "5e-4" stays "5e-4" and reaches the task as such. Every mistake is reported
 * through error() as "FILE:LINE:COLUMN: message" (1-based line and column from
 * the parser's marks), and cfg_load returns a negative code.
 *
 * All strings in these structs are owned by the struct and freed by
 * cfg_release / cfg_free.
 */

/* One parameter with its list of values (grid or zip). */
struct cfg_param {
	char *name;
	char **values;
	size_t nvalues;
	unsigned line, column; /* where the key stood, for later messages */
};

/* One entry of `cases`: names[i] = values[i]. */
struct cfg_case {
	char **names;
	char **values;
	size_t n;
	unsigned line, column;
};

struct cfg_env {
	char *name;
	char *value;
};

/* The `slurm:` section. NULL / 0 means "not given". */
struct cfg_slurm {
	char *partition;
	char *account;
	char *qos;
	char *gres;
	char *gpus_per_task;
	char *constraint;
	unsigned cpus_per_task;
	unsigned nodes;
	unsigned ntasks;
	uint64_t mem_mb;         /* --mem, in MiB (sbatch's M) */
	uint64_t mem_per_cpu_mb; /* --mem-per-cpu, in MiB */
	uint32_t time_min;       /* --time, in minutes, rounded up; 0 = not given */
	bool time_unlimited;     /* time: UNLIMITED / INFINITE */
	unsigned max_concurrent; /* the %K throttle; 0 = none */
	char *signal;            /* signal name without SIG, e.g. "USR1" (default "USR1") */
	unsigned signal_seconds; /* seconds before the limit (default 120) */
	char **extra;            /* other sbatch options, each "--name" or "--name=value" */
	size_t nextra;
	bool requeue;          /* on the warning signal: let the command save, requeue the task */
	unsigned max_restarts; /* requeue at most this often (default 5) */
};

/* The `checkpoint:` section: what each task keeps in its SWEEP_TASK_DIR. */
struct cfg_checkpoint {
	uint64_t size_mb; /* one checkpoint's size in MiB; 0 = not given */
	unsigned keep;    /* how many a task keeps (default 1 when size is given) */
};

struct cfg {
	char *path;     /* the file as given */
	char *name;     /* job name; must be a valid #SBATCH value */
	char *command;  /* with {placeholders}; checked against parameters */
	int64_t *seeds; /* `seeds: [..]` as given, or 0..n-1 for `seeds: n` */
	size_t nseeds;
	struct cfg_param *grid;
	size_t ngrid;
	struct cfg_param *zip;
	size_t nzip;
	struct cfg_case *cases;
	size_t ncases;
	struct cfg_slurm slurm;
	struct cfg_env *env;
	size_t nenv;
	char *setup;         /* shell lines run before the command, or NULL */
	char *logs;          /* logs folder as written (default "logs") */
	char *template_path; /* user's own script template, or NULL for the built-in */
	struct cfg_checkpoint checkpoint;
};

void cfg_init(struct cfg *cfg);
void cfg_release(struct cfg *cfg);
void cfg_free(struct cfg *cfg);

/*
 * The largest sweep file read: a regular file, or a pipe (submit <(...))
 * read once to its end; never a device or a FIFO nobody writes to.
 */
#define CFG_MAX_BYTES (16u << 20)

/*
 * Reads the sweep file at path into text (appended), as cfg_load does:
 * at most CFG_MAX_BYTES, regular file or pipe. Reports through error().
 */
int cfg_read_file(struct strbuf *text, const char *path);

/*
 * Reads and validates the sweep file at path into out (which must be
 * initialised). On failure out is released and a negative code returned,
 * after error() reported the problem with its position.
 */
int cfg_load(struct cfg *out, const char *path);

/* The same from a string already in memory; name is used in messages. */
int cfg_load_string(struct cfg *out, const char *name, const char *text, size_t len);

#endif
