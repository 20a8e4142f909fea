#ifndef SWEEP_CONFIRM_H
#define SWEEP_CONFIRM_H

#include <stddef.h>
#include <stdint.h>

struct strbuf;

/*
 * The bookkeeping of an honest estimate of the best settings (the
 * winner's curse): settings chosen by their means over some seeds are
 * estimated again on seeds that took no part in the choice. Pure.
 */

/*
 * The m smallest seeds of 0 or more that are not in used[0..nused) (the
 * seeds of the sweep the settings were chosen in and of every earlier
 * re-run of it), ascending. The caller frees the array.
 */
int64_t *confirm_fresh_seeds(const int64_t *used, size_t nused, size_t m);

/*
 * Appends seeds[0..n) to out as ranges, sorted: "0-4", "0-4, 7, 9-10";
 * "none" for n = 0.
 */
void confirm_add_ranges(struct strbuf *out, const int64_t *seeds, size_t n);

/*
 * Appends where an estimate comes from to out:
 * "selected on seeds 0-4 of sweep 12; estimated on seeds 5-9".
 */
void confirm_add_provenance(struct strbuf *out, int64_t parent, const int64_t *selected_on,
                            size_t nselected, const int64_t *estimated_on, size_t nestimated);

#endif
