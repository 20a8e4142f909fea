#include "units.h"

#include <inttypes.h>
#include <stdio.h>
#include <strings.h>

#include "banned.h"

/*
 * The largest time limit sbatch can hold: it keeps minutes in 32 bits, and
 * the two top values mean INFINITE and NO_VAL.
 */
#define MAX_TIME_MINUTES ((uint64_t)UINT32_MAX - 2)
/* 2^40 MiB (one EiB): far above any node, far below overflow. */
#define MAX_MEM_MB ((uint64_t)1 << 40)
/* More digits than any sane field; keeps the arithmetic below from overflowing. */
#define MAX_DIGITS 12

static const char time_forms[] =
    "expected minutes, M:S, H:M:S, D-H, D-H:M, D-H:M:S or UNLIMITED (as in 90, 4:00:00 or "
    "1-12:00:00)";

/* Reads 1..MAX_DIGITS decimal digits at *p and advances *p past them. */
static int parse_digits(uint64_t *out, const char **p)
{
	const char *s = *p;
	uint64_t v = 0;
	int n = 0;

	while (*s >= '0' && *s <= '9') {
		if (++n > MAX_DIGITS)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
		s++;
	}
	if (!n)
		return -1;
	*out = v;
	*p = s;
	return 0;
}

static int fail(const char **why, const char *text)
{
	if (why)
		*why = text;
	return -1;
}

int units_parse_time(uint64_t *seconds, bool *unlimited, const char *s, const char **why)
{
	uint64_t days = 0, f[3], total;
	int nf = 0;
	bool has_days = false;
	const char *p = s;

	if (!*s)
		return fail(why, "empty time");
	if (!strcasecmp(s, "UNLIMITED") || !strcasecmp(s, "INFINITE")) {
		*seconds = 0;
		*unlimited = true;
		return 0;
	}

	if (parse_digits(&f[0], &p))
		return fail(why, time_forms);
	if (*p == '-') {
		has_days = true;
		days = f[0];
		p++;
		if (parse_digits(&f[0], &p))
			return fail(why, time_forms);
	}
	nf = 1;
	while (*p == ':') {
		if (nf == 3)
			return fail(why, time_forms);
		p++;
		if (parse_digits(&f[nf], &p))
			return fail(why, time_forms);
		nf++;
	}
	if (*p)
		return fail(why, time_forms);

	if (has_days) {
		/* D-H, D-H:M, D-H:M:S */
		uint64_t h = f[0], m = nf > 1 ? f[1] : 0, sec = nf > 2 ? f[2] : 0;

		if (h >= 24)
			return fail(why, "hours after the day count must be below 24");
		if (m >= 60 || sec >= 60)
			return fail(why,
			            "minutes and seconds after the first field must be below 60");
		total = days * 86400 + h * 3600 + m * 60 + sec;
	} else if (nf == 1) {
		total = f[0] * 60;
	} else if (nf == 2) {
		if (f[1] >= 60)
			return fail(why,
			            "minutes and seconds after the first field must be below 60");
		total = f[0] * 60 + f[1];
	} else {
		if (f[1] >= 60 || f[2] >= 60)
			return fail(why,
			            "minutes and seconds after the first field must be below 60");
		total = f[0] * 3600 + f[1] * 60 + f[2];
	}

	if (!total)
		return fail(why, "a time limit of zero is not allowed");
	if ((total + 59) / 60 > MAX_TIME_MINUTES)
		return fail(why, "time limit too large");
	*seconds = total;
	*unlimited = false;
	return 0;
}

int units_parse_mem(uint64_t *mb, const char *s, const char **why)
{
	const char *p = s;
	uint64_t n, mult = 1, v;
	bool kilo = false;

	if (!*s)
		return fail(why, "empty memory size");
	if (parse_digits(&n, &p))
		return fail(why, "expected a whole number with an optional suffix K, M, G or T (as "
		                 "in 4000 or 32G)");
	switch (*p) {
	case '\0':
		break;
	case 'k':
	case 'K':
		kilo = true;
		p++;
		break;
	case 'm':
	case 'M':
		p++;
		break;
	case 'g':
	case 'G':
		mult = 1024;
		p++;
		break;
	case 't':
	case 'T':
		mult = 1024 * 1024;
		p++;
		break;
	default:
		return fail(why, "expected a whole number with an optional suffix K, M, G or T (as "
		                 "in 4000 or 32G)");
	}
	if ((*p == 'b' || *p == 'B') && p[1] == '\0')
		return fail(why, "write the suffix without 'B' (32G, not 32GB): sbatch refuses it");
	if (*p)
		return fail(why, "expected a whole number with an optional suffix K, M, G or T (as "
		                 "in 4000 or 32G)");

	if (kilo)
		v = n / 1024 + (n % 1024 != 0);
	else if (n > MAX_MEM_MB / mult)
		return fail(why, "memory size too large");
	else
		v = n * mult;
	if (!v)
		return fail(why, "a memory size of zero is not allowed (sbatch reads it as all "
		                 "of a node's memory)");
	if (v > MAX_MEM_MB)
		return fail(why, "memory size too large");
	*mb = v;
	return 0;
}

void units_format_time(char *buf, size_t size, uint64_t seconds)
{
	uint64_t days = seconds / 86400;
	unsigned h = (unsigned)(seconds % 86400 / 3600);
	unsigned m = (unsigned)(seconds % 3600 / 60);
	unsigned s = (unsigned)(seconds % 60);

	if (days)
		snprintf(buf, size, "%" PRIu64 "-%02u:%02u:%02u", days, h, m, s);
	else
		snprintf(buf, size, "%02u:%02u:%02u", h, m, s);
}

void units_format_mem(char *buf, size_t size, uint64_t mb)
{
	if (mb && mb % (1024 * 1024) == 0)
		snprintf(buf, size, "%" PRIu64 "T", mb / (1024 * 1024));
	else if (mb && mb % 1024 == 0)
		snprintf(buf, size, "%" PRIu64 "G", mb / 1024);
	else
		snprintf(buf, size, "%" PRIu64 "M", mb);
}

void units_format_bytes(char *buf, size_t size, uint64_t bytes)
{
	static const char suffix[] = "KMGTPE";
	double v = (double)bytes;
	uint64_t tenths, whole;
	int u = -1;

	if (bytes < 1024) {
		snprintf(buf, size, "%" PRIu64, bytes);
		return;
	}
	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	/* v is in [1, 1024) now; below 10 one decimal is worth showing. */
	tenths = (uint64_t)(v * 10 + 0.5);
	if (tenths < 100) {
		if (tenths % 10)
			snprintf(buf, size, "%" PRIu64 ".%" PRIu64 "%c", tenths / 10, tenths % 10,
			         suffix[u]);
		else
			snprintf(buf, size, "%" PRIu64 "%c", tenths / 10, suffix[u]);
		return;
	}
	whole = (uint64_t)(v + 0.5);
	if (whole >= 1024 && u < 5) {
		whole = 1;
		u++;
	}
	snprintf(buf, size, "%" PRIu64 "%c", whole, suffix[u]);
}
