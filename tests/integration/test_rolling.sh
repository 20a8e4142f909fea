#!/bin/bash
# A sweep bigger than the user may queue: 500 tasks under the QOS `small`
# (MaxSubmitJobsPerUser=100). `submit --dry-run` shows the limit and the
# plan; `submit` sends what fits and a follow-up job; follow-ups submit the
# rest as chunks end, with nobody at the keyboard; every task completes
# once, and `report` averages them all.
. "$(dirname "$0")/lib.sh"
cluster_up
sacctmgr -n -P show qos small format=maxsubmitpu | grep -qx 100 ||
	fail "the test cluster has no QOS small with MaxSubmitJobsPerUser=100 (tests/cluster/up)"
cp "$DATA/sweeps/rolling.yaml" .

"$SWEEP" submit --dry-run rolling.yaml >dry.out || fail "dry run failed"
grep -q "queued at most 100: QOS 'small' MaxSubmitJobsPerUser" dry.out ||
	fail "the dry run does not show the QOS limit: $(grep '^# ' dry.out | head -20)"
grep -q '^# rolling: ' dry.out || fail "the dry run does not show the rolling plan"

out=$("$SWEEP" submit rolling.yaml) || fail "submit failed"
printf '%s\n' "$out" >&2
SWEEP_ID=$(sed -n 's/^sweep \([0-9]*\) .*/\1/p' <<<"$out")
grep -q '^rolling: ' <<<"$out" || fail "submit does not say it rolls"
followup=$(sed -n 's/.*follow-up job \([0-9]*\) .*/\1/p' <<<"$out")
[ -n "$followup" ] || fail "no follow-up job"
# For cleanup: the sweep's jobs and follow-ups, whichever exist by then.
trap '"$SWEEP" cancel "$SWEEP_ID" >/dev/null 2>&1 || true' EXIT

"$SWEEP" status >status.out 2>&1 || true
grep -q 'submitted [0-9]* of 500 tasks; next batch when job [0-9]* ends' status.out ||
	fail "status does not show the rolling progress: $(cat status.out)"
# The tasks no chunk holds yet are counted as such, not as missing.
in_now=$(sed -n 's/.*submitted \([0-9]*\) of 500 tasks.*/\1/p' status.out)
grep -q "NOT_SUBMITTED $((500 - in_now))\$" status.out ||
	fail "status does not count the $((500 - in_now)) tasks not submitted yet: $(cat status.out)"
"$SWEEP" status --tasks >tasks.out 2>&1 || true
in_now=$(sed -n 's/.*submitted \([0-9]*\) of 500 tasks.*/\1/p' tasks.out) # a chunk may have gone in since
[ "$(grep -c -E '^[0-9]+ .* NOT_SUBMITTED ' tasks.out)" = $((500 - in_now)) ] ||
	fail "status --tasks does not mark the tasks not submitted yet: $(head -20 tasks.out)"

# Nobody at the keyboard: the follow-ups submit everything.
all_in_and_done() {
	"$SWEEP" status --json >status.json 2>/dev/null || return 1
	python3 -c '
import json, sys
s = json.load(open("status.json"))
sys.exit(0 if len(s["tasks"]) == 500 and all(t["state"] == "COMPLETED" for t in s["tasks"]) else 1)'
}
wait_until 900 "all 500 tasks completed" all_in_and_done

# Never more queued than the limit allows (sbatch would have refused), and every task ran once.
mapfile -t JOBS < <(sqlite3 "$SWEEP_STATE_DIR/sweep.db" "select job_id from arrays where sweep_id = $SWEEP_ID")
log "${#JOBS[@]} array jobs"
[ ${#JOBS[@]} -gt 5 ] || fail "expected the sweep in many chunks, got ${#JOBS[*]}"
completed_once 500 || fail "not every task completed exactly once"
grep -q 'backing off' "$(sweep_dir)"/followup-*.log && log "some follow-ups backed off"
"$SWEEP" report >report.out || fail "report refused: $(cat report.out)"
grep -q '(n = 5)' report.out || fail "report does not average 5 seeds"
log "ok"
