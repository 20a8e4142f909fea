#!/bin/bash
# Packed tasks (pack: 4): 12 tasks in 3 array tasks, each sweep task a job
# step named sweep-<index>, so accounting has one record per sweep task.
# One task fails: `report` refuses and names it; `resubmit` re-runs only that
# task (one array task, one step), and then `report` averages all 12.
. "$(dirname "$0")/lib.sh"
cluster_up

# Accounting reaches slurmdbd a little after the queue empties: wait until
# every task has a final record.
all_final() {
	"$SWEEP" status --json >status.json 2>/dev/null || return 1
	python3 -c '
import json, sys
s = json.load(open("status.json"))
sys.exit(0 if all(t["state"] in ("COMPLETED", "FAILED") for t in s["tasks"]) else 1)'
}
cp "$DATA/packed_task.py" .
cp "$DATA/sweeps/packed.yaml" .
out=$("$SWEEP" submit packed.yaml) || fail "submit failed"
printf '%s\n' "$out" >&2
grep -q 'time limit is 4 times' <<<"$out" || fail "submit does not say the array task's time limit"
SWEEP_ID=$(sed -n 's/^sweep \([0-9]*\) .*/\1/p' <<<"$out")
mapfile -t JOBS < <(sed -n 's/^array job \([0-9]*\):.*/\1/p' <<<"$out")
CLEANUP_JOBS+=("${JOBS[@]}")
[ ${#JOBS[@]} -eq 1 ] || fail "expected one array job, got ${JOBS[*]}"
grep -q -- '--array=0-2' "$(sweep_dir)/packed.sbatch" || fail "the script does not ask 3 array tasks"
grep -q -- '--time=00:04:00' "$(sweep_dir)/packed.sbatch" || fail "the array task's time is not 4 x 1 minute"
wait_sweep 3 300
wait_until 60 "every task's record" all_final

# Accounting: one step per sweep task, named after its index.
steps=$(sacct -n -P -j "${JOBS[0]}" -o JobName,State,ExitCode | grep '^sweep-' | sort -t- -k2 -n)
printf '%s\n' "$steps" >&2
[ "$(grep -c . <<<"$steps")" -eq 12 ] || fail "expected 12 steps named sweep-N"
grep -q '^sweep-4|FAILED|4:0$' <<<"$steps" || fail "step sweep-4 should have failed with 4"
[ "$(grep -c '|COMPLETED|0:0$' <<<"$steps")" -eq 11 ] || fail "expected 11 completed steps"

"$SWEEP" status --json >status.json
python3 - <<'PY'
import json
s = json.load(open("status.json"))
states = {t["index"]: t["state"] for t in s["tasks"]}
assert len(states) == 12, states
assert states[4] == "FAILED", states
assert all(v == "COMPLETED" for k, v in states.items() if k != 4), states
PY

set +e
"$SWEEP" report >report.out 2>&1
rc=$?
set -e
cat report.out >&2
[ $rc -eq 3 ] || fail "report exited $rc on a sweep with a failed task, expected 3"
grep -q 'exit code 4' report.out || fail "report does not name the failed task's exit code"

# Heal: the resubmission runs only task 4, packed alone.
touch healed
out=$("$SWEEP" resubmit) || fail "resubmit failed"
printf '%s\n' "$out" >&2
mapfile -t RJOBS < <(sed -n 's/^array job \([0-9]*\):.*/\1/p' <<<"$out")
[ ${#RJOBS[@]} -eq 1 ] || fail "expected one array job from resubmit: $out"
CLEANUP_JOBS+=("${RJOBS[@]}")
JOBS=("${RJOBS[@]}")
wait_sweep 1 300
wait_until 60 "every task's record" all_final
steps=$(sacct -n -P -j "${RJOBS[0]}" -o JobName,State,ExitCode | grep '^sweep-')
printf '%s\n' "$steps" >&2
[ "$steps" = "sweep-4|COMPLETED|0:0" ] || fail "the resubmission should run task 4 only: $steps"

"$SWEEP" report >report.out || fail "report refused the healed sweep: $(cat report.out)"
cat report.out >&2
grep -q '(n = 3)\|n=3\| 3 ' report.out || fail "report does not average 3 seeds"
log "ok"
