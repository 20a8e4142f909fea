#ifndef SWEEP_CURVE_H
#define SWEEP_CURVE_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "result.h"

/*
 * Learning curves: a task's JSON Lines file, one flat object per line with
 * a step key and metrics, for example
 *
 *     {"step": 100, "loss": 0.71, "accuracy": 0.62}
 *
 * and their mean over the seeds of a setting. Pure but for curve_read.
 *
 * A file that cannot be used is a fact about the task, as for result
 * files: curve->error says why, and the caller reports it.
 */

struct curve_line {
	double step;
	struct result row; /* the object (result.h: numbers by key) */
};

struct curve {
	struct curve_line *lines; /* in file order */
	size_t n, alloc;
	char *error; /* why the file cannot be used, or NULL */
};

void curve_init(struct curve *c);
void curve_release(struct curve *c);

/*
 * Parses JSON Lines text (len bytes) into c (initialised); empty lines are
 * skipped. Every line must be an object whose step_key holds a finite
 * number. Returns 0, or -1 with c->error set ("line 3: no 'step'",
 * "line 2: invalid JSON: ...", "no lines").
 */
int curve_parse(struct curve *c, const char *text, size_t len, const char *step_key);

struct result_log_spec;

/*
 * Learning curves from a task's log (text, len bytes, need not end in a
 * NUL; a NUL byte is a byte like any other), as programs print them
 * ("epoch 3 val_acc 0.91"), into c (initialised; the points it holds
 * already are kept). Line by line: the first group of the last match of
 * step on a line, read as a number, is the step of every metric value on
 * that line and the lines after it, until the next step; a metric's value
 * on a line is the first group of the last match of its pattern in spec.
 * Values before the first step, and values or steps that are not finite
 * numbers, are ignored. One point per (step, metric): the last value
 * wins, one line of c per step, in the order the steps first came. Only
 * the metrics k with only[k] are looked for (only NULL: all). Sets no
 * error: a log without points leaves c as it was.
 */
void curve_scan_log(struct curve *c, const char *text, size_t len, const regex_t *step,
                    const struct result_log_spec *spec, const bool *only);

/* Whether some line of c holds a finite value of metric. */
bool curve_has(const struct curve *c, const char *metric);

struct plan;

/* Where the curve files of one sweep are. */
struct curve_where {
	const char *workdir;  /* the folder submit ran in: relative names are under it */
	const char *task_dir; /* the task folder (taskdir_path), for {task_dir} */
	int64_t sweep_id;     /* for {sweep} */
};

/*
 * The curve file of task index: pattern with its placeholders filled in
 * ({index} = {task}, {sweep}, {seed}, {setting}, {task_dir} and the plan's
 * parameters, "{{" and "}}" for braces), relative to w->workdir (the
 * folder submit ran in) unless it is absolute. Into *out (the caller frees
 * it); an unknown placeholder is an error().
 */
int curve_path(char **out, const char *pattern, const struct curve_where *w,
               const struct plan *plan, size_t index);

/* curve_parse of the file at path; a file that cannot be read sets c->error too. */
int curve_read(struct curve *c, const char *path, const char *step_key);

/* The numeric keys other than step_key in c, added to a sorted, unique list. */
void curve_keys(char ***keys, size_t *nkeys, size_t *alloc, const struct curve *c,
                const char *step_key);

/*
 * The mean over seeds of metric at every step that each of the nseeds
 * curves reached with a finite value for it (when a step repeats in one
 * file, as after a restart from a checkpoint, its last line counts), in
 * ascending order of step. std is the sample std (NAN for one seed).
 */
struct curve_band {
	size_t n;
	double *steps, *mean, *std;
};

void curve_band_release(struct curve_band *b);
void curve_band(struct curve_band *out, const struct curve *const *seeds, size_t nseeds,
                const char *metric);

#endif
