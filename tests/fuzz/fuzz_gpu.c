/*
 * The nvidia-smi CSV parser. The input is the GPU list, then a NUL byte,
 * then the process list (no NUL: an empty process list).
 */
#include "fuzz.h"

#include "gpu.h"
#include "strbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_string(data, size);
	const char *apps = s + strlen(s);
	struct gpu_set set;
	struct strbuf sb = STRBUF_INIT;

	fuzz_setup();
	if (apps < s + size)
		apps++;
	gpu_set_init(&set);
	if (!gpu_parse(&set, s, apps)) {
		gpu_select(&set, 0);
		gpu_select(&set, 1024);
		gpu_free_list(&sb, &set);
		gpu_set_release(&set);
	}
	strbuf_release(&sb);
	free(s);
	return 0;
}
