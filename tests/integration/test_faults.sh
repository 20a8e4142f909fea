#!/bin/bash
# Tasks that fail, run out of memory and hit the time limit: Slurm records
# them as such, the warning signal reaches the program (which has no handler)
# through the trap and ends it, which sweep reads as the time limit, and
# `sweep report` refuses to average, naming all three (exit status 3).
. "$(dirname "$0")/lib.sh"
cluster_up
cp "$DATA/fault_task.py" .
submit "$DATA/sweeps/faults.yaml"
wait_sweep 4 400

state_of() { sacct_tasks | awk -F'|' -v id="${JOBS[0]}_$1" '$2 == id { print $3 "|" $4 }' | tail -1; }
[ "$(state_of 0)" = "COMPLETED|0:0" ] || fail "task 0: $(state_of 0)"
[ "$(state_of 1)" = "FAILED|3:0" ] || fail "task 1: $(state_of 1)"
# OverMemoryKill kills the step (0:9); when it reaches the command before the
# script, the script ends with the command's 137, which 22.05 records as 9:0.
case "$(state_of 2)" in
"FAILED|0:9" | "FAILED|9:0" | "FAILED|137:0" | OUT_OF_MEMORY*) ;;
*) fail "task 2 should have been killed for memory: $(state_of 2)" ;;
esac
# Slurm says FAILED 10:0 (the script's 128 + SIGUSR1, as 22.05 records it): the
# signal ended the program.
case "$(state_of 3)" in "FAILED|10:0" | "FAILED|138:0" | "FAILED|0:10") ;; *) fail "task 3: $(state_of 3)" ;; esac

# The signal reached the program through the trap; the script noted it.
grep -q "^[0-9]* USR1\$" "$(task_dir_in 3)/.signalled" || fail "task 3: no note of the signal"
grep -q 'forwarding it to the command' "logs/faults_${JOBS[0]}_3.err" || fail "no trap message in the log"

set +e
"$SWEEP" report >report.out 2>report.err
rc=$?
set -e
cat report.out report.err >&2
[ $rc -eq 3 ] || fail "report exited $rc, expected 3 (incomplete)"
grep -q 'exit code 3' report.out || fail "report does not name the failed task's exit code"
grep -q 'out of memory' report.out || fail "report does not name the out-of-memory task"
grep -q 'time limit (ended by the warning signal)' report.out ||
	fail "report does not name the task over its time limit"
if grep -q '±' report.out; then fail "report printed statistics for an incomplete sweep"; fi

"$SWEEP" status --json >status.json
python3 - <<'PY'
import json
s = json.load(open("status.json"))
states = {t["index"]: t["state"] for t in s["tasks"]}
assert states[0] == "COMPLETED", states
assert states[1] == "FAILED", states
assert states[3] == "TIMEOUT", states
print("status:", states)
PY
log "ok"
