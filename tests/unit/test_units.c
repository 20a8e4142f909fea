#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "units.h"

struct time_case {
	const char *in;
	uint64_t seconds;
	bool unlimited;
};

static void test_units_time_forms(void **state)
{
	static const struct time_case cases[] = {
	    {"1", 60, false},
	    {"90", 5400, false},
	    {"0:30", 30, false},
	    {"1:30", 90, false},
	    {"59:59", 3599, false},
	    {"120:00", 7200, false},
	    {"1:00:00", 3600, false},
	    {"48:00:00", 172800, false},
	    {"0:00:01", 1, false},
	    {"1-0", 86400, false},
	    {"1-12", 129600, false},
	    {"2-03:04", 2 * 86400 + 3 * 3600 + 4 * 60, false},
	    {"1-00:00:01", 86401, false},
	    {"0-0:0:5", 5, false},
	    {"14-23:59:59", 14 * 86400 + 86399, false},
	    {"007", 420, false},
	    {"UNLIMITED", 0, true},
	    {"unlimited", 0, true},
	    {"Infinite", 0, true},
	    {"INFINITE", 0, true},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t sec = 12345;
		bool unl = !cases[i].unlimited;
		const char *why = NULL;

		if (units_parse_time(&sec, &unl, cases[i].in, &why))
			fail_msg("'%s' refused: %s", cases[i].in, why);
		if (sec != cases[i].seconds || unl != cases[i].unlimited)
			fail_msg("'%s' -> %llu s, unlimited %d", cases[i].in,
			         (unsigned long long)sec, unl);
	}
}

struct reject_case {
	const char *in;
	const char *why;
};

static const char time_forms[] = "expected minutes, M:S, H:M:S, D-H, D-H:M, D-H:M:S or UNLIMITED "
                                 "(as in 90, 4:00:00 or 1-12:00:00)";

static void test_units_time_rejects(void **state)
{
	static const struct reject_case cases[] = {
	    {"", "empty time"},
	    {"0", "a time limit of zero is not allowed"},
	    {"0:00", "a time limit of zero is not allowed"},
	    {"00:00:00", "a time limit of zero is not allowed"},
	    {"0-0", "a time limit of zero is not allowed"},
	    {"1:60", "minutes and seconds after the first field must be below 60"},
	    {"1:00:60", "minutes and seconds after the first field must be below 60"},
	    {"1:60:00", "minutes and seconds after the first field must be below 60"},
	    {"1-1:60", "minutes and seconds after the first field must be below 60"},
	    {"1-24", "hours after the day count must be below 24"},
	    {"1-24:00:00", "hours after the day count must be below 24"},
	    {"abc", time_forms},
	    {"1h", time_forms},
	    {"-1", time_forms},
	    {"+1", time_forms},
	    {"1.5", time_forms},
	    {"1:2:3:4", time_forms},
	    {"1-2:3:4:5", time_forms},
	    {"1-2-3", time_forms},
	    {" 1", time_forms},
	    {"1 ", time_forms},
	    {"1:", time_forms},
	    {":1", time_forms},
	    {"1-", time_forms},
	    {"1--1", time_forms},
	    {"9999999999999", time_forms},
	    {"unlimitedx", time_forms},
	    {"9999999999", "time limit too large"},
	    {"9999999-00:00:00", "time limit too large"},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t sec = 7;
		bool unl = false;
		const char *why = NULL;

		if (!units_parse_time(&sec, &unl, cases[i].in, &why))
			fail_msg("'%s' accepted as %llu s", cases[i].in, (unsigned long long)sec);
		assert_non_null(why);
		if (strcmp(why, cases[i].why))
			fail_msg("'%s': why is '%s'", cases[i].in, why);
		assert_int_equal(sec, 7);
	}
}

static void test_units_time_largest(void **state)
{
	uint64_t sec;
	bool unl;

	(void)state;
	/* 4294967293 minutes is the largest limit sbatch can store. */
	assert_int_equal(units_parse_time(&sec, &unl, "4294967293", NULL), 0);
	assert_int_equal(sec, 4294967293ull * 60);
	assert_int_equal(units_parse_time(&sec, &unl, "4294967294", NULL), -1);
}

struct mem_case {
	const char *in;
	uint64_t mb;
};

static void test_units_mem_suffixes(void **state)
{
	static const struct mem_case cases[] = {
	    {"1", 1},        {"4000", 4000},  {"512M", 512},
	    {"512m", 512},   {"32G", 32768},  {"32g", 32768},
	    {"1T", 1048576}, {"1t", 1048576}, {"1K", 1},
	    {"1k", 1},       {"1024K", 1},    {"1025K", 2},
	    {"2048k", 2},    {"0001G", 1024}, {"1048576T", (uint64_t)1 << 40},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t mb = 0;
		const char *why = NULL;

		if (units_parse_mem(&mb, cases[i].in, &why))
			fail_msg("'%s' refused: %s", cases[i].in, why);
		if (mb != cases[i].mb)
			fail_msg("'%s' -> %llu MiB", cases[i].in, (unsigned long long)mb);
	}
}

static const char mem_forms[] =
    "expected a whole number with an optional suffix K, M, G or T (as in 4000 or 32G)";
static const char mem_zero[] =
    "a memory size of zero is not allowed (sbatch reads it as all of a node's memory)";
static const char mem_b[] = "write the suffix without 'B' (32G, not 32GB): sbatch refuses it";

