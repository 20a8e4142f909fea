#!/bin/bash
# Packed tasks (pack: 4): 12 tasks in 3 array tasks, each sweep task run
# and recorded by `sweep __packrun` (no job step each): its elapsed time,
# MaxRSS, CPU time and exit status read back as if Slurm had recorded them.
# One task fails: `report` refuses and names it; `resubmit` re-runs only that
# task (one array task), and then `report` averages all 12, from the state
# store's kept records and from a fresh read alike.
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

# No job step per task: one record file per array task, written by sweep.
steps=$(sacct -n -P -j "${JOBS[0]}" -o JobName | grep -c '^sweep-' || true)
[ "$steps" -eq 0 ] || fail "expected no job step named sweep-N, found $steps"
records=("$(sweep_dir)"/packs/*)
[ ${#records[@]} -eq 3 ] || fail "expected 3 record files in packs/: ${records[*]}"
[ "$(cat "${records[@]}" | grep -c '^E ')" -eq 12 ] || fail "expected 12 end lines: $(cat "${records[@]}")"
[ "$(stat -c %a "$(sweep_dir)/packs")" = 700 ] || fail "packs/ is not private"
grep -rq 'recorded in' logs || fail "the array task's log does not say where its tasks are recorded"

# Every task's figures, as a job step's record gave them: elapsed, MaxRSS, CPU time.
rm -f records.tsv
SWEEP_DEBUG_RECORDS=$PWD/records.tsv "$SWEEP" status --tasks --json --refresh >status.json
python3 - <<'PY'
import json
s = json.load(open("status.json"))
tasks = {t["index"]: t for t in s["tasks"]}
assert len(tasks) == 12, tasks
assert tasks[4]["state"] == "FAILED" and tasks[4]["exit_code"] == 4, tasks[4]
for i, t in tasks.items():
    if i != 4:
        assert t["state"] == "COMPLETED", t
    # python's own peak (tens of MB), not the whole array task's
    assert t["maxrss_bytes"] and 1 << 20 < t["maxrss_bytes"] < 100 << 20, t
    assert t["elapsed_s"] is not None and t["elapsed_s"] < 30, t
    assert t["array_task_id"] == i // 4, t
PY
# Per task records (field 25: the sweep index) with CPU time (field 19).
awk -F'\t' '$25 != 4294967295 { if (!seen[$25]++) n++; if ($19 == "18446744073709551615" || $19 == 0) bad++ }
	END { exit !(n == 12 && !bad) }' records.tsv || fail "expected 12 task records with CPU time: $(cat records.tsv)"

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
ran=$(grep '^E ' "$(sweep_dir)/packs/$((RJOBS[0]))" | cut -d' ' -f2,6,7)
[ "$ran" = "4 0 0" ] || fail "the resubmission should run task 4 only: $ran"

"$SWEEP" report >report.out || fail "report refused the healed sweep: $(cat report.out)"
cat report.out >&2
grep -q '(n = 3)\|n=3\| 3 ' report.out || fail "report does not average 3 seeds"
# The same from a fresh read as from the kept records.
"$SWEEP" report --refresh >report2.out || fail "report --refresh refused: $(cat report2.out)"
diff report.out report2.out >&2 || fail "report reads otherwise from slurmdbd and packs/ than from the store"
log "ok"
