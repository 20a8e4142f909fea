/* The --time and --mem parsers, and their formatters read back. */
#include "fuzz.h"

#include "units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_string(data, size);
	const char *why = NULL;
	uint64_t seconds = 0, mb = 0, again = 0;
	bool unlimited = false;
	char buf[64];

	fuzz_setup();
	if (!units_parse_time(&seconds, &unlimited, s, &why) && !unlimited) {
		/* What sweep writes must read back as the same time. */
		units_format_time(buf, sizeof(buf), seconds);
		if (units_parse_time(&again, &unlimited, buf, &why) || again != seconds)
			abort();
	}
	if (!units_parse_mem(&mb, s, &why)) {
		units_format_mem(buf, sizeof(buf), mb);
		if (units_parse_mem(&again, buf, &why) || again != mb)
			abort();
		units_format_bytes(buf, sizeof(buf), mb);
	}
	free(s);
	return 0;
}
