#!/bin/bash
# A sweep that finishes itself on a machine without a scheduler (no Slurm
# needed): the runner of the last array job does the follow-up's work.
# retry_on_exit retries a non-zero exit and a run without its metric, the
# notify command runs once; fail_fast stops the rest from the runner; and
# --extend reuses what a local sweep ran.
. "$(dirname "$0")/lib.sh"

trap cancel_sweeps EXIT
cp "$DATA/flaky task.py" "$DATA/score.py" .

# --- retry_on_exit ------------------------------------------------------------
submit_local "$DATA/sweeps/flaky.yaml"
FLAKY=$SWEEP_ID
final() { "$SWEEP" status "$1" 2>/dev/null | grep -q "follow-up [0-9]* done: final"; }
# status --watch waits for the follow-ups too, not only for the first round's tasks.
timeout 120 "$SWEEP" status --watch=5 "$FLAKY" >watch.out || fail "status --watch failed or timed out"
tail -5 watch.out | grep -q 'follow-up 2 done: final' || fail "status --watch stopped before the last follow-up: $(tail -8 watch.out)"
"$SWEEP" status "$FLAKY" --tasks >flaky.out
cat flaky.out >&2
grep -q 'follow-up 1 done: .*retry round 1: 2 tasks resubmitted as attempt 2' flaky.out ||
	fail "the exit and the missing metric were not both retried"
# The round said which task it re-ran although no resource explained its failure (issue 23).
grep -q 'failed for no resource: RuntimeError: CUDA error: an illegal memory access' flaky.out ||
	fail "the retry round did not name the program's own failure"
grep -q 'follow-up 2 done: final: 3 of 3 tasks completed after 1 retry round' flaky.out ||
	fail "the second follow-up did not end it"
"$SWEEP" report "$FLAKY" >/dev/null || fail "the flaky sweep's report is not complete"
[ "$(wc -l <notified.txt)" -eq 1 ] || fail "notify ran $(wc -l <notified.txt) times"

# --- fail_fast ------------------------------------------------------------------
submit_local "$DATA/sweeps/crash_local.yaml"
CRASH=$SWEEP_ID
wait_until 120 "the crashing sweep to stop" final "$CRASH"
"$SWEEP" status "$CRASH" --json >crash.json
"$SWEEP" status "$CRASH" >crash.out
cat crash.out >&2
grep -q '^stopped by fail_fast after 3 failures; the first:$' crash.out || fail "status does not say fail_fast stopped it"
python3 - <<'PY' || fail "the runner did not stop the rest"
import json
c = json.load(open("crash.json"))["counts"]
assert 3 <= c.get("FAILED", 0) <= 5, c
assert c.get("CANCELLED", 0) >= 7, c
PY
[ "$(wc -l <crash-notified.txt)" -eq 1 ] || fail "the stopped sweep did not notify once"

# A template without the "Fail fast" section would ignore fail_fast: refused.
sed '/^# --- Fail fast/,/^# --- Requeue/{/^# --- Requeue/!d}' "$SWEEP_SOURCE_DIR/templates/array.sbatch" >old.sbatch
grep -q SWEEP_FAIL_FAST old.sbatch && fail "the test template still has the fail_fast section"
{ cat "$DATA/sweeps/crash_local.yaml"; echo "template: $PWD/old.sbatch"; } >old-template.yaml
if "$SWEEP" submit --dry-run old-template.yaml >old.out 2>&1; then fail "fail_fast with an old template was accepted"; fi
grep -q "error: 'fail_fast' needs the template's \"Fail fast\" section, which reads SWEEP_FAIL_FAST; '$PWD/old.sbatch' has none" old.out ||
	fail "the refusal does not say why: $(cat old.out)"

# --- extend ---------------------------------------------------------------------
sed -e 's/^seeds: 2/seeds: 3/' "$DATA/sweeps/grow.yaml" >grow3.yaml
submit_local "$DATA/sweeps/grow.yaml"
FIRST=$SWEEP_ID
done_all() { "$SWEEP" status "$1" 2>/dev/null | grep -q "^COMPLETED $2\$"; }
wait_until 60 "the local sweep to complete" done_all "$FIRST" 4
submit_local --extend "$FIRST" grow3.yaml
wait_until 60 "the extended sweep to complete" done_all "$SWEEP_ID" 6
"$SWEEP" report "$SWEEP_ID" >grow.out || fail "the extended local sweep is not complete"
[ "$(grep -c '(n = 3)' grow.out)" -eq 2 ] || fail "not n = 3 in every row: $(cat grow.out)"
grep -q "^4 tasks reused from sweep $FIRST (indices 0-1,3-4)" grow.out || fail "the report does not say what was reused"
log "ok"
