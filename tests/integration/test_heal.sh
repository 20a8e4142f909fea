#!/bin/bash
# A sweep that finishes itself: one task runs out of memory (OverMemoryKill),
# and with `retries: 1` a follow-up job that Slurm starts when the array job
# ends resubmits it with twice the memory; nobody calls resubmit. When all is
# final, the last follow-up writes the report and runs the notify command
# exactly once, and carries Slurm's end mail (the first follow-up does not).
# `sweep cancel` of a sweep with a pending follow-up cancels the follow-up too.
. "$(dirname "$0")/lib.sh"
cluster_up
cp "$DATA/mem task.py" .
submit "$DATA/sweeps/heal.yaml"
grep -q "^exec '$SWEEP' __followup --state-dir" "$(sweep_dir)/followup.sbatch" ||
	fail "the follow-up script does not run this sweep binary by its absolute path"

final() { grep -q 'follow-up 2 (job [0-9]*) done: final' <("$SWEEP" status 2>/dev/null); }
wait_until 300 "the last follow-up to finish the sweep" final
"$SWEEP" status --tasks >status.out
cat status.out >&2
grep -q '^COMPLETED 2$' status.out || fail "the sweep did not heal"
grep -q 'follow-up 1 (job [0-9]*) done: retry round 1: 1 task resubmitted as attempt 2' status.out ||
	fail "status does not show the retry round"
grep -q 'retries 1 (1 used)' status.out || fail "status does not count the retry used"
python3 - <<'PY' || fail "task 1 was not run again as attempt 2 with more memory"
import json, subprocess, os
s = json.loads(subprocess.check_output([os.environ["SWEEP"], "status", "--json"]))
t = {x["index"]: x for x in s["tasks"]}
assert t[0]["attempts"] == 1 and t[1]["attempts"] == 2, t
assert len(s["sweep"]["array_job_ids"]) == 2, s["sweep"]
PY

# The notification: once, with the sweep's id, name and the report it wrote.
[ "$(wc -l <notified.txt)" -eq 1 ] || fail "notify ran $(wc -l <notified.txt) times"
read -r id name report <notified.txt
[ "$id" = "$SWEEP_ID" ] && [ "$name" = heal ] || fail "notify saw SWEEP_ID=$id SWEEP_NAME=$name"
grep -q 'all completed' "$report" || fail "the report it wrote is not the complete one: $(cat "$report")"
"$SWEEP" report >report.out || fail "report refuses the healed sweep"

# Slurm's own mail: on the last follow-up only.
jobs=$(sed -n 's/.*follow-up \([12]\) (job \([0-9]*\)).*/\1 \2/p' status.out)
first=$(awk '$1 == 1 {print $2}' <<<"$jobs")
last=$(awk '$1 == 2 {print $2}' <<<"$jobs")
scontrol show job "$last" | grep -q 'MailType=END' || fail "the last follow-up carries no end mail"
scontrol show job "$first" | grep -q 'MailType=END' && fail "the first follow-up mails too"

# Cancel: a pending follow-up is cancelled with the arrays and never acts.
out=$("$SWEEP" submit "$DATA/sweeps/heal.yaml") || fail "second submit failed"
SWEEP_ID=$(sed -n 's/^sweep \([0-9]*\) .*/\1/p' <<<"$out")
fjob=$(sed -n 's/^follow-up: job \([0-9]*\) .*/\1/p' <<<"$out")
grep -q "^follow-up: job $fjob runs '$SWEEP' when the array jobs end: .*visible on the compute nodes" \
	<<<"$out" || fail "submit does not say which binary the follow-up runs: $out"
CLEANUP_JOBS+=("$fjob")
"$SWEEP" cancel "$SWEEP_ID" >cancel.out || fail "cancel failed"
grep -q 'cancelled 1 pending follow-up' cancel.out || fail "cancel does not cancel the follow-up: $(cat cancel.out)"
gone() { [ -z "$(squeue -h -j "$fjob" 2>/dev/null)" ]; }
wait_until 60 "the cancelled follow-up to leave the queue" gone
"$SWEEP" status "$SWEEP_ID" | grep -q 'follow-up 1 (job [0-9]*) cancelled' || fail "status does not show the follow-up cancelled"
[ "$(wc -l <notified.txt)" -eq 1 ] || fail "a cancelled sweep notified"
log "ok"
