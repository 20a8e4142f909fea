#include "rolling.h"

#include "store.h"

#include "helpers.h"

#include "banned.h"

/* The next index to submit: past every chunk of the first submission, however recorded. */
static void test_rolling_next_index(void **state)
{
	struct sweep_rec rec;
	struct array_rec arrays[4];

	(void)state;
	sweep_rec_init(&rec);
	memset(arrays, 0, sizeof(arrays));
	rec.ntasks = 1000;
	assert_int_equal(rolling_next_index(&rec, arrays, 0), 0);
	arrays[0] = (struct array_rec){.offset = 0, .spec = "0-99%10", .attempt = 1};
	arrays[1] = (struct array_rec){.offset = 100, .spec = "0-99%10", .attempt = 1};
	assert_int_equal(rolling_next_index(&rec, arrays, 2), 200);
	/* A retry round's array (attempt 2) runs tasks again: it submits nothing new. */
	arrays[2] = (struct array_rec){.offset = 900, .spec = "0-99", .attempt = 2};
	/* The order of the records does not matter. */
	arrays[3] = (struct array_rec){.offset = 200, .spec = "0-49", .attempt = 1};
	assert_int_equal(rolling_next_index(&rec, arrays, 4), 250);
}

/* Packed: each array task runs pack tasks; the last chunk ends at the sweep's end. */
static void test_rolling_next_index_packed(void **state)
{
	struct sweep_rec rec;
	struct array_rec arrays[2];

	(void)state;
	sweep_rec_init(&rec);
	memset(arrays, 0, sizeof(arrays));
	rec.ntasks = 250;
	rec.pack = 4;
	arrays[0] = (struct array_rec){.offset = 0, .spec = "0-49", .attempt = 1};
	assert_int_equal(rolling_next_index(&rec, arrays, 1), 200);
	arrays[1] = (struct array_rec){.offset = 200, .spec = "0-49", .attempt = 1};
	assert_int_equal(rolling_next_index(&rec, arrays, 2), 250);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rolling_next_index),
	    cmocka_unit_test(test_rolling_next_index_packed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
