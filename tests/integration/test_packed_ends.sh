#!/bin/bash
# Packed tasks recorded by sweep itself, ending every way (pack: 2, results
# from a file whose name holds a space, in a folder whose name holds one):
# a crash (SIGSEGV) is FAILED with its exit status; the array task's time
# limit names the task that was running (TIMEOUT), and so does its memory
# limit (OverMemoryKill kills the whole array task: out of memory), while
# the task after it never started. status --tasks, rightsize and report read
# them as Slurm's own records; resubmit runs exactly the four again, and
# report then accepts the sweep.
. "$(dirname "$0")/lib.sh"
cluster_up
mkdir -p "runs here" && cd "runs here"
cp "$DATA/packed_end.py" "$DATA/sweeps/packed_ends.yaml" .
submit packed_ends.yaml
[ ${#JOBS[@]} -eq 1 ] || fail "expected one array job, got ${JOBS[*]}"
grep -q -- '--array=0-3' "$(sweep_dir)/packed_ends.sbatch" || fail "the script does not ask 4 array tasks"
# Array task 1 runs until its 2-minute limit.
wait_sweep 4 400

states() {
	"$SWEEP" status --tasks --json >status.json 2>/dev/null || return 1
	python3 -c '
import json, sys
s = json.load(open("status.json"))
sys.exit(0 if all(t["state"] not in ("PENDING", "RUNNING") for t in s["tasks"]) else 1)'
}
wait_until 60 "every task's record" states
python3 - <<'PY' || fail "status --tasks --json: $(cat status.json)"
import json
s = json.load(open("status.json"))
t = {x["index"]: x for x in s["tasks"]}
for i in (0, 2, 6, 7):
    assert t[i]["state"] == "COMPLETED", t[i]
    assert t[i]["maxrss_bytes"] > 40 << 20, t[i]  # the task's own peak
    assert 1 <= t[i]["elapsed_s"] <= 10, t[i]
# SIGSEGV: the task's script exits 128 + 11, as a job step's would.
assert t[1]["state"] == "FAILED" and t[1]["exit_code"] == 139, t[1]
# The array task's time limit names the task that was running...
assert t[3]["state"] == "TIMEOUT", t[3]
assert t[3]["elapsed_s"] >= 60, t[3]
# ...and so does its memory limit (OverMemoryKill: FAILED 0:9 over --mem).
assert t[4]["state"] in ("OUT_OF_MEMORY", "FAILED"), t[4]
assert t[4]["maxrss_bytes"] and t[4]["maxrss_bytes"] > 200 << 20, t[4]
# The task after it never started.
assert t[5]["state"] not in ("COMPLETED", "RUNNING", "PENDING"), t[5]
PY
"$SWEEP" status --tasks >status.txt || true
cat status.txt >&2
grep -q 'out of memory\|OUT_OF_MEMORY' status.txt || fail "status does not say task 4 ran out of memory"

"$SWEEP" rightsize --tasks >rightsize.out || fail "rightsize exited $?"
cat rightsize.out >&2
grep -q 'hit the time limit after' rightsize.out || fail "rightsize does not name the time limit"
grep -q 'ran out of memory with' rightsize.out || fail "rightsize does not name the memory limit"
grep -q '^  #SBATCH --mem=' rightsize.out || fail "no #SBATCH --mem line"

set +e
"$SWEEP" report >report.out 2>&1
rc=$?
set -e
cat report.out >&2
[ $rc -eq 3 ] || fail "report exited $rc on a sweep with failed tasks, expected 3"

# Heal: every mode is ok now. resubmit runs the four that did not complete.
touch healed
out=$("$SWEEP" resubmit) || fail "resubmit failed"
printf '%s\n' "$out" >&2
mapfile -t JOBS < <(sed -n 's/^array job \([0-9]*\):.*/\1/p' <<<"$out")
[ ${#JOBS[@]} -ge 1 ] || fail "expected an array job from resubmit: $out"
CLEANUP_JOBS+=("${JOBS[@]}")
wait_sweep 2 300
ran=$(for j in "${JOBS[@]}"; do
	sacct -n -P -X -j "$j" -o JobIDRaw | while read -r id; do
		[ -f "$(sweep_dir)/packs/$id" ] && grep '^E ' "$(sweep_dir)/packs/$id"
	done
done | cut -d' ' -f2 | sort -n | paste -sd' ')
[ "$ran" = "1 3 4 5" ] || fail "the resubmission should run tasks 1 3 4 5, ran: $ran"
wait_until 60 "report to accept the sweep" "$SWEEP" report >report.out 2>&1 ||
	fail "report refused the healed sweep: $(cat report.out)"
"$SWEEP" report >report.out || fail "report refused the healed sweep: $(cat report.out)"
cat report.out >&2
grep -q 'loss' report.out || fail "report shows no loss"
log "ok"
