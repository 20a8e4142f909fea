/*
 * The #SBATCH value and slurm.extra checkers, and the #SBATCH line reader.
 * A value the checker accepts must render into the room the header promises.
 */
#include "fuzz.h"

#include "sbopt.h"

static const struct sbopt_name names[] = {
    {"array", 'a'}, {"job-name", 'J'}, {"output", 'o'}, {"time", 't'}, {"mem", 0},
};

static int count(void *data, const char *name, const char *value)
{
	(void)name;
	(void)value;
	(*(size_t *)data)++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_string(data, size), *why = NULL;
	const char *static_why = NULL;
	char out[SBOPT_MAX_VALUE + 3];
	size_t n = 0;

	fuzz_setup();
	for (int pct = 0; pct <= 1; pct++) {
		if (!sbopt_check_value(s, pct, &static_why)) {
			size_t len = sbopt_render(out, sizeof(out), s);

			if (len >= sizeof(out) || strlen(out) != len)
				abort();
		}
	}
	if (sbopt_check_extra(s, &why) < 0 && !why)
		abort();
	free(why);
	sbopt_read_script(s, names, sizeof(names) / sizeof(names[0]), count, &n);
	free(s);
	return 0;
}
