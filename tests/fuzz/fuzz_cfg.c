/* The sweep file reader, from a buffer: any bytes, no crash, no leak. */
#include "fuzz.h"

#include "cfg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cfg cfg;

	fuzz_setup();
	cfg_init(&cfg);
	if (!cfg_load_string(&cfg, "fuzz.yaml", (const char *)data, size))
		cfg_release(&cfg);
	return 0;
}
