#!/bin/bash
# A task that needs about twice its time limit completes through the warning
# signal, a checkpoint and a requeue of that task alone, with the same final
# result as an uninterrupted run; status shows its restart; a task that
# fails outright is not requeued. (examples/long_training.yaml)
. "$(dirname "$0")/lib.sh"
cluster_up
cp -r "$SWEEP_SOURCE_DIR/examples" .
submit examples/long_training.yaml
grep -q '^#SBATCH --requeue$' "$(sweep_dir)/long-training.sbatch" || fail "no --requeue in the script"

# The requeued task waits a few minutes (Slurm's requeue delay) before its
# second run: bounded, generous wait.
wait_until 900 "the trained task to complete" test -s "$(task_dir_in 0)/result.json"
wait_sweep 2 300

mkdir -p ref
SWEEP_TASK_DIR=$PWD/ref SWEEP_RESULT=$PWD/ref/result.json \
	python3 examples/checkpoint_train.py --steps 50 --step-seconds 0 --keep 3 --seed 0 >/dev/null
python3 - "$(task_dir_in 0)/result.json" ref/result.json <<'PY'
import json, sys
got, want = (json.load(open(p)) for p in sys.argv[1:])
assert got == want, f"interrupted run {got} != uninterrupted {want}"
print("same result as an uninterrupted run:", got)
PY
grep -q 'resuming from ckpt-' "logs/long-training_${JOBS[0]}_0.out" || fail "the second run did not resume"
grep -q 'requeueing task 0' "logs/long-training_${JOBS[0]}_0.out" || fail "no requeue message"

"$SWEEP" status --tasks --json >status.json
python3 - <<'PY'
import json
t = {x["index"]: x for x in json.load(open("status.json"))["tasks"]}
assert t[0]["state"] == "COMPLETED" and t[0]["restarts"] >= 1, t[0]
assert t[1]["state"] == "FAILED" and t[1]["restarts"] == 0, t[1]
print("task 0 completed after", t[0]["restarts"], "restart(s); task 1 failed, not requeued")
PY
[ "$(sacct -n -X -D -j "${JOBS[0]}_1" -o State | grep -c .)" -eq 1 ] || fail "the broken task ran more than once"
log "ok"
