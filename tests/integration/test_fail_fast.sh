#!/bin/bash
# 40 tasks that all exit 1, at most 4 at once, fail_fast: 3: the third failure
# cancels the rest from inside the task's script; only a handful ran. status
# says so with the first failures' logs. The follow-up retries nothing (a
# non-zero exit is not healed by resources), is the last one, turns Slurm's
# end mail on for itself and runs the notify command once.
. "$(dirname "$0")/lib.sh"
cluster_up
submit "$DATA/sweeps/crash.yaml"
final() { grep -q 'follow-up 1 (job [0-9]*) done: final' <("$SWEEP" status 2>/dev/null); }
wait_until 300 "the follow-up to finish the stopped sweep" final
"$SWEEP" status >status.out
cat status.out >&2
grep -q '^stopped by fail_fast after 3 failures; the first:$' status.out || fail "status does not say fail_fast stopped it"
[ "$(grep -c "^  task [0-9]*: $WORK/logs/crash_${JOBS[0]}_[0-9]*.out\$" status.out)" -eq 3 ] ||
	fail "status does not list the first 3 failures' logs"
failed=$(sacct -n -P -X -j "${JOBS[0]}" -s FAILED -o JobID | sort -u | wc -l)
((failed >= 3 && failed <= 10)) || fail "$failed tasks failed: fail_fast did not stop the sweep after a handful"
"$SWEEP" status --json >status.json
python3 - <<'PY' || fail "the rest was not cancelled"
import json
s = json.load(open("status.json"))
c = s["counts"]
assert c.get("CANCELLED", 0) >= 25, c
assert len(s["sweep"]["array_job_ids"]) == 1, "something was retried"
PY
grep -q 'stopped by fail_fast after 3 failures' status.out || fail "the follow-up note does not say why it stopped"
[ "$(wc -l <notified.txt)" -eq 1 ] || fail "notify ran $(wc -l <notified.txt 2>/dev/null) times"
fjob=$(sed -n 's/.*follow-up 1 (job \([0-9]*\)).*/\1/p' status.out)
scontrol show job "$fjob" | grep -q 'MailType=END' || fail "the last follow-up did not turn on its end mail"
log "ok"
