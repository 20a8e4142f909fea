#!/bin/bash
# The Slurm side of test_local_checkpoint_keep.sh: a program that saves a
# checkpoint every 0.05 s, with no signal handler, runs into its time limit
# (slurmstepd's TERM, then KILL after KillWait). The task script prunes
# while it runs and once the TERM has ended it: the folder holds keep files
# (+1 being written), not the hundreds it wrote.
. "$(dirname "$0")/lib.sh"
cluster_up

mkdir 'my proj'
cd 'my proj'
cat >train.py <<'PY'
import itertools, os, time
d = os.environ["SWEEP_CHECKPOINT_DIR"]
os.makedirs(d, exist_ok=True)
for i in itertools.count():
    with open(os.path.join(d, "ckpt_%05d.pt" % i), "wb") as f:
        f.write(b"x" * 4096)
    print("step", i, "loss", 1.0 / (i + 1), flush=True)
    time.sleep(0.05)
PY
cat >keep.yaml <<'YAML'
name: keep
command: /usr/bin/python3 train.py --lr {lr}
seeds: 1
grid:
  lr: [0.1]
checkpoint: {keep: 2, pattern: '*.pt', dir: 'ck dir/{lr}'}
slurm:
  time: "1"
  mem: 200M
YAML
submit keep.yaml
wait_sweep 1 400
sacct_tasks | grep -q TIMEOUT || fail "the task did not end at its time limit: $(sacct_tasks)"
n=$(find 'ck dir/0.1' -name '*.pt' | wc -l)
log "after the time limit: $n files"
[ "$n" -ge 2 ] && [ "$n" -le 3 ] || fail "the folder holds $n checkpoints, not 2 (+1)"
log "ok"
