/*
 * The disk quota readers: `lfs quota -q` output, lfs's grace column, and
 * /proc/self/mountinfo lines (the first input byte picks the device minor
 * and the path looked up, so bind mounts and escapes get exercised).
 */
#include "fuzz.h"

#include "diskquota.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const paths[] = {"/", "/home/ann", "/data set/x", "/scratch"};
	char *s = fuzz_string(data, size);
	struct diskquota q = {0};
	struct diskquota_mount m;
	unsigned pick = size ? data[0] : 0;

	fuzz_setup();
	if (diskquota_parse_lfs(&q, s) == 0 && q.grace < -1)
		abort(); /* a read quota has a grace lfs could have printed */
	diskquota_parse_grace(s);
	if (diskquota_parse_mountinfo(&m, s, 8, pick & 31, paths[(pick >> 5) & 3]) == 0) {
		if (!m.point || !m.fstype || !m.source)
			abort();
		diskquota_mount_release(&m);
	}
	free(s);
	return 0;
}
