#!/bin/bash
# A task preempted by a higher-priority job (partition `high`, PreemptMode
# REQUEUE, the user's signal sent at preemption, GraceTime on `debug`) gets
# the warning signal, saves, comes back and finishes with the same result as
# an uninterrupted run. Runs alone: the preemptor takes the whole node.
. "$(dirname "$0")/lib.sh"
cluster_up
cp "$SWEEP_SOURCE_DIR/examples/checkpoint_train.py" .
submit "$DATA/sweeps/preemptible.yaml"
log="logs/preemptible_${JOBS[0]}_0.out"

running_a_while() { [ -f "$log" ] && grep -q 'starting from scratch' "$log" && sleep 8; }
wait_until 120 "the task to start" running_a_while

preemptor=$(sbatch --parsable -p high --exclusive --mem=1G -t 2 -o /dev/null --wrap 'sleep 15')
CLEANUP_JOBS+=("$preemptor")
log "submitted job $preemptor in partition high to preempt the sweep's task"
wait_until 120 "the task to be preempted" grep -q 'saved at step' "$log"

wait_until 900 "the task to come back and finish" test -s "$(task_dir_in 0)/result.json"
# 26.05 (tests/cluster/RELEASES.md): the task's own requeue at the signal
# leaves slurmctld's grace-preemption flag set, so the run that comes back
# and finishes is recorded PREEMPTED and requeued once more; the third run
# starts after Slurm's requeue hold (about 2 minutes), resumes from the last
# checkpoint and completes. 22.05 and 23.11 end after the second run.
wait_sweep 1 420
grep -q 'resuming from ckpt-' "$log" || fail "the task did not resume from its checkpoint"

mkdir -p ref
SWEEP_TASK_DIR=$PWD/ref SWEEP_RESULT=$PWD/ref/result.json \
	python3 checkpoint_train.py --steps 40 --step-seconds 0 --keep 2 --seed 5 >/dev/null
cmp <(python3 -m json.tool --sort-keys "$(task_dir_in 0)/result.json") \
	<(python3 -m json.tool --sort-keys ref/result.json) || fail "result differs from an uninterrupted run"

states=$(sacct -n -X -D -P -j "${JOBS[0]}_0" -o State | paste -sd' ')
log "accounting for task 0: $states"
case "$states" in *PREEMPTED* | *REQUEUED*) ;; *) fail "no preemption in accounting: $states" ;; esac
"$SWEEP" status --tasks --json >status.json
python3 -c '
import json
t = json.load(open("status.json"))["tasks"][0]
assert t["state"] == "COMPLETED" and t["restarts"] >= 1, t
print("task 0 completed after", t["restarts"], "restart(s)")'
log "ok"
