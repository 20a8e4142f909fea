#!/bin/bash
# sbatch refusing a job is a clear error with sbatch's own words, and the
# state store never shows the sweep as running.
. "$(dirname "$0")/lib.sh"
cluster_up
set +e
"$SWEEP" submit "$DATA/sweeps/bad_partition.yaml" >out.txt 2>err.txt
rc=$?
set -e
cat out.txt err.txt >&2
[ $rc -eq 1 ] || fail "submit exited $rc, expected 1"
grep -q 'sbatch refused the job' err.txt || fail "no clear error"
grep -qi 'partition' err.txt || fail "sbatch's own reason is not shown"
"$SWEEP" list >list.txt
cat list.txt >&2
grep -q 'nowhere *failed' list.txt || fail "the sweep is not recorded as failed"
"$SWEEP" status nowhere >status.txt 2>&1 || true
cat status.txt >&2
grep -qi 'fail' status.txt || fail "status does not say the submission failed"
if grep -q 'RUNNING\|PENDING' status.txt; then fail "a failed sweep shown as running"; fi
[ -z "$(squeue -h -n nowhere)" ] || fail "something named 'nowhere' is in the queue"
log "ok"
