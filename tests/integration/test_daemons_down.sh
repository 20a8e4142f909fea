#!/bin/bash
# status and report with a daemon down: no slurm.conf or slurmdbd stopped
# gives a clear error within 10 s and a non-zero exit, and the state store
# is unchanged; with slurmctld stopped they still answer from accounting.
# (A finished sweep is answered from the state store once read: --refresh
# makes these ask slurmdbd; test_kept_daemons_down covers the store.)
. "$(dirname "$0")/lib.sh"
cluster_up
CLUSTER=$SWEEP_SOURCE_DIR/tests/cluster
restore() { "$CLUSTER/daemon" start slurmdbd >/dev/null 2>&1 || true; "$CLUSTER/daemon" start slurmctld >/dev/null 2>&1 || true; }
trap 'restore; cleanup' EXIT
submit "$DATA/sweeps/tiny.yaml"
wait_sweep 2 120
"$SWEEP" report >/dev/null || fail "report of a complete sweep failed"
# The kept accounting records (acct_*) may be written by any read.
dump() { sqlite3 .sweep/sweep.db .dump | grep -v 'acct_' | md5sum; }
before=$(dump)

# expect_fast_error WHAT PATTERN COMMAND...: fails within 10 s, exit 1, saying PATTERN
expect_fast_error() {
	local what=$1 pattern=$2 start rc
	shift 2
	start=$SECONDS
	set +e
	"$@" >out.txt 2>err.txt
	rc=$?
	set -e
	cat err.txt >&2
	[ $rc -eq 1 ] || fail "$what: exit $rc, expected 1"
	((SECONDS - start <= 10)) || fail "$what: took $((SECONDS - start)) s"
	grep -q "$pattern" err.txt || fail "$what: the error does not say '$pattern'"
	log "$what: clear error in $((SECONDS - start)) s"
}

expect_fast_error "no slurm.conf" "cannot read Slurm's configuration" env SLURM_CONF=/nonexistent/slurm.conf "$SWEEP" status --refresh
"$CLUSTER/daemon" stop slurmdbd
expect_fast_error "slurmdbd down (status)" "slurmdbd" "$SWEEP" status --refresh
expect_fast_error "slurmdbd down (report)" "slurmdbd" "$SWEEP" report --refresh
"$CLUSTER/daemon" start slurmdbd

"$CLUSTER/daemon" stop slurmctld
"$SWEEP" status >status.txt || fail "status needs only accounting, but failed with slurmctld down"
grep -q 'COMPLETED 2' status.txt || fail "status with slurmctld down: $(cat status.txt)"
"$CLUSTER/daemon" start slurmctld

[ "$(dump)" = "$before" ] || fail "the state store changed"
log "ok"
