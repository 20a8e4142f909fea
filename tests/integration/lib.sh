# Shared helpers for the integration tests. Each test is a bash script run by
# ctest against the real local cluster (tests/cluster/up). Source this file.
set -euo pipefail

: "${SWEEP:?set SWEEP to the sweep binary (ctest does)}"
: "${SWEEP_SOURCE_DIR:?set SWEEP_SOURCE_DIR to the source tree (ctest does)}"
TEST_NAME=$(basename "$0" .sh)
WORK=${SWEEP_TEST_WORK:-/tmp/sweep-it}/$TEST_NAME
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK"
export SWEEP_STATE_DIR=$WORK/.sweep
DATA=$SWEEP_SOURCE_DIR/tests/data
CLEANUP_JOBS=()

log() { printf '[%s %s] %s\n' "$TEST_NAME" "$(date +%T)" "$*" >&2; }
fail() { log "FAIL: $*"; exit 1; }

cleanup() {
	local id
	for id in "${CLEANUP_JOBS[@]}"; do scancel "$id" 2>/dev/null || true; done
}
trap cleanup EXIT

# submit_local FILE [ARGS...]: sweep submit --local, the sweep id in
# SWEEP_ID. (Local job ids mean nothing to Slurm: submit would scancel them.)
submit_local() {
	local out
	out=$("$SWEEP" submit --local "$@") || fail "sweep submit --local $* failed"
	printf '%s\n' "$out" >&2
	SWEEP_ID=$(printf '%s\n' "$out" | sed -n 's/^sweep \([0-9]*\) .*/\1/p' | head -1)
	[ -n "$SWEEP_ID" ] || fail "no sweep id in: $out"
}

# For trap ... EXIT in tests with local sweeps: cancels every sweep of the
# state store (the local runners too), then the Slurm jobs (cleanup).
cancel_sweeps() {
	local id
	for id in $("$SWEEP" list 2>/dev/null | awk '$1 ~ /^[0-9]+$/ { print $1 }'); do
		"$SWEEP" cancel "$id" >/dev/null 2>&1 || true
	done
	cleanup
}

# Bounded polling: wait_until SECONDS DESCRIPTION COMMAND...
wait_until() {
	local limit=$1 what=$2 deadline
	shift 2
	deadline=$((SECONDS + limit))
	until "$@"; do
		((SECONDS < deadline)) || fail "timed out after ${limit}s waiting for: $what"
		sleep 1
	done
}

cluster_up() {
	scontrol ping >/dev/null 2>&1 || fail "the cluster is not running (tests/cluster/up)"
}

# submit FILE [ARGS...]: runs sweep submit, records the array job ids in
# JOBS (and for cleanup), the sweep id in SWEEP_ID.
submit() {
	local out
	out=$("$SWEEP" submit "$@") || fail "sweep submit $* failed"
	printf '%s\n' "$out" >&2
	SWEEP_ID=$(printf '%s\n' "$out" | sed -n 's/^sweep \([0-9]*\) .*/\1/p' | head -1)
	mapfile -t JOBS < <(printf '%s\n' "$out" | sed -n 's/^array job \([0-9]*\):.*/\1/p')
	[ -n "$SWEEP_ID" ] && [ ${#JOBS[@]} -gt 0 ] || fail "no sweep id or job id in: $out"
	CLEANUP_JOBS+=("${JOBS[@]}")
}

jobs_csv() { local IFS=,; printf '%s' "${JOBS[*]}"; }

# True when no task of JOBS is pending or running any more.
queue_empty() { [ -z "$(squeue -h -r -j "$(jobs_csv)" 2>/dev/null)" ]; }

# Prints "JobIDRaw|ArrayJobID|ArrayTaskID|State|ExitCode" for every task
# (allocation rows only, every run including requeued ones).
sacct_tasks() {
	sacct -n -P -X -D -j "$(jobs_csv)" -o JobIDRaw,JobID,State,ExitCode 2>/dev/null
}

# True when accounting shows N task rows and all of them ended.
accounting_final() {
	local n=$1 rows
	rows=$(sacct_tasks | grep -v -E '\|(PENDING|RUNNING|REQUEUED|SUSPENDED)' | grep -c . || true)
	[ "$rows" -ge "$n" ] && ! sacct_tasks | grep -q -E '\|(PENDING|RUNNING)\|'
}

# wait_sweep N SECONDS: waits until the queue has no task of JOBS and
# accounting holds N ended task rows.
wait_sweep() {
	local n=$1 limit=$2
	wait_until "$limit" "the sweep's tasks to leave the queue" queue_empty
	wait_until 60 "accounting to record $n ended tasks" accounting_final "$n"
}

# completed_once N: every one of N array tasks (JobID A_a) of JOBS ended
# COMPLETED 0:0 exactly once. Earlier runs of a requeued task (a node
# failure, say) may stand before, but no task completed twice.
completed_once() {
	sacct_tasks | python3 -c '
import sys, collections
n = int(sys.argv[1])
runs = collections.defaultdict(list)
for line in sys.stdin:
    raw, jobid, state, code = line.rstrip("\n").split("|")
    runs[jobid].append((state, code))
bad = [f"{j}: {r}" for j, r in runs.items() if [x for x in r if x[0] == "COMPLETED"] != [("COMPLETED", "0:0")] or r[-1] != ("COMPLETED", "0:0")]
if len(runs) != n or bad:
    print(f"expected {n} tasks each COMPLETED 0:0 once, got {len(runs)} tasks; " + "; ".join(bad[:10]))
    sys.exit(1)
' "$1"
}

sweep_dir() { printf '%s/sweeps/%s' "$SWEEP_STATE_DIR" "$SWEEP_ID"; }

# A test written for both backends runs on BACKEND: local (--local) unless
# SWEEP_TEST_BACKEND=slurm, which its Slurm twin (test_X.sh beside
# test_local_X.sh, sourcing it) sets. submit_on FILE [ARGS...] submits
# there; on_opt holds the options that say where (for submit --extend).
BACKEND=${SWEEP_TEST_BACKEND:-local}
on_opt=()
if [ "$BACKEND" = slurm ]; then
	cluster_up
else
	on_opt=(--local)
fi
submit_on() {
	if [ "$BACKEND" = slurm ]; then submit "$@"; else submit_local "$@"; fi
}

# The folder of task INDEX in sweep folder DIR (default: the current sweep's),
# as the default template lays them out: tasks/<index / 1000>/<index>.
task_dir_in() { printf '%s/tasks/%s/%s' "${2:-$(sweep_dir)}" "$(($1 / 1000))" "$1"; }
