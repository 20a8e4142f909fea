/*
 * Array jobs: the --array grammar, chunking, and array_rec.
 */
#include "array.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "strbuf.h"

#include "banned.h"

void array_rec_release(struct array_rec *rec)
{
	free(rec->spec);
	free(rec->indices);
	memset(rec, 0, sizeof(*rec));
}

void array_recs_free(struct array_rec *recs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		array_rec_release(&recs[i]);
	free(recs);
}

uint32_t *array_recs_job_ids(const struct array_rec *recs, size_t n)
{
	uint32_t *ids = xcalloc(n ? n : 1, sizeof(*ids));

	for (size_t i = 0; i < n; i++)
		ids[i] = recs[i].job_id;
	return ids;
}

/* Splits [0, ntasks) into arrays whose indices stay below MaxArraySize. */
struct array_chunk *array_chunks(size_t ntasks, uint32_t max_array, size_t *n)
{
	uint32_t per = max_array ? max_array : UINT32_MAX;
	size_t count = (ntasks + per - 1) / per;
	struct array_chunk *chunks = xcalloc(count ? count : 1, sizeof(*chunks));

	for (size_t c = 0; c < count; c++) {
		chunks[c].offset = (uint32_t)(c * per);
		chunks[c].count = (uint32_t)(ntasks - c * per < per ? ntasks - c * per : per);
	}
	*n = count;
	return chunks;
}

void array_spec(char *buf, size_t size, uint32_t n, unsigned k)
{
	if (k)
		snprintf(buf, size, "0-%u%%%u", n ? n - 1 : 0, k);
	else
		snprintf(buf, size, "0-%u", n ? n - 1 : 0);
}

static void add_task(uint32_t **out, size_t *n, size_t *alloc, uint32_t task)
{
	ALLOC_GROW(*out, *n + 1, *alloc);
	(*out)[(*n)++] = task;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Slurm's bit_fmt_hexmask: the last digit holds tasks 0-3, its lowest bit task 0. */
static int parse_hex(uint32_t **out, size_t *n, size_t *alloc, const char *hex, uint32_t limit,
                     const char **why)
{
	size_t len = strlen(hex);

	if (!len) {
		*why = "the hex bitmap has no digits after '0x'";
		return -1;
	}
	for (size_t k = 0; k < len; k++)
		if (hex_digit(hex[k]) < 0) {
			*why = "the hex bitmap has a character that is not a hex digit";
			return -1;
		}
	for (size_t k = 0; k < len; k++) {
		int nibble = hex_digit(hex[len - 1 - k]);

		for (unsigned b = 0; b < 4; b++) {
			uint64_t task = (uint64_t)k * 4 + b;

			if (task >= limit)
				return 0;
			if (nibble & (1 << b))
				add_task(out, n, alloc, (uint32_t)task);
		}
	}
	return 0;
}

static int parse_number(uint32_t *out, const char **p, const char **why)
{
	uint64_t v = 0;
	const char *s = *p;

	if (*s < '0' || *s > '9') {
		*why = "expected a task id";
		return -1;
	}
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > UINT32_MAX) {
			*why = "a task id is too large";
			return -1;
		}
	}
	*out = (uint32_t)v;
	*p = s;
	return 0;
}

/* "0-49", "3,17,42", "0-9:2", each item N, N-M or N-M:S; end points at the end of the list. */
static int parse_list(uint32_t **out, size_t *n, size_t *alloc, const char *s, const char *end,
                      uint32_t limit, const char **why)
{
	const char *p = s;

	if (p == end) {
		*why = "the task list is empty";
		return -1;
	}
	for (;;) {
		uint32_t lo, hi, step = 1;

		if (parse_number(&lo, &p, why) < 0)
			return -1;
		hi = lo;
		if (p < end && *p == '-') {
			p++;
			if (parse_number(&hi, &p, why) < 0)
				return -1;
			if (hi < lo) {
				*why = "a range ends before it starts";
				return -1;
			}
			if (p < end && *p == ':') {
				p++;
				if (parse_number(&step, &p, why) < 0)
					return -1;
				if (!step) {
					*why = "a range's step must be at least 1";
					return -1;
				}
			}
		}
		for (uint64_t t = lo; t <= hi && t < limit; t += step)
			add_task(out, n, alloc, (uint32_t)t);
		if (p == end)
			return 0;
		if (*p != ',') {
			*why = "expected ',' between task ids";
			return -1;
		}
		p++;
	}
}

int array_parse_tasks(uint32_t **out, size_t *n, const char *spec, uint32_t limit, const char **why)
{
	size_t alloc = 0;
	const char *end;
	int ret;

	*out = NULL;
	*n = 0;
	if (!strncmp(spec, "0x", 2) || !strncmp(spec, "0X", 2)) {
		ret = parse_hex(out, n, &alloc, spec + 2, limit, why);
	} else {
		/* A trailing "%K" throttle does not change which tasks there are. */
		end = strchr(spec, '%');
		if (end) {
			const char *k = end + 1;
			uint32_t throttle;

			if (parse_number(&throttle, &k, why) < 0 || *k) {
				*why = "the throttle after '%' must be a number";
				return -1;
			}
		} else {
			end = spec + strlen(spec);
		}
		ret = parse_list(out, n, &alloc, spec, end, limit, why);
	}
	if (ret < 0) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return ret;
}

void array_chunk_of(uint32_t *offset, uint32_t *task, size_t index, uint32_t max_array)
{
	size_t off = max_array ? index / max_array * max_array : 0;

	*offset = (uint32_t)off;
	*task = (uint32_t)(index - off);
}

void array_spec_of_ids(struct strbuf *out, const uint32_t *ids, size_t n, unsigned throttle)
{
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j + 1 < n && ids[j + 1] == ids[j] + 1)
			j++;
		if (i)
			strbuf_addch(out, ',');
		if (j > i)
			strbuf_addf(out, "%" PRIu32 "-%" PRIu32, ids[i], ids[j]);
		else
			strbuf_addf(out, "%" PRIu32, ids[i]);
		i = j + 1;
	}
	if (throttle)
		strbuf_addf(out, "%%%u", throttle);
}
