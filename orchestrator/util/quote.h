#ifndef SWEEP_QUOTE_H
#define SWEEP_QUOTE_H

#include "strbuf.h"

/*
 * Quoting for the bash script body (never for #SBATCH lines: see sbopt.h).
 * A value is written single-quoted, with ' as '\'' (git's quote.c idea), so
 * bash reads it back byte for byte and runs nothing in it. A newline is
 * written as '$'\n'' so every quoted value fits on one line; that keeps the
 * settings table one line per setting.
 */
void quote_sh(struct strbuf *out, const char *value);

/*
 * buf[0..len) for a terminal, its control characters made visible as
 * cat -v shows them: ESC as ^[, each other C0 control as ^ and the letter
 * (^A, ^M), DEL as ^?. Newline and tab, and every other byte (UTF-8 text),
 * are kept as they are. Appends to out.
 */
void quote_visible(struct strbuf *out, const char *buf, size_t len);

/* True when name is a shell identifier: [A-Za-z_][A-Za-z0-9_]*. */
int quote_is_identifier(const char *name);

#endif
