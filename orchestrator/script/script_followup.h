#ifndef SWEEP_SCRIPT_FOLLOWUP_H
#define SWEEP_SCRIPT_FOLLOWUP_H

#include <stdint.h>

struct cfg;

/* The follow-up job (ops/followup.h): its command, script file and requests. */
#define FOLLOWUP_COMMAND "__followup"
#define FOLLOWUP_SCRIPT  "followup.sbatch"
#define FOLLOWUP_MEM     "512M"
#define FOLLOWUP_TIME    "30"

/* What the follow-up script says of its sweep; borrowed. */
struct script_followup {
	int64_t sweep_id;
	const char *name;      /* the sweep's name: the job is "<name>.followup" */
	const char *dir;       /* the sweep's folder: the script and its log */
	const char *program;   /* this binary, by its absolute path */
	const char *state_dir; /* absolute */
	const char *workdir;   /* the folder the job runs in (--chdir) */
};

/*
 * Writes <f->dir>/followup.sbatch: the #SBATCH lines (job name
 * "<name>.followup", log <dir>/followup-%j.log, chdir workdir, partition,
 * account and qos of the sweep file cfg) and the line that runs program.
 * Fails on a value that cannot stand in an #SBATCH line.
 */
int script_followup_write(const struct script_followup *f, const struct cfg *cfg);

#endif
