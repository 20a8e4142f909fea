#!/bin/bash
# checkpoint.keep prunes only a task's own checkpoint folder: a folder that
# a value moves out of the submit folder ('..'), or that is '/', is refused
# at submit, naming the task; one that reaches the submit folder itself
# only on the node (through a link) is refused by the task script before it
# deletes anything. The user's files survive. The local backend: no Slurm.
. "$(dirname "$0")/lib.sh"
trap cancel_sweeps EXIT

mkdir proj
cd proj
echo 'print("train")' >train.py
echo 'my notes' >notes.txt
ln -s .. up

# write_sweep NAME DIR VALUES
write_sweep() {
	cat >"$1.yaml" <<YAML
name: $1
command: echo run {run}
seeds: 1
grid:
  run: $3
checkpoint: {keep: 1, dir: '$2'}
slurm:
  time: "1:00"
  mem: 50M
YAML
}
survive() {
	for f in train.py notes.txt "$@"; do
		[ -f "$f" ] || fail "$f was deleted"
	done
}

# A value '..' takes the folder out of the submit folder: refused at submit.
write_sweep dotdot 'ck/{run}' "[a, '..']"
"$SWEEP" submit --local dotdot.yaml >dotdot.out 2>&1 && fail "submit took '..': $(cat dotdot.out)"
grep -q "error: 'checkpoint.dir' 'ck/{run}' is 'ck/..' for task 1: a '..' in it leaves the folder" dotdot.out ||
	fail "no error naming task 1: $(cat dotdot.out)"
survive dotdot.yaml

# dir: / is refused by a dry run already.
write_sweep root '/' "[a]"
"$SWEEP" submit --local --dry-run root.yaml >root.out 2>&1 && fail "a dry run took dir: /: $(cat root.out)"
grep -q "error: 'checkpoint.dir' '/' is '/' for task 0, the root folder itself" root.out ||
	fail "no error for dir: /: $(cat root.out)"

# 'up/proj' reads as a folder under the submit folder, but up links to its
# parent: on the node it is the submit folder itself. The task script
# refuses to prune it.
write_sweep linked 'up/{run}' "[proj]"
submit_local linked.yaml
wait_until 120 "the linked sweep to finish" bash -c "'$SWEEP' status $SWEEP_ID | grep -q '^1/1 done'"
survive linked.yaml dotdot.yaml root.yaml
grep -q "sweep: not pruning the checkpoint folder '$PWD/up/proj': it is /, \$HOME or the submit folder itself" logs/linked_*.err ||
	fail "the task script did not say it refused: $(cat logs/linked_*)"
log "ok"
