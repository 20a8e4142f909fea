#ifndef SWEEP_CFG_H
#define SWEEP_CFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct strbuf;

/*
 * The sweep file reader: YAML (yamltree.h) -> a validated spec. What a
 * sweep file may hold is described in README.md, "Sweep file reference",
 * and in sweep-file(5) (doc/sweep-file.5.scd);
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

/*
 * One entry of `sample:` (random search). Each trial draws every sampled
 * parameter once, in file order, from its own stream (plan/sample.h).
 *   uniform:    [lo, hi]  a real number in [lo, hi)
 *   loguniform: [lo, hi]  exp of a uniform in [log lo, log hi); 0 < lo < hi
 *   int:        [lo, hi]  an integer in lo..hi inclusive; with log: true,
 *                         log-uniform over that range (lo >= 1)
 *   choice:     [a, b..]  one of the listed texts, each as likely
 */
enum cfg_sample_kind {
	CFG_SAMPLE_UNIFORM,
	CFG_SAMPLE_LOGUNIFORM,
	CFG_SAMPLE_INT,
	CFG_SAMPLE_CHOICE,
};

struct cfg_sample {
	char *name;
	enum cfg_sample_kind kind;
	double lo, hi;  /* uniform, loguniform; int as whole numbers */
	bool log;       /* int: log-uniform */
	char **choices; /* choice: the texts as written */
	size_t nchoices;
	unsigned line, column; /* where the key stood */
};

#define CFG_SAMPLE_DIGITS_DEFAULT 4  /* sample_digits: significant digits printed */
#define CFG_SAMPLE_DIGITS_MAX     17 /* enough to print any double exactly */
#define CFG_MAX_TRIALS            100000

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
	/*
	 * The warning signal, name without SIG ("USR1"), or NULL when none is
	 * used: only slurm.signal, slurm.requeue or a checkpoint section ask for
	 * one (default USR1@120, scaled down to fit a short time limit).
	 */
	char *signal;
	unsigned signal_seconds; /* seconds before the limit */
	bool signal_explicit;    /* slurm.signal was written in the file */
	char **extra;            /* other sbatch options, each "--name" or "--name=value" */
	size_t nextra;
	bool requeue;          /* on the warning signal: let the command save, requeue the task */
	unsigned max_restarts; /* requeue at most this often (default 5) */
	char *tmp_base;        /* node-local folder for `stage:` without $TMPDIR, or NULL: /tmp */
};

/* The `checkpoint:` section: what each task keeps, and where. */
struct cfg_checkpoint {
	uint64_t size_mb; /* one checkpoint's size in MiB; 0 = not given */
	unsigned keep;    /* how many a task keeps (default 1 when size is given) */
	bool keep_given;  /* keep was written: the task deletes all but the newest keep */
	char *dir;        /* checkpoint.dir with {placeholders}, or NULL: SWEEP_TASK_DIR */
	char *pattern;    /* checkpoint.pattern, a glob of file names, or NULL: "*" */
};

/*
 * One entry of `stage:`, copied node-local before the command runs: a tar
 * (.tar, .tar.gz/.tgz, .tar.zst) or a folder, as written (relative to the
 * folder sweep was run in).
 */
struct cfg_stage {
	char *path;
	uint64_t size_mb; /* the stated unpacked size (`size:`), 0 = not given */
};

/*
 * One entry of `metrics:`: `accuracy: max`, the goal report ranks by, or
 * `loss: {goal: min, label: "train loss (nats)"}`, which may also name
 * the axis label of the plots (and may leave out the goal).
 */
struct cfg_metric {
	char *name;
	bool has_goal; /* false: only a label */
	bool maximize; /* max: higher is better; min: lower is */
	char *label;   /* the plots' axis label, or NULL: the name */
	unsigned line, column;
};

/* The `notify:` section: the one notification when every task is final. */
struct cfg_notify {
	char *mail;    /* Slurm's mail to this address at the end, or NULL */
	char *command; /* shell command run once, or NULL */
};

/* One metric read from a task's .out log: the last match of pattern, its first group. */
struct cfg_log_metric {
	char *name;
	char *pattern; /* POSIX ERE, checked with regcomp when read */
};

/*
 * The `results:` section: where a task's metrics are.
 *   file: a path with the command's {placeholders}, relative to the folder
 *         the tasks run in; its extension says the format (.json a JSON
 *         object, .jsonl/.ndjson the last line, .csv the last row under a
 *         header). "$SWEEP_RESULT" names sweep's own JSON file.
 *   log:  metric -> POSIX ERE matched in the task's .out log.
 *   step: a POSIX ERE whose first group is the step of the log's values
 *         (`sweep report --curves log`); only with log.
 * Without the section, metrics come from $SWEEP_RESULT; a section without
 * `file` reads no file, only the log.
 */
enum cfg_results_format {
	CFG_RESULTS_JSON,
	CFG_RESULTS_JSONL,
	CFG_RESULTS_CSV,
};

#define CFG_SWEEP_RESULT "$SWEEP_RESULT"

struct cfg_results {
	bool given;                     /* the section is in the file */
	char *file;                     /* results.file as written, or NULL */
	enum cfg_results_format format; /* from file's extension */
	struct cfg_log_metric *log;
	size_t nlog;
	char *step; /* results.step: POSIX ERE checked like log's, or NULL */
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
	struct cfg_sample *sample; /* `sample:` in file order; NULL when none */
	size_t nsample;
	unsigned trials;        /* settings drawn (required with sample:) */
	uint64_t sample_seed;   /* default 0 */
	unsigned sample_digits; /* significant digits of drawn reals (default 4) */
	struct cfg_slurm slurm;
	struct cfg_env *env;
	size_t nenv;
	char *setup;         /* shell lines run before the command, or NULL */
	char *logs;          /* logs folder as written (default "logs") */
	char *template_path; /* user's own script template, or NULL for the built-in */
	struct cfg_checkpoint checkpoint;
	struct cfg_stage *stage; /* `stage:` in file order */
	size_t nstage;
	struct cfg_metric *metrics; /* `metrics:` in file order */
	size_t nmetrics;
	unsigned pack;      /* sweep tasks per array task, each its own job step (default 1) */
	unsigned retries;   /* follow-up retry rounds; 0 = none */
	bool retry_on_exit; /* retry non-zero exits and missing metrics too */
	struct cfg_notify notify;
	unsigned fail_fast; /* cancel the rest after this many non-zero exits; 0 = never */
	/*
	 * `confirm_of:` (written by sweep confirm): the sweep whose best settings
	 * this one runs again on seeds that sweep did not use; 0 = none.
	 */
	unsigned confirm_of;
	struct cfg_results results;
	char *signal_note; /* why the default warning signal was changed, for submit to print; or
	                      NULL */
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

/*
 * The format a results file's name says (its extension, any case; or
 * CFG_SWEEP_RESULT for JSON). Returns 0, or -1 when the name says none.
 */
int cfg_results_format_of(enum cfg_results_format *out, const char *file);
/* "JSON", "JSON Lines", "CSV". */
const char *cfg_results_format_name(enum cfg_results_format f);
/*
 * True when the tasks' metrics are in $SWEEP_RESULT (<task dir>/result.json):
 * no `results:` section, or results.file "$SWEEP_RESULT". False for another
 * file or the log only.
 */
bool cfg_results_in_sweep_result(const struct cfg_results *r);

/*
 * Prints every key the reader accepts, one a line, as the reference names
 * them: "name", "slurm.partition", "checkpoint.size"... (the keys of grid,
 * zip, cases and env are the user's own). For `sweep __keys`.
 */
void cfg_print_keys(FILE *out);

#endif
