#!/bin/bash
# `sweep submit` killed (SIGKILL) right after sbatch accepted the array job,
# before it could record it: the next command finds the job again by its
# name and script, records it, and the sweep completes as usual. Killed
# before sbatch ran: the sweep is marked failed, never shown as running.
# The kill is injected by a wrapper around the real sbatch.
. "$(dirname "$0")/lib.sh"
cluster_up
real_sbatch=$(command -v sbatch)
mkdir -p bin-after bin-before
cat >bin-after/sbatch <<SH
#!/bin/bash
"$real_sbatch" "\$@"
rc=\$?
kill -9 \$PPID
exit \$rc
SH
cat >bin-before/sbatch <<'SH'
#!/bin/bash
kill -9 $PPID
SH
chmod +x bin-after/sbatch bin-before/sbatch
trap 'scancel -n tiny 2>/dev/null || true' EXIT

set +e
PATH=$PWD/bin-after:$PATH "$SWEEP" submit "$DATA/sweeps/tiny.yaml"
rc=$?
set -e
[ $rc -eq 137 ] || fail "submit should have been killed (137), exited $rc"
"$SWEEP" list | tee list.txt >&2
grep -q 'tiny *submitting' list.txt || fail "the sweep should still be 'submitting'"

"$SWEEP" status >status.txt 2>status.err || fail "status failed"
cat status.txt status.err >&2
grep -q 'was interrupted; Slurm had accepted array job' status.err || fail "no recovery message"
"$SWEEP" list | grep -q -E 'tiny +(running|complete)' || fail "the sweep is not shown as submitted (running or complete)"
JOBS=($(sqlite3 .sweep/sweep.db 'SELECT job_id FROM arrays'))
[ ${#JOBS[@]} -eq 1 ] || fail "expected one recorded array job, got ${JOBS[*]}"
wait_sweep 2 120
"$SWEEP" report >report.txt || fail "report of the recovered sweep failed"
cat report.txt >&2

# Killed before sbatch: nothing was accepted; once the submit lock is free
# the sweep is marked failed.
set +e
PATH=$PWD/bin-before:$PATH "$SWEEP" submit "$DATA/sweeps/tiny.yaml"
rc=$?
set -e
[ $rc -eq 137 ] || fail "second submit should have been killed (137), exited $rc"
"$SWEEP" status 2 >status2.txt 2>status2.err || true
cat status2.txt status2.err >&2
grep -q 'interrupted before Slurm accepted any array job' status2.err || fail "not marked failed"
"$SWEEP" list | grep -q '^2 .*failed' || fail "sweep 2 is not marked failed"
log "ok"
