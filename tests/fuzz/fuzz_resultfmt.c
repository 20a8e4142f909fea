/*
 * The readers of `results:` (issue 11): JSON Lines, CSV and the log's
 * regular expressions. The input's first byte picks the reader ('j' JSON
 * Lines, 'c' CSV, anything else the log scan, with patterns as users write
 * them), the rest is the file. Keys, reasons and warnings must be plain
 * text (strbuf_is_plain), whatever bytes the file held.
 */
#include "fuzz.h"

#include "result.h"
#include "strbuf.h"

static void check(const struct result *res)
{
	struct strbuf sb = STRBUF_INIT;

	result_describe(&sb, res);
	if (res->nentries > RESULT_MAX_KEYS)
		abort();
	for (size_t i = 0; i < res->nentries; i++) {
		if (i && strcmp(res->entries[i - 1].key, res->entries[i].key) > 0)
			abort();
		if (res->status == RESULT_OK && !result_find(res, res->entries[i].key))
			abort();
		/* Plain text whatever the file held: no printer gets a control byte. */
		if (!strbuf_is_plain(res->entries[i].key))
			abort();
		if (res->entries[i].why && !strbuf_is_plain(res->entries[i].why))
			abort();
	}
	if (res->warning && !strbuf_is_plain(res->warning))
		abort();
	strbuf_release(&sb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = {"loss", "acc", "lr"};
	static const char *const patterns[] = {"loss[=:] *([0-9.eE+-]+)", "acc=([0-9.]+)",
	                                       "^lr: ([^ ]+)"};
	static struct result_log_spec spec;
	static int have_spec;
	struct result res;
	const char *text = (const char *)data + 1;

	fuzz_setup();
	if (!size)
		return 0;
	if (!have_spec) {
		if (result_log_spec_init(&spec, names, patterns, 3) < 0)
			abort();
		have_spec = 1;
	}
	switch (data[0]) {
	case 'j':
		result_init(&res);
		result_parse_format(&res, text, size - 1, RESULT_JSONL, NULL);
		break;
	case 'c':
		result_init(&res);
		result_parse_format(&res, text, size - 1, RESULT_CSV, NULL);
		break;
	default:
		/* The log's metrics join a file's, as report reads them. */
		result_init(&res);
		result_parse(&res, "{\"acc\": 1, \"epochs\": 3}", 24);
		result_scan_log(&res, text, size - 1, "LOG", &spec);
		break;
	}
	check(&res);
	result_release(&res);
	return 0;
}
