/* The result file reader (JSON with NaN/Infinity tokens). */
#include "fuzz.h"

#include "result.h"
#include "strbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct result res;
	struct strbuf sb = STRBUF_INIT;

	fuzz_setup();
	result_init(&res);
	result_parse(&res, (const char *)data, size);
	result_describe(&sb, &res);
	/* Every key is found again, and is plain text whatever the file held. */
	for (size_t i = 0; i < res.nentries; i++)
		if (result_find(&res, res.entries[i].key) != &res.entries[i] ||
		    !strbuf_is_plain(res.entries[i].key))
			abort();
	strbuf_release(&sb);
	result_release(&res);
	return 0;
}
