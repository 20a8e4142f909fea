#ifndef SWEEP_SCRIPT_H
#define SWEEP_SCRIPT_H

#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"
#include "taskdir.h"

struct cfg;
struct plan;

/*
 * The script writer: renders the sbatch array script from a template, and
 * the settings table the tasks read. Rendering is pure (strings in,
 * strings out); script_write_files does the I/O.
 *
 * Template markers ({{NAME}}, replaced wherever they stand): SBATCH (the
 * #SBATCH lines), VERSION, SOURCE, SUMMARY, SCRIPT, VARIABLES (SWEEP_ID,
 * SWEEP_DIR, SWEEP_SEEDS, SWEEP_SIGNAL: empty when no warning signal is
 * used, SWEEP_PACK, SWEEP_NTASKS, SWEEP_SCRIPT, SWEEP_SETTINGS_PER_FILE, and
 * those of script_stage.h),
 * TASK_DIR (the task folder as a shell word, taskdir_shell: grouped; a
 * template without it keeps the flat layout, script_task_layout),
 * CHECKPOINT_DIR (SWEEP_CHECKPOINT_DIR, after SWEEP_TASK_DIR), PACK (with pack > 1, the
 * loop that runs the array task's sweep tasks as job steps; required then),
 * EXPORTS (export of the
 * SWEEP_PARAM_* variables), ENV (the sweep file's env:), SETUP, COMMAND. An
 * unknown marker is an error, and so is a template without SBATCH or
 * COMMAND (its tasks would run nothing and still end COMPLETED).
 */

struct script_input {
	const struct cfg *cfg;
	const struct plan *plan;
	int64_t sweep_id;
	const char *sweep_dir; /* absolute: where settings and tasks/ live */
	const char *script;    /* absolute path the script is written to */
	const char *logs;      /* absolute logs folder */
	const char *workdir;   /* absolute folder the tasks run in (--chdir) */
	const char *source;    /* the sweep file's path, for the banner */
	uint32_t array_limit;  /* highest array size the script's own --array may use (0 = none) */
	uint64_t stage_need;   /* bytes `stage:` may take unpacked (script_stage_measure) */
	/* The sweep binary, absolute, that runs a packed array task's tasks
	   (ACCT_PACK_COMMAND); NULL: each is a job step of its own (srun). */
	const char *sweep_bin;
};

/* The largest template read from a file. */
#define SCRIPT_TEMPLATE_MAX_BYTES (1u << 20)

/* The built-in template (templates/array.sbatch, compiled in). */
extern const char script_default_template[];

/*
 * Replaces the {placeholders} of a sweep file's command by references to
 * the task's variables, quoted for the place they stand in: "${SWEEP_PARAM_lr}"
 * outside quotes, ${SWEEP_PARAM_lr} inside double quotes, '"${...}"' inside
 * single quotes; {seed} and {index} are SWEEP_SEED and SWEEP_TASK_INDEX;
 * {{ and }} are literal braces. Values thus reach the program as data,
 * never as shell code. Fails on a placeholder that names no parameter.
 */
int script_render_command(struct strbuf *out, const char *command, const struct plan *plan);

/*
 * The program a sweep file's command runs: its first word, after variable
 * assignments (NAME=value) and exec, env, nice, nohup, time or command;
 * quotes removed. NULL when that word is not a plain word (it holds a
 * placeholder, a '$', a backquote, or the command starts with a shell
 * keyword or a parenthesis). The caller frees it.
 */
char *script_program(const char *command);

/* The #SBATCH lines. Values were validated by the sweep file reader. */
int script_render_sbatch(struct strbuf *out, const struct script_input *in);

/*
 * The task folder layout of a sweep whose script comes from template text:
 * TASKDIR_GROUPED when it has the {{TASK_DIR}} marker, else TASKDIR_FLAT (a
 * template copied before the marker existed computes tasks/<index> itself).
 */
enum taskdir_layout script_task_layout(const char *tmpl);

/* The whole script from template text. */
int script_render(struct strbuf *out, const char *tmpl, const struct script_input *in);

/* Line s of the settings table: SWEEP_PARAM_name='value' ... (one line). */
void script_settings_line(struct strbuf *out, const struct plan *plan, size_t s);

/*
 * The settings table is cut into files of this many lines: setting s is
 * line s % SCRIPT_SETTINGS_PER_FILE of settings/<s / SCRIPT_SETTINGS_PER_FILE>,
 * so that a task reads at most that many lines with a builtin (mapfile)
 * whatever the size of the sweep. The script gets it as SWEEP_SETTINGS_PER_FILE.
 */
#define SCRIPT_SETTINGS_PER_FILE 1000

/*
 * Writes into in->sweep_dir (a private folder: path_mkdir_private): the
 * script (mode 0700) at in->script, the settings table (the private folder
 * "settings", files of SCRIPT_SETTINGS_PER_FILE lines, one line per setting,
 * 0600) and "tasks.tsv" (index, setting, seed and values, for people,
 * 0600), each written to a temporary file and renamed into place
 * (path_write_file). Creates the logs folder (path_mkdir_p).
 */
int script_write_files(const struct script_input *in, const char *script_text);

struct resubmit_script;

/*
 * Reads the #SBATCH lines of a script's text into out. Fails (-1, *why set
 * to a static explanation) on a value of --mem, --mem-per-cpu, --time,
 * --cpus-per-task or --ntasks that sbatch would not take either.
 */
int script_read_resources(struct resubmit_script *out, const char *text, const char **why);

#endif
