/*
 * What a sweep's generated script asks in its #SBATCH lines (memory, time,
 * CPUs), read with the sbatch option reader, into the backend-neutral
 * resubmit_script that resubmit planning works on.
 */
#include "script.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "resubmit.h"
#include "rightsize.h"
#include "sbopt.h"
#include "units.h"

#include "banned.h"

static int parse_count(unsigned *out, const char *v)
{
	char *end;
	unsigned long n;

	if (*v < '0' || *v > '9')
		return -1;
	n = strtoul(v, &end, 10);
	if (*end || !n || n > 1000000)
		return -1;
	*out = (unsigned)n;
	return 0;
}

static const struct sbopt_name script_options[] = {
    {"mem", 0},    {"mem-per-cpu", 0},     {"mem-per-gpu", 0},
    {"time", 't'}, {"cpus-per-task", 'c'}, {"ntasks", 'n'},
};

struct script_reader {
	struct resubmit_script *out;
	unsigned ntasks;
	const char *why; /* set when take fails */
};

/* sbopt_fn: one of script_options with its value. */
static int take(void *data, const char *name, const char *v)
{
	struct script_reader *r = data;
	struct resubmit_script *out = r->out;
	uint64_t seconds;
	bool unlimited;
	const char *unit_why;

	if (!v) {
		r->why = "an #SBATCH option of the script lacks its value";
		return -1;
	}
	if (!strcmp(name, "time")) {
		if (units_parse_time(&seconds, &unlimited, v, &unit_why) < 0) {
			r->why = "the script's #SBATCH --time value cannot be read";
			return -1;
		}
		out->time_min = unlimited ? 0 : rightsize_clean_time_min(seconds);
	} else if (!strcmp(name, "cpus-per-task")) {
		if (parse_count(&out->cpus, v) < 0) {
			r->why =
			    "the script's #SBATCH --cpus-per-task value is not a positive count";
			return -1;
		}
	} else if (!strcmp(name, "ntasks")) {
		if (parse_count(&r->ntasks, v) < 0) {
			r->why = "the script's #SBATCH --ntasks value is not a positive count";
			return -1;
		}
	} else {
		if (units_parse_mem(&out->mem_mb, v, &unit_why) < 0) {
			r->why = "the script's #SBATCH memory value cannot be read";
			return -1;
		}
		out->mem_kind = !strcmp(name, "mem")           ? RESUBMIT_MEM_NODE
		                : !strcmp(name, "mem-per-cpu") ? RESUBMIT_MEM_PER_CPU
		                                               : RESUBMIT_MEM_PER_GPU;
	}
	return 0;
}

int script_read_resources(struct resubmit_script *out, const char *text, const char **why)
{
	struct script_reader r = {out, 1, NULL};

	memset(out, 0, sizeof(*out));
	out->cpus = 1;
	if (sbopt_read_script(text, script_options,
	                      sizeof(script_options) / sizeof(script_options[0]), take, &r) < 0) {
		*why = r.why;
		return -1;
	}
	if ((uint64_t)out->cpus * r.ntasks > UINT32_MAX) {
		*why = "the script asks more CPUs than Slurm can count";
		return -1;
	}
	out->cpus *= r.ntasks;
	return 0;
}
