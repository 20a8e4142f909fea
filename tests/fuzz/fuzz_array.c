/*
 * The --array / pending task list parser. The first byte picks the limit
 * (kept small enough that a long list of wide ranges stays in memory).
 * What it reads, sorted and written back (array_spec_of_ids), must read
 * back as the same ids.
 */
#include "fuzz.h"

#include "array.h"
#include "strbuf.h"

static const uint32_t limits[] = {0, 1, 7, 64, 1000, 4096};

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void round_trip(uint32_t *ids, size_t n, uint32_t limit)
{
	struct strbuf sb = STRBUF_INIT;
	uint32_t *back = NULL;
	size_t k = 0, nback = 0;
	const char *why = NULL;

	if (!n)
		return; /* ids is NULL then, and qsort must not be given NULL */
	qsort(ids, n, sizeof(*ids), cmp_u32);
	for (size_t i = 0; i < n; i++)
		if (!k || ids[k - 1] != ids[i])
			ids[k++] = ids[i];
	if (!k)
		return;
	array_spec_of_ids(&sb, ids, k, 3);
	if (array_parse_tasks(&back, &nback, sb.buf, limit, &why) || nback != k ||
	    memcmp(back, ids, k * sizeof(*ids)))
		abort();
	free(back);
	strbuf_release(&sb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t *ids = NULL, limit;
	size_t n = 0;
	const char *why = NULL;
	char *s;

	if (!size)
		return 0;
	fuzz_setup();
	limit = limits[data[0] % (sizeof(limits) / sizeof(limits[0]))];
	s = fuzz_string(data + 1, size - 1);
	if (!array_parse_tasks(&ids, &n, s, limit, &why)) {
		for (size_t i = 0; i < n; i++)
			if (ids[i] >= limit)
				abort();
		round_trip(ids, n, limit);
	} else if (!why || ids || n) {
		abort();
	}
	free(ids);
	free(s);
	return 0;
}
