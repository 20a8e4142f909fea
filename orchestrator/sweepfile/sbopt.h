#ifndef SWEEP_SBOPT_H
#define SWEEP_SBOPT_H

#include <stddef.h>

/*
 * Values and options that go into "#SBATCH" lines. Those lines are read by
 * sbatch's own parser, not by bash (see slurm-notes.md): a backslash escapes
 * the next character even inside quotes, an unquoted '#' starts a comment,
 * an unmatched quote is fatal, whitespace splits words. Pure functions.
 */

/*
 * Checks that value can stand in an #SBATCH line as one word that sbatch
 * reads back exactly: refuses empty values, control characters (newline,
 * tab...), quotes and backslashes; refuses '%' when allow_percent is 0
 * (sbatch expands %x, %A... in file names). Whitespace and '#' are allowed
 * (sbopt_render quotes them). Values longer than SBOPT_MAX_VALUE bytes are
 * refused too, so that a rendered line always fits a 4 KiB buffer. Returns
 * 0, or -1 with *why set to a static explanation.
 */
#define SBOPT_MAX_VALUE 1024
int sbopt_check_value(const char *value, int allow_percent, const char **why);

/*
 * Appends "value" to out as it must be written after "--opt=" in an
 * #SBATCH line: double-quoted when it holds whitespace or '#'. The value
 * must have passed sbopt_check_value. out must have room for
 * strlen(value) + 3 bytes; returns the number of bytes written (without the
 * NUL).
 */
size_t sbopt_render(char *out, size_t size, const char *value);

/*
 * Checks one entry of `slurm.extra`: "--name" or "--name=value" where name
 * is a long sbatch option (of Slurm 22.05 or later) and value passes
 * sbopt_check_value. Options that sweep itself controls (--array,
 * --job-name, --output, --error, --open-mode, --signal, --parsable, --wrap,
 * --chdir, --export, --export-file, and
 * the ones with their own key in `slurm:` such as --mem or --time) are
 * refused with a pointer to the right key, and so are those that would stop
 * a submission (--help, --usage, --version, --test-only, --wait) or send it
 * elsewhere (--clusters). The name must be written in full (sbatch would
 * take an abbreviation); "=value" must be present for options that need a
 * value and absent for flags. On failure returns -1 and sets *why to an
 * allocated message the caller frees (it may carry a "did you mean"
 * suggestion).
 */
int sbopt_check_extra(const char *arg, char **why);

/*
 * Reading back what a script asks: the options of its #SBATCH lines, up to
 * the first line that is neither blank nor a comment (the "#!" line is a
 * comment too). Blanks split words, quotes group them, a word that starts
 * with '#' ends the line. An option is "--name=value", "--name value",
 * "-X value" or "-Xvalue"; only those in the caller's names are reported,
 * in the order written (so the last of a repeated option comes last).
 */
struct sbopt_name {
	const char *name; /* the long name, without "--"; the option takes a value */
	char letter;      /* its one-letter form, or 0 */
};

/*
 * Called with an option's long name (borrowed from the names table) and its
 * value, or NULL when its line or its words end before the value. A
 * negative return stops the reading and is returned.
 */
typedef int (*sbopt_fn)(void *data, const char *name, const char *value);

/*
 * Calls fn for the named options in the #SBATCH lines of a script's text.
 * Returns 0, or the negative value of fn that stopped it.
 */
int sbopt_read_script(const char *text, const struct sbopt_name *names, size_t nnames, sbopt_fn fn,
                      void *data);

/* The same for n words of an sbatch command line (its argv: quotes already removed). */
int sbopt_read_words(const char *const *words, size_t n, const struct sbopt_name *names,
                     size_t nnames, sbopt_fn fn, void *data);

/*
 * Levenshtein distance, for "did you mean" suggestions (used by the sweep
 * file reader too). Returns the best candidate among names within distance
 * max(2, strlen(word)/3) and below strlen(word) (so "c" never suggests "a"),
 * the first one on a tie, or NULL. Borrowed from names.
 */
const char *sbopt_suggest(const char *word, const char *const *names, size_t n);

#endif
