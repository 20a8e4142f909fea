#!/bin/bash
# Programs as users write them (tests/data/real_train.py: no signal handler,
# no $SWEEP_RESULT, metrics printed and written to its own CSV / JSON Lines
# files, in a folder with spaces), three sweeps at once:
#  - no signal key, a setting that outlives its 1-minute limit: Slurm's TERM,
#    TIMEOUT; report names the time limit, rightsize recommends more time,
#    resubmit gives it, and the sweep completes with metrics from the log and
#    the CSV file;
#  - the same with an explicit signal the program has no handler for: it dies
#    of it (Slurm: FAILED 138), which sweep reads as the time limit, and the
#    same loop completes it (metrics from the log and the JSON Lines file);
#  - one task that does not print its metric's line: report refuses.
. "$(dirname "$0")/lib.sh"
cluster_up
mkdir -p "my programs"
cp "$DATA/real_train.py" "my programs/train.py"

submit "$DATA/sweeps/real_nosignal.yaml"
A=$SWEEP_ID A_JOBS=("${JOBS[@]}")
grep -q -- '--signal' "$(sweep_dir)/real-nosignal.sbatch" && fail "a sweep without a signal key asks for a signal"
submit "$DATA/sweeps/real_signal.yaml"
B=$SWEEP_ID B_JOBS=("${JOBS[@]}")
grep -q -- '^#SBATCH --signal=B:USR1@10$' "$(sweep_dir)/real-signal.sbatch" || fail "no --signal for the explicit signal"
submit "$DATA/sweeps/real_nomatch.yaml"
C=$SWEEP_ID
JOBS=("${A_JOBS[@]}" "${B_JOBS[@]}" "${JOBS[@]}")
wait_sweep 10 300

# report: 0 ok / 3 incomplete; never 1.
report() {
	local rc=0
	"$SWEEP" report "$@" >report.out 2>report.err || rc=$?
	cat report.out report.err >&2
	return $rc
}

# --- a task that does not print its metric -----------------------------------
rc=0; report "$C" || rc=$?
((rc == 3)) || fail "report of the sweep whose pattern did not match exited $rc, expected 3"
grep -q "pattern for 'accuracy' not found in .*/real-nomatch_[0-9]*_1.out" report.out ||
	fail "report does not say which pattern was not found where"
grep -q '±' report.out && fail "report printed statistics though a pattern did not match"

# --- the time limit, with and without the signal -----------------------------
rc=0; report "$A" || rc=$?
((rc == 3)) || fail "report of sweep A exited $rc"
[ "$(grep -c '  time limit ' report.out)" = 2 ] || fail "report does not name the time limit of A's two slow tasks"
sacct -n -P -X -j "${B_JOBS[0]}" -o JobID,State,ExitCode >b.sacct
cat b.sacct >&2
grep -q -E '_0\|FAILED\|(10|138):0$' b.sacct || fail "B's slow task did not die of the signal as Slurm sees it"
rc=0; report "$B" || rc=$?
((rc == 3)) || fail "report of sweep B exited $rc"
[ "$(grep -c -E '^[0-9]+ .* TIMEOUT .*time limit \(ended by the warning signal\)' report.out)" = 2 ] ||
	fail "report does not say B's slow tasks were ended by the warning signal"
grep -q -E 'exit code (10|138)' report.out && fail "report calls the warning signal an exit code"

for s in "$A" "$B"; do
	"$SWEEP" rightsize "$s" --json >rightsize.json || [ $? = 3 ] || fail "rightsize $s failed"
	python3 - <<'PY' || fail "rightsize of sweep $s"
import json
r = json.load(open("rightsize.json"))
rec = r["recommendation"]
assert rec["time_min"] and rec["time_min"] > 1, rec
assert rec["timeout"] == 2, rec
assert "time limit" in (rec["lower_bounds"] or ""), rec
print("recommended", rec["time"], "after", rec["lower_bounds"])
PY
done

# --- resubmit gives more time; both sweeps complete ----------------------------
# B's signal (@10) may come up to a minute early: 3 minutes keep it after the work.
out=$("$SWEEP" resubmit "$A") || fail "resubmit A exited $?"
printf '%s\n' "$out" >&2
mapfile -t JOBS < <(printf '%s\n' "$out" | sed -n 's/^array job \([0-9]*\):.*/\1/p')
out=$("$SWEEP" resubmit "$B" --time-factor 3) || fail "resubmit B exited $?"
printf '%s\n' "$out" >&2
mapfile -t -O "${#JOBS[@]}" JOBS < <(printf '%s\n' "$out" | sed -n 's/^array job \([0-9]*\):.*/\1/p')
((${#JOBS[@]} == 2)) || fail "expected one array job per resubmission, got: ${JOBS[*]}"
CLEANUP_JOBS+=("${JOBS[@]}")
# Twice what they had (A's tasks ran a little past their minute, KillWait):
# no row of either array job (pending tasks share one) asks a minute or less.
recorded() {
	local j
	sacct -n -P -X -j "$(jobs_csv)" -o JobID,Timelimit >limits.txt 2>/dev/null || return 1
	for j in "${JOBS[@]}"; do grep -q "^${j}_" limits.txt || return 1; done
}
wait_until 60 "accounting to record the resubmitted array jobs" recorded
cat limits.txt >&2
grep -q -E '\|00:0[0-1]:[0-9]{2}$' limits.txt && fail "the tasks were not given more time"
wait_sweep 4 300

for s in "$A" "$B"; do
	report "$s" || fail "report of sweep $s exited $? after the resubmission"
	for m in accuracy acc loss epoch; do
		grep -q "  $m  " report.out || grep -q " $m " report.out ||
			fail "sweep $s: no metric $m in the report"
	done
	grep -E -q '^0\.1 .*±' report.out || fail "sweep $s: no statistics for lr 0.1"
done
"$SWEEP" report "$A" --json >a.json
python3 - <<'PY' || fail "report --json"
import json
r = json.load(open("a.json"))
print(json.dumps(r)[:400])
PY
log "ok"
