#!/bin/bash
# checkpoint.keep holds whatever ends the task. A program that saves a
# checkpoint every 0.05 s, with no signal handler, runs into its time limit
# (the local runner's SIGTERM, as Slurm's): the task script prunes while the
# program runs and again once the signal has ended it, so the folder holds
# at most keep files (+1 being written), not the hundreds it wrote.
# The local backend: no Slurm (test_checkpoint_keep.sh is the Slurm variant).
. "$(dirname "$0")/lib.sh"
trap cancel_sweeps EXIT

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
echo 'keep me' >'notes.pt'
cat >keep.yaml <<'YAML'
name: keep
command: /usr/bin/python3 train.py --lr {lr}
seeds: 1
grid:
  lr: [0.1]
checkpoint: {keep: 2, pattern: '*.pt', dir: 'ck dir/{lr}'}
slurm:
  time: "0:08" # Slurm counts in minutes: one minute
  mem: 200M
YAML
submit_local keep.yaml
# Midway, while the program runs, the folder is already pruned.
wait_until 30 "checkpoints to appear" bash -c "ls 'ck dir/0.1' 2>/dev/null | grep -q ckpt_00050"
sleep 3
mid=$(find 'ck dir/0.1' -name '*.pt' | wc -l)
log "while running: $mid files"
[ "$mid" -le 80 ] || fail "not pruned while running: $mid files"
wait_until 150 "the task to end at its time limit" bash -c "'$SWEEP' status $SWEEP_ID | grep -q '^1/1 '"
"$SWEEP" status "$SWEEP_ID" >status.out 2>&1 || true
grep -qi timeout status.out || fail "the task did not end at its time limit: $(cat status.out)"
n=$(find 'ck dir/0.1' -name '*.pt' | wc -l)
log "after the time limit: $n files"
[ "$n" -ge 2 ] && [ "$n" -le 3 ] || fail "the folder holds $n checkpoints, not 2 (+1): $(ls 'ck dir/0.1' | head)"
[ -f notes.pt ] || fail "a file outside the checkpoint folder was deleted"
log "ok"
