#!/bin/bash
# The local backend, no Slurm needed: sweeps run on this machine by a
# runner in the background. The throttle holds; a task over its time limit
# gets the warning signal, dies of it and is recorded TIMEOUT; one over
# its memory request is killed and recorded OUT_OF_MEMORY; peak memory is
# recorded; cancel stops its own tasks only; status and report read a local
# sweep as they read a Slurm one; with a stand-in nvidia-smi (a 4-GPU box,
# one GPU busy), two tasks get different GPUs, never the busy one.
. "$(dirname "$0")/lib.sh"


cleanup_local() {
	cancel_sweeps
	[ -z "${UNRELATED:-}" ] || kill "$UNRELATED" 2>/dev/null || true
}
trap cleanup_local EXIT

# status_field ID PYTHON-EXPRESSION: evaluates it with s = sweep status --json.
status_field() {
	"$SWEEP" status "$1" --json | python3 -c "import json, sys; s = json.load(sys.stdin); print($2)"
}
finished() { [ "$(status_field "$1" 's["done"]')" = "$2" ]; }
state_of() { status_field "$1" "s['tasks'][$2]['state']"; }
sweep_dir_of() { printf '%s/sweeps/%s' "$SWEEP_STATE_DIR" "$1"; }
task_dir() { task_dir_in "$2" "$(sweep_dir_of "$1")"; }

export SWEEP_GPU_LOCK_DIR=$WORK/locks
mkdir -p "$SWEEP_GPU_LOCK_DIR"
cp "$DATA/fault_task.py" .

# --- Faults: the same sweep file test_faults.sh submits to Slurm --------------
# It runs about a minute (its time limit), so it goes first and the rest
# runs meanwhile.
submit_local "$DATA/sweeps/faults.yaml"
FAULTS=$SWEEP_ID

# --- Throttle ------------------------------------------------------------------
submit_local "$DATA/sweeps/local_throttle.yaml"
THROTTLE=$SWEEP_ID
grep -q '^#SBATCH --array=0-7%3$' "$(sweep_dir_of "$THROTTLE")/local-throttle.sbatch" ||
	fail "no %3 throttle in the script"
max_seen=0
deadline=$((SECONDS + 120))
# Cheap checks only: under load a slow sampler could miss every task.
results_of() { find "$SWEEP_STATE_DIR/sweeps/$1/tasks" -name result.json 2>/dev/null | grep -c . || true; }
until [ "$(results_of "$THROTTLE")" -eq 8 ]; do
	running=$(find "$SWEEP_STATE_DIR/sweeps/$THROTTLE/tasks" -name running 2>/dev/null | grep -c . || true)
	((running > max_seen)) && max_seen=$running
	((running <= 3)) || fail "$running tasks running at once, throttle is 3"
	((SECONDS < deadline)) || fail "the throttled sweep did not finish in time"
	sleep 0.3
done
log "at most $max_seen tasks ran at once (sampled)"
((max_seen >= 2)) || fail "never saw more than $max_seen task running: the sample proves nothing"
python3 - "$SWEEP_STATE_DIR/sweeps/$THROTTLE/tasks" <<'PY' >&2 || fail "the recorded times break the throttle"
import glob, json, os, sys
root = sys.argv[1]
runs = [json.load(open(p)) for p in glob.glob(os.path.join(root, "*", "*", "result.json"))]
starts = sorted(r["start"] for r in runs)
ends = sorted(r["end"] for r in runs)
ev = sorted([(s, 1) for s in starts] + [(e, -1) for e in ends])
cur = best = 0
for _, d in ev:
    cur += d
    best = max(best, cur)
span = ends[-1] - starts[0]
# With 3 slots, start i waits for end i - 3: the gap is the runner's overhead per task.
gaps = sorted(starts[i] - ends[i - 3] for i in range(3, len(starts)))
print(f"at most {best} tasks overlapped (recorded times); 8 tasks of 2 s, 3 at once, took "
      f"{span:.2f} s (ideal 6 s); start after a slot freed: median {gaps[len(gaps) // 2]:.3f} s, "
      f"max {gaps[-1]:.3f} s")
sys.exit(0 if best <= 3 else 1)
PY
for t in 0 7; do
	[ "$(cat "$(task_dir "$THROTTLE" $t)/gpus")" = "" ] ||
		fail "a task that asked no GPU sees CUDA_VISIBLE_DEVICES='$(cat "$(task_dir "$THROTTLE" $t)/gpus")'"
done
"$SWEEP" report "$THROTTLE" >report.out || fail "report on the complete local sweep failed"
cat report.out >&2
grep -q "^sweep 'local-throttle' (id $THROTTLE): 1 setting x 8 seeds = 8 tasks, all completed$" report.out ||
	fail "report's header is not the Slurm form"