static void test_units_mem_rejects(void **state)
{
	static const struct reject_case cases[] = {
	    {"", "empty memory size"},
	    {"0", mem_zero},
	    {"0G", mem_zero},
	    {"0K", mem_zero},
	    {"32GB", mem_b},
	    {"32gb", mem_b},
	    {"512MB", mem_b},
	    {"1TB", mem_b},
	    {"1KB", mem_b},
	    {"32B", mem_forms},
	    {"32GBB", mem_forms},
	    {"1.5G", mem_forms},
	    {"-1", mem_forms},
	    {"G", mem_forms},
	    {"32 G", mem_forms},
	    {" 32", mem_forms},
	    {"32G ", mem_forms},
	    {"32X", mem_forms},
	    {"32GiB", mem_forms},
	    {"9999999999999", mem_forms},
	    {"1048577T", "memory size too large"},
	    {"1073741825G", "memory size too large"},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t mb = 7;
		const char *why = NULL;

		if (!units_parse_mem(&mb, cases[i].in, &why))
			fail_msg("'%s' accepted as %llu MiB", cases[i].in, (unsigned long long)mb);
		assert_non_null(why);
		if (strcmp(why, cases[i].why))
			fail_msg("'%s': why is '%s'", cases[i].in, why);
		assert_int_equal(mb, 7);
	}
}

struct format_case {
	uint64_t in;
	const char *out;
};

static void test_units_format_time(void **state)
{
	static const struct format_case cases[] = {
	    {0, "00:00:00"},       {59, "00:00:59"},
	    {60, "00:01:00"},      {3600, "01:00:00"},
	    {86399, "23:59:59"},   {86400, "1-00:00:00"},
	    {90061, "1-01:01:01"}, {100 * 86400 + 5, "100-00:00:05"},
	};
	char buf[64];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		units_format_time(buf, sizeof(buf), cases[i].in);
		assert_string_equal(buf, cases[i].out);
	}
}

static void test_units_format_mem(void **state)
{
	static const struct format_case cases[] = {
	    {1, "1M"},      {1023, "1023M"}, {1024, "1G"},    {1536, "1536M"},
	    {32768, "32G"}, {1048576, "1T"}, {2097152, "2T"}, {1048576 + 1024, "1025G"},
	    {0, "0M"},
	};
	char buf[64];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		units_format_mem(buf, sizeof(buf), cases[i].in);
		assert_string_equal(buf, cases[i].out);
	}
}

static void test_units_format_bytes(void **state)
{
	static const struct format_case cases[] = {
	    {0, "0"},
	    {512, "512"},
	    {1023, "1023"},
	    {1024, "1K"},
	    {1536, "1.5K"},
	    {20480, "20K"},
	    {10239, "10K"},
	    {1048575, "1M"},
	    {312ull << 20, "312M"},
	    {3ull << 29, "1.5G"},
	    {(1ull << 30) + 1, "1G"},
	    {5ull << 40, "5T"},
	    {UINT64_MAX, "16E"},
	};
	char buf[64];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		units_format_bytes(buf, sizeof(buf), cases[i].in);
		if (strcmp(buf, cases[i].out))
			fail_msg("%llu bytes -> '%s', want '%s'", (unsigned long long)cases[i].in,
			         buf, cases[i].out);
	}
}

/* What the formatters write, the parsers read back unchanged. */
static void test_units_round_trip(void **state)
{
	static const uint64_t seconds[] = {
	    1, 59, 60, 61, 3599, 3600, 86399, 86400, 86401, 7 * 86400 + 12345, 4294967293ull * 60,
	};
	static const uint64_t mbs[] = {1,    100,   1023,    1024,    1025,
	                               1536, 32768, 1048576, 3145728, (uint64_t)1 << 40};
	char buf[64];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(seconds) / sizeof(seconds[0]); i++) {
		uint64_t back = 0;
		bool unl = true;

		units_format_time(buf, sizeof(buf), seconds[i]);
		assert_int_equal(units_parse_time(&back, &unl, buf, NULL), 0);
		assert_int_equal(back, seconds[i]);
		assert_false(unl);
	}
	for (i = 0; i < sizeof(mbs) / sizeof(mbs[0]); i++) {
		uint64_t back = 0;

		units_format_mem(buf, sizeof(buf), mbs[i]);
		assert_int_equal(units_parse_mem(&back, buf, NULL), 0);
		assert_int_equal(back, mbs[i]);
	}
}

/* A small buffer gets a cut, NUL-terminated string, never an overflow. */
static void test_units_format_small_buffer(void **state)
{
	char buf[4];

	(void)state;
	units_format_time(buf, sizeof(buf), 90061);
	assert_string_equal(buf, "1-0");
	units_format_mem(buf, sizeof(buf), 1536);
	assert_string_equal(buf, "153");
	units_format_bytes(buf, sizeof(buf), 3ull << 29);
	assert_string_equal(buf, "1.5");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_units_time_forms),
	    cmocka_unit_test(test_units_time_rejects),
	    cmocka_unit_test(test_units_time_largest),
	    cmocka_unit_test(test_units_mem_suffixes),
	    cmocka_unit_test(test_units_mem_rejects),
	    cmocka_unit_test(test_units_format_time),
	    cmocka_unit_test(test_units_format_mem),
	    cmocka_unit_test(test_units_format_bytes),
	    cmocka_unit_test(test_units_round_trip),
	    cmocka_unit_test(test_units_format_small_buffer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
