#include "space.h"

#include <errno.h>
#include <string.h>
#include <sys/statvfs.h>

#include "error.h"
#include "units.h"

#include "banned.h"

static uint64_t mul_sat(uint64_t a, uint64_t b)
{
	if (a && b > UINT64_MAX / a)
		return UINT64_MAX;
	return a * b;
}

uint64_t space_needed_mb(size_t ntasks, unsigned max_concurrent, uint64_t size_mb, unsigned keep)
{
	uint64_t at_once = ntasks;

	if (max_concurrent && max_concurrent < at_once)
		at_once = max_concurrent;
	return mul_sat(mul_sat(at_once, size_mb), keep);
}

int space_check(const char *dir, uint64_t needed_mb, size_t at_once, uint64_t size_mb,
                unsigned keep)
{
	struct statvfs fs;
	uint64_t free_mb;
	char need[32], have[32], one[32];

	if (statvfs(dir, &fs) < 0)
		return error("cannot read the free space of '%s': %s", dir, strerror(errno));
	free_mb = mul_sat(fs.f_bavail, fs.f_frsize) / (1024 * 1024);
	if (needed_mb <= free_mb)
		return 0;
	units_format_bytes(need, sizeof(need), mul_sat(needed_mb, 1024 * 1024));
	units_format_bytes(have, sizeof(have), mul_sat(free_mb, 1024 * 1024));
	units_format_mem(one, sizeof(one), size_mb);
	return error(
	    "checkpoints need up to %s (%zu tasks at once x %s x %u kept) in '%s', which "
	    "has %s free; lower 'checkpoint.keep' or 'slurm.max_concurrent', or free space",
	    need, at_once, one, keep, dir, have);
}
