#!/bin/bash
# sweep list says where each sweep stands (issue 21): running, cancelled,
# complete, incomplete (n failed), with the verdict report gives (a task
# that ended well but never printed its metric counts as failed), on Slurm
# and with --local; a finished sweep is read from the kept records, with no
# accounting query.
. "$(dirname "$0")/lib.sh"
cluster_up
mkdir "list runs"
cd "list runs"
cp "$DATA/cause_train.py" train.py

trap cancel_sweeps EXIT

write_sweep() { # NAME MODE
	printf '%s\n' "name: $1" "command: /usr/bin/python3 train.py {seed} $2" "seeds: 2" \
		"results:" "  log:" "    accuracy: 'accuracy: ([0-9.]+)'" "slurm:" '  time: "2"' >"$1.yaml"
}
# standing ID: the STATUS column of sweep ID in sweep list.
standing() {
	"$SWEEP" list >list.out 2>list.err || fail "sweep list failed: $(cat list.err)"
	awk -v id="$1" 'NR == 1 { s = index($0, "STATUS"); e = index($0, "TASKS") }
		$1 == id { v = substr($0, s, e - s); sub(/ +$/, "", v); print v }' list.out
}
is() { [ "$(standing "$1")" = "$2" ]; }

write_sweep slow slow
submit slow.yaml
SLOW=$SWEEP_ID
wait_until 60 "sweep $SLOW to show as running" is "$SLOW" "running (0 of 2 ended)"
# Cancelled while they run, the tasks have rows of their own: a task
# cancelled while still pending is final only through the pending record,
# which is kept only after ACCT_CACHE_STATS_SETTLE_S (the list below would
# then ask slurmdbd, rightly). 26.05 started them later than 22.05 here.
running_tasks() { [ "$(squeue -h -r -t R -j "${JOBS[0]}" 2>/dev/null | wc -l)" -eq 2 ]; }
wait_until 60 "both tasks of sweep $SLOW to run" running_tasks

write_sweep good ok
submit good.yaml
GOOD=$SWEEP_ID
write_sweep oneseed oneseed
submit oneseed.yaml
ONESEED=$SWEEP_ID
write_sweep quiet quiet
submit quiet.yaml
QUIET=$SWEEP_ID
write_sweep lgood ok
submit_local lgood.yaml
LGOOD=$SWEEP_ID
write_sweep lquiet quiet
submit_local lquiet.yaml
LQUIET=$SWEEP_ID

"$SWEEP" cancel "$SLOW" >/dev/null || fail "cancel failed"
wait_until 120 "the cancelled sweep to show so" is "$SLOW" "cancelled (0 of 2 completed)"
wait_until 300 "sweep $GOOD to be complete" is "$GOOD" complete
wait_until 120 "sweep $ONESEED to be incomplete" is "$ONESEED" "incomplete (1 failed)"
# Both tasks COMPLETED 0:0 in Slurm, yet neither printed its metric.
wait_until 120 "sweep $QUIET to be incomplete" is "$QUIET" "incomplete (2 completed, no metric)"
wait_until 120 "local sweep $LGOOD to be complete" is "$LGOOD" complete
wait_until 120 "local sweep $LQUIET to be incomplete" is "$LQUIET" "incomplete (2 completed, no metric)"
cat list.out >&2

# Finished sweeps come from the kept records: no query at all now.
SWEEP_DEBUG_QUERIES=1 "$SWEEP" list >list.out 2>list.err || fail "sweep list failed"
grep -q 'accounting queries: [1-9]' list.err && fail "list asked slurmdbd about finished sweeps: $(cat list.err)"
grep -q 'accounting queries: 0' list.err || fail "no query count to check: $(cat list.err)"
log "ok"