grep -q '^mean ± sample std over the seeds that passed (n)' report.out || fail "no statistics legend"
grep -q '3.5 ± 2.4 (n = 8)' report.out || fail "no mean ± std (n) of the scores"
# The kept sweep file is parsed once for the whole report (loaded_sweepfile).
SWEEP_DEBUG_QUERIES=1 "$SWEEP" report "$THROTTLE" >/dev/null 2>report.err ||
	fail "report with SWEEP_DEBUG_QUERIES failed"
grep -qx 'sweep: kept sweep file parses: 1' report.err ||
	fail "report did not parse the kept sweep file exactly once: $(cat report.err)"
"$SWEEP" status "$THROTTLE" --tasks >status.out
grep -q "local-throttle_[0-9]*_7.out" status.out || fail "status shows no log path: $(cat status.out)"
log_file=$(status_field "$THROTTLE" "s['tasks'][7]['log']")
grep -q '^sweep: task 7 ' "$log_file" || fail "the task's log '$log_file' is not where status says"

# --- Peak memory ----------------------------------------------------------------
submit_local "$DATA/sweeps/local_memory.yaml"
MEMORY=$SWEEP_ID
wait_until 60 "the memory sweep to finish" finished "$MEMORY" 1
[ "$(state_of "$MEMORY" 0)" = COMPLETED ] || fail "the memory task: $(state_of "$MEMORY" 0)"
maxrss=$(status_field "$MEMORY" "s['tasks'][0]['maxrss_bytes']")
log "a task holding 120 MB: maxrss $maxrss bytes"
((maxrss >= 100 * 1024 * 1024)) || fail "maxrss $maxrss is under 100 MB"

# --- Cancel stops its own tasks only --------------------------------------------
sleep 600 &
UNRELATED=$!
submit_local "$DATA/sweeps/local_cancel.yaml"
CANCEL_A=$SWEEP_ID
submit_local "$DATA/sweeps/local_cancel.yaml"
CANCEL_B=$SWEEP_ID
pids_of() { cat "$(task_dir "$1" 0)/pids" "$(task_dir "$1" 1)/pids" 2>/dev/null; }
two_pids() { [ "$(pids_of "$1" | wc -w)" -eq 4 ]; }
wait_until 30 "sweep $CANCEL_A's first tasks to start" two_pids "$CANCEL_A"
wait_until 30 "sweep $CANCEL_B's first tasks to start" two_pids "$CANCEL_B"
runners_before=$(pgrep -f "__local-runner $SWEEP_STATE_DIR " | grep -c . || true)
# Detached: each runner leads a session of its own, with no terminal.
for pid in $(pgrep -f "__local-runner $SWEEP_STATE_DIR "); do
	[ "$(ps -o sid= -p "$pid" | tr -d ' ')" = "$pid" ] || fail "runner $pid is not a session leader"
	[ "$(ps -o tty= -p "$pid" | tr -d ' ')" = "?" ] || fail "runner $pid has a terminal"
done
"$SWEEP" cancel "$CANCEL_A" || fail "cancel failed"
for pid in $(pids_of "$CANCEL_A"); do
	! kill -0 "$pid" 2>/dev/null || fail "process $pid of the cancelled sweep still runs"
done
for pid in $(pids_of "$CANCEL_B"); do
	kill -0 "$pid" 2>/dev/null || fail "process $pid of the other sweep was stopped"
done
kill -0 "$UNRELATED" || fail "an unrelated process was stopped"
states=$(status_field "$CANCEL_A" "' '.join(t['state'] for t in s['tasks'])")
[ "$states" = "CANCELLED CANCELLED CANCELLED CANCELLED" ] || fail "cancelled sweep: $states"
states=$(status_field "$CANCEL_B" "' '.join(t['state'] for t in s['tasks'])")
[ "$states" = "RUNNING RUNNING PENDING PENDING" ] || fail "the other sweep: $states"
runner_left=$(pgrep -f "__local-runner $SWEEP_STATE_DIR " | grep -c . || true)
log "cancel: sweep $CANCEL_A stopped, sweep $CANCEL_B runs on (runners: $runners_before before, $runner_left after)"
((runner_left == runners_before - 1)) || fail "cancel did not stop exactly the cancelled sweep's runner"
"$SWEEP" cancel "$CANCEL_B" >/dev/null || fail "cancel of the second sweep failed"
kill "$UNRELATED"
UNRELATED=

# --- GPUs: a stand-in nvidia-smi on a 4-GPU box, GPU 1 busy -----------------------
set +e
PATH=/usr/bin:/bin "$SWEEP" gpus >nogpu.out 2>&1
rc=$?
set -e
[ $rc -eq 1 ] && grep -q 'nvidia-smi is not on PATH' nogpu.out || fail "no nvidia-smi: exit $rc, $(cat nogpu.out)"
export PATH=$DATA/nvidia-smi:$PATH FAKE_NVIDIA_SMI=empty
set +e
"$SWEEP" gpus >nogpu.out 2>&1
rc=$?
"$SWEEP" submit --local --gpus-per-task 1 "$DATA/sweeps/local_gpus.yaml" >>nogpu.out 2>&1
rc2=$?
set -e
cat nogpu.out >&2
[ $rc -eq 1 ] && grep -q 'no GPU on this machine' nogpu.out || fail "no GPU: exit $rc"
[ $rc2 -eq 1 ] && grep -q 'each task asks 1 GPU and this machine has 0' nogpu.out ||
	fail "submit asking a GPU of a machine without one: exit $rc2"

