#ifndef SWEEP_FAULT_H
#define SWEEP_FAULT_H

/*
 * Fault injection for tests: fault_point("submit-after-sbatch") kills the
 * process with SIGKILL when the environment variable SWEEP_FAULT names
 * that point, so a test can stop a command at each step of a submission
 * exactly where a crash or kill -9 could. Without SWEEP_FAULT it does
 * nothing. The points are listed where they stand (grep fault_point).
 */
void fault_point(const char *name);

#endif
