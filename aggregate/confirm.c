/*
 * Seeds for re-running chosen settings. They must be new to every run the
 * choice saw: a seed reused reproduces the noise the winner was picked for.
 */
#include "confirm.h"

#include <inttypes.h>
#include <stdlib.h>

#include "strbuf.h"

#include "banned.h"

static int cmp_seed(const void *va, const void *vb)
{
	int64_t a = *(const int64_t *)va, b = *(const int64_t *)vb;

	return (a > b) - (a < b);
}

static int64_t *sorted_copy(const int64_t *v, size_t n)
{
	int64_t *out = xcalloc(n + 1, sizeof(*out));

	for (size_t i = 0; i < n; i++)
		out[i] = v[i];
	qsort(out, n, sizeof(*out), cmp_seed);
	return out;
}

int64_t *confirm_fresh_seeds(const int64_t *used, size_t nused, size_t m)
{
	int64_t *taken = sorted_copy(used, nused), *out = xcalloc(m + 1, sizeof(*out));
	int64_t next = 0;
	size_t u = 0;

	for (size_t i = 0; i < m; next++) {
		while (u < nused && taken[u] < next)
			u++;
		if (u < nused && taken[u] == next)
			continue;
		out[i++] = next;
	}
	free(taken);
	return out;
}

void confirm_add_ranges(struct strbuf *out, const int64_t *seeds, size_t n)
{
	int64_t *s = sorted_copy(seeds, n);
	size_t i = 0, j;

	if (!n)
		strbuf_addstr(out, "none");
	for (; i < n; i = j) {
		for (j = i + 1; j < n && s[j] <= s[j - 1] + 1; j++)
			;
		strbuf_addf(out, "%s%" PRId64, i ? ", " : "", s[i]);
		if (s[j - 1] != s[i])
			strbuf_addf(out, "-%" PRId64, s[j - 1]);
	}
	free(s);
}

void confirm_add_provenance(struct strbuf *out, int64_t parent, const int64_t *selected_on,
                            size_t nselected, const int64_t *estimated_on, size_t nestimated)
{
	strbuf_addstr(out, "selected on seeds ");
	confirm_add_ranges(out, selected_on, nselected);
	strbuf_addf(out, " of sweep %" PRId64 "; estimated on seeds ", parent);
	confirm_add_ranges(out, estimated_on, nestimated);
}
