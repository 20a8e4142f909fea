#ifndef SWEEP_RIGHTSIZE_PRINT_H
#define SWEEP_RIGHTSIZE_PRINT_H

#include <stdbool.h>
#include <stdio.h>

#include "rightsize.h"

/*
 * The printers of a right-sizing (rightsize.h). The table has one row per
 * setting (and first, with tasks, one row per task), then the whole sweep's
 * recommendation as #SBATCH lines and as the sweep file's slurm: keys, or
 * why there is none. Write errors are left for the caller to find with
 * ferror().
 */
void rightsize_print_table(FILE *f, const struct rightsize *r, bool tasks);
void rightsize_print_json(FILE *f, const struct rightsize *r);

#endif
