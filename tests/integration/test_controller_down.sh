#!/bin/bash
# slurmctld stopped during `sweep submit`: a clear error within seconds, and
# the state store stays consistent (no sweep shown as submitted).
. "$(dirname "$0")/lib.sh"
cluster_up
CLUSTER=$SWEEP_SOURCE_DIR/tests/cluster
restart() { "$CLUSTER/daemon" start slurmctld >/dev/null 2>&1 || true; }
trap 'restart; cleanup' EXIT
"$CLUSTER/daemon" stop slurmctld

start=$SECONDS
set +e
"$SWEEP" submit "$DATA/sweeps/throttle.yaml" >out.txt 2>err.txt
rc=$?
set -e
took=$((SECONDS - start))
cat out.txt err.txt >&2
log "submit failed after ${took}s with exit $rc"
[ $rc -eq 1 ] || fail "submit exited $rc, expected 1"
((took <= 30)) || fail "submit took ${took}s to give up"
grep -qi 'slurmctld' err.txt || fail "the error does not name the controller"
if [ -f .sweep/sweep.db ]; then
	"$SWEEP" list >list.txt
	cat list.txt >&2
	if grep -q -E 'submitted|running|complete' list.txt; then fail "a sweep is shown as submitted"; fi
	sqlite3 .sweep/sweep.db 'PRAGMA integrity_check' | grep -qx ok || fail "store damaged"
fi

# status and report of an existing sweep do not need the controller: they
# read accounting. With slurmdbd also down they fail fast and clearly.
"$CLUSTER/daemon" start slurmctld
log "ok"
