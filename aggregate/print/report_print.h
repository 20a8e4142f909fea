#ifndef SWEEP_REPORT_PRINT_H
#define SWEEP_REPORT_PRINT_H

#include <stdio.h>

#include "report.h"

/*
 * The printers of a report (report.h). Write errors are left for the caller
 * to find with ferror().
 */
void report_print_table(FILE *f, const struct report *r);
void report_print_json(FILE *f, const struct report *r);
void report_print_csv(FILE *f, const struct report *r);

#endif