# Who runs on a busy GPU: a process of ours, in a recorded box of our own.
sleep 300 &
holder=$!
cp "$DATA/nvidia-smi/a100x4-one-busy.gpus.csv" box.gpus.csv
echo "GPU-8a1e6b0c-3d5f-4e92-a7b1-6c2d9e0f4b58, $holder, 31250" >box.apps.csv
FAKE_NVIDIA_SMI=$WORK/box "$SWEEP" gpus >gpus.out
kill "$holder"
cat gpus.out >&2
grep -q "^1 .*busy: pid $holder sleep ($(id -un), 31G)" gpus.out || fail "the busy GPU's process and owner are not shown"
[ "$(tail -1 gpus.out)" = "CUDA_VISIBLE_DEVICES=0,2,3" ] || fail "last line: $(tail -1 gpus.out)"

export FAKE_NVIDIA_SMI=a100x4-one-busy
"$SWEEP" gpus --json | python3 -c '
import json, sys
g = json.load(sys.stdin)
assert g["cuda_visible_devices"] == "0,2,3", g
assert [x["free"] for x in g["gpus"]] == [True, False, True, True], g
assert g["gpus"][1]["why_not"] == "busy" and g["gpus"][1]["processes"][0]["pid"] == 2871446, g
' || fail "sweep gpus --json"
submit_local --gpus-per-task 1 "$DATA/sweeps/local_gpus.yaml"
GPUS=$SWEEP_ID
grep -q '^#SBATCH --gpus-per-task=1$' "$(sweep_dir_of "$GPUS")/local-gpus.sbatch" ||
	fail "the script does not carry --gpus-per-task=1"
wait_until 60 "the GPU sweep to finish" finished "$GPUS" 2
g0=$(cat "$(task_dir "$GPUS" 0)/gpus")
g1=$(cat "$(task_dir "$GPUS" 1)/gpus")
log "two tasks at once on the fake box: CUDA_VISIBLE_DEVICES=$g0 and $g1"
[ "$g0" != "$g1" ] || fail "both tasks got GPU $g0"
for g in "$g0" "$g1"; do
	case "$g" in 0 | 2 | 3) ;; *) fail "a task got GPU '$g' (free: 0, 2, 3)" ;; esac
done
python3 - "$(task_dir "$GPUS" 0)/result.json" "$(task_dir "$GPUS" 1)/result.json" <<'PY' || fail "the two GPU tasks did not run at once"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
sys.exit(0 if a["start"] < b["end"] and b["start"] < a["end"] else 1)
PY
unset FAKE_NVIDIA_SMI

# --- The faults sweep, by now at its time limit ----------------------------------
wait_until 150 "the faults sweep to finish" finished "$FAULTS" 4
"$SWEEP" status "$FAULTS" --tasks >&2
[ "$(state_of "$FAULTS" 0)" = COMPLETED ] || fail "task 0: $(state_of "$FAULTS" 0)"
[ "$(status_field "$FAULTS" "s['tasks'][1]['state'], s['tasks'][1]['exit_code']")" = "FAILED 3" ] ||
	fail "task 1 should have failed with exit code 3"
[ "$(state_of "$FAULTS" 2)" = OUT_OF_MEMORY ] || fail "task 2 should have been killed for memory: $(state_of "$FAULTS" 2)"
[ "$(state_of "$FAULTS" 3)" = TIMEOUT ] || fail "task 3: $(state_of "$FAULTS" 3)"
grep -q "^[0-9]* USR1\$" "$(task_dir "$FAULTS" 3)/.signalled" || fail "task 3: no note of the signal"
job=$(status_field "$FAULTS" "s['tasks'][3]['array_job_id']")
grep -q 'forwarding it to the command' "logs/faults_${job}_3.err" || fail "no trap message in the log"
set +e
"$SWEEP" report "$FAULTS" >report.out 2>report.err
rc=$?
set -e
cat report.out report.err >&2
[ $rc -eq 3 ] || fail "report exited $rc, expected 3 (incomplete)"
grep -q 'exit code 3' report.out || fail "report does not name the failed task's exit code"
grep -q 'out of memory' report.out || fail "report does not name the out-of-memory task"
grep -q 'time limit (ended by the warning signal)' report.out ||
	fail "report does not name the task ended by the warning signal"

# --- Runners end with their sweeps, cleanly ------------------------------------------
no_runner() { ! pgrep -f "__local-runner $SWEEP_STATE_DIR " >/dev/null; }
wait_until 30 "every runner to exit" no_runner
if grep -l -E 'Sanitizer|runtime error' "$SWEEP_STATE_DIR"/sweeps/*/runner-*.log; then
	fail "a runner reported a sanitizer error"
fi
log "ok"
