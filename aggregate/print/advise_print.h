#ifndef SWEEP_ADVISE_PRINT_H
#define SWEEP_ADVISE_PRINT_H

#include <stdio.h>

#include "advise.h"

/*
 * The printers of checkpoint advice (advise.h). Write errors are left for
 * the caller to find with ferror().
 */
void advise_print_text(FILE *f, const struct advise_report *r);
void advise_print_json(FILE *f, const struct advise_report *r);

#endif
