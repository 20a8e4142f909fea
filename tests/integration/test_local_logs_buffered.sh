#!/bin/bash
# sweep logs -f on a Python program that print()s (issue 34): piped to a
# log, its stdout waits in a buffer, so -f shows nothing for a long while.
# After 20 s of silence from a running task, -f says why and what to add
# (PYTHONUNBUFFERED in env:); with it in env:, the line shows at once and
# no note is given. --local here; test_logs_buffered runs the same on the
# cluster.
. "$(dirname "$0")/lib.sh"
trap cancel_sweeps EXIT
# Tasks get the environment they are submitted from: as a user's shell has it.
unset PYTHONUNBUFFERED
printf '%s\n' 'import time' 'print("epoch 1 loss 0.5")' 'time.sleep(28)' 'print("done")' >slow.py
printf '%s\n' 'name: buffered' 'command: /usr/bin/python3 slow.py {seed}' 'seeds: 1' \
	'slurm:' '  time: "2"' >buffered.yaml
printf '%s\n' 'name: unbuffered' 'command: /usr/bin/python3 slow.py {seed}' 'seeds: 1' \
	'env:' '  PYTHONUNBUFFERED: "1"' 'slurm:' '  time: "2"' >unbuffered.yaml
submit_on buffered.yaml
B=$SWEEP_ID
submit_on unbuffered.yaml
U=$SWEEP_ID
timeout 90 "$SWEEP" logs -f --out "$B" 0 >b.out 2>b.err &
bp=$!
timeout 90 "$SWEEP" logs -f --out "$U" 0 >u.out 2>u.err &
up=$!
# On the cluster the tasks start a moment after submit: wait for the line.
wait_until 30 "the unbuffered task's line" grep -q 'epoch 1' u.out
grep -q 'epoch 1' b.out && fail "buffered: the line came at once (the program flushed?)"
wait "$bp" || fail "logs -f of the buffered task failed: $(cat b.err)"
wait "$up" || fail "logs -f of the unbuffered task failed: $(cat u.err)"
grep -q 'has printed nothing for 20 s: Python keeps stdout in a buffer.*PYTHONUNBUFFERED' b.err ||
	fail "no note on buffering: $(cat b.err)"
grep -q 'PYTHONUNBUFFERED' u.err && fail "a note although PYTHONUNBUFFERED is set: $(cat u.err)"
grep -q 'done' b.out || fail "buffered: the output never came: $(cat b.out)"
log "ok"
