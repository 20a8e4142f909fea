/*
 * The limits a submission meets, as the backend read them (the Slurm side:
 * slurm_quota.c), and what to say about them. Pure: no libslurm here.
 */
#include "quota.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "strbuf.h"

#include "banned.h"

void quota_init(struct quota *q)
{
	memset(q, 0, sizeof(*q));
}

void quota_release(struct quota *q)
{
	free(q->submit);
	free(q->run);
	free(q->user);
	free(q->account);
	free(q->qos);
	free(q->note);
	quota_init(q);
}

uint64_t quota_count_tasks(const char *spec)
{
	uint64_t n = 0;
	const char *p = spec;

	if (!spec || !*spec)
		return 0;
	if (!strncmp(spec, "0x", 2)) {
		for (p = spec + 2; *p; p++) {
			unsigned v = isdigit((unsigned char)*p) ? (unsigned)(*p - '0')
			             : isxdigit((unsigned char)*p)
			                 ? (unsigned)(tolower((unsigned char)*p) - 'a' + 10)
			                 : 0;
			for (; v; v &= v - 1)
				n++;
		}
		return n;
	}
	while (*p && *p != '%') {
		char *end;
		unsigned long a = strtoul(p, &end, 10), b = a, step = 1;

		if (end == p)
			return n;
		p = end;
		if (*p == '-') {
			b = strtoul(p + 1, &end, 10);
			p = end;
			if (*p == ':') {
				step = strtoul(p + 1, &end, 10);
				p = end;
			}
		}
		if (b >= a && step)
			n += (b - a) / step + 1;
		if (*p == ',')
			p++;
		else
			break;
	}
	return n;
}

/* Slurm's reason codes in sbatch's refusal, and the limit names they stand for. */
static const struct {
	const char *reason, *limit;
} reasons[] = {
    {"QOSMaxSubmitJobPerUserLimit", "MaxSubmitJobsPerUser"},
    {"QOSMaxSubmitJobPerAccountLimit", "MaxSubmitJobsPerAccount"},
    {"QOSGrpSubmitJobsLimit", "' GrpSubmitJobs"},
    {"AssocMaxSubmitJobLimit", ") MaxSubmitJobs"},
    {"AssocGrpSubmitJobsLimit", "account '"},
    {"temporarily unable to accept job", "MaxJobCount"},
    {"MaxJobCount", "MaxJobCount"},
};

char *quota_explain_refusal(const char *text, const struct quota *q)
{
	for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++) {
		if (!strstr(text, reasons[i].reason))
			continue;
		for (size_t k = 0; q && k < q->nsubmit; k++)
			if (strstr(q->submit[k].what, reasons[i].limit))
				return xstrfmt(
				    "%s (%" PRIu32 "; %" PRIu32 " in use when sweep looked)",
				    q->submit[k].what, q->submit[k].max, q->submit[k].used);
		if (!strcmp(reasons[i].limit, "MaxJobCount"))
			return xstrdup(
			    "slurmctld's MaxJobCount (every array task is a job record, kept "
			    "MinJobAge seconds after it ends)");
		return xstrfmt("the limit Slurm calls %s", reasons[i].reason);
	}
	if (strstr(text, "violates accounting/QOS policy")) {
		const struct rollout_limit *least = NULL;

		/* No reason code: the association or QOS limit with the least room left. */
		for (size_t k = 0; q && k < q->nsubmit; k++)
			if (!strstr(q->submit[k].what, "MaxJobCount") &&
			    (!least || rollout_free(&q->submit[k], 0) < rollout_free(least, 0)))
				least = &q->submit[k];
		if (least)
			return xstrfmt("%s (%" PRIu32 "; %" PRIu32 " in use when sweep looked)",
			               least->what, least->max, least->used);
		return xstrdup("an association or QOS limit ('sacctmgr show assoc user=$USER' and "
		               "'sacctmgr show qos' list them)");
	}
	return NULL;
}

void quota_print(const struct quota *q, const char *prefix)
{
	printf("%sMaxArraySize %" PRIu32 "; user '%s', account '%s', QOS '%s'; %" PRIu32
	       " of the user's jobs queued now\n",
	       prefix, q->max_array, q->user ? q->user : "?", q->account ? q->account : "default",
	       q->qos ? q->qos : "default", q->queued);
	for (size_t i = 0; i < q->nsubmit; i++)
		printf("%s  queued at most %" PRIu32 ": %s (%" PRIu32 " in use)\n", prefix,
		       q->submit[i].max, q->submit[i].what, q->submit[i].used);
	for (size_t i = 0; i < q->nrun; i++)
		printf("%s  running at most %" PRIu32 ": %s (%" PRIu32 " running)\n", prefix,
		       q->run[i].max, q->run[i].what, q->run[i].used);
	if (!q->nsubmit && !q->nrun)
		printf("%s  no job limits\n", prefix);
	if (q->note)
		printf("%s  note: %s\n", prefix, q->note);
}
