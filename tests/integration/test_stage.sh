#!/bin/bash
# stage: and checkpoint.keep on the real cluster and with --local.
#  - 6 concurrent tasks on the one node unpack a tar and a folder once: every
#    task sees the same inode, one task notes "copied", the others "shared";
#    nothing is left in the node-local base afterwards; status and report
#    show the staging times.
#  - each task's program (as users write them: no handler, metrics printed)
#    writes 5 checkpoints, names with spaces and newlines; the task keeps the
#    newest 2; a symbolic link and a file outside the task's folder survive.
#  - a task killed (SIGKILL) mid-unpack leaves a data.tmp.* that the next
#    task never takes for complete: it unpacks again and cleans up.
#  - --local: the same sweep, with results: file; and sweep cancel removes
#    the stage of a running sweep.
. "$(dirname "$0")/lib.sh"
cluster_up
unset TMPDIR # the base is then slurm.tmp_base

BASE="$WORK/node local"
mkdir -p "$BASE" "src/data set/sub" outside
for i in $(seq 200); do printf 'line %s\n' "$i" >"src/data set/sub/f$i.txt"; done
head -c 2000000 /dev/urandom >src/blob.bin
tar -cf "src/data.tar" -C src blob.bin
echo precious >outside/victim.pt

cat >ckpt.py <<'EOF'
import os, sys, time
d = os.environ["SWEEP_CHECKPOINT_DIR"]
os.makedirs(d, exist_ok=True)
stage = sys.argv[1]
st = os.stat(os.path.join(stage, "blob.bin"))
assert os.path.isfile(os.path.join(stage, "data set", "sub", "f200.txt"))
link = os.path.join(d, "link.pt")
if not os.path.lexists(link):
    os.symlink(os.path.abspath("outside/victim.pt"), link)
    os.utime(link, (1, 1), follow_symlinks=False)
for i in range(5):
    with open(os.path.join(d, f"ckpt {i}\nepoch.pt"), "w") as f:
        f.write(str(i))
    os.utime(os.path.join(d, f"ckpt {i}\nepoch.pt"), (1000 + i, 1000 + i))
with open(os.path.join(d, "notes.txt"), "w") as f:
    f.write("not a checkpoint")
time.sleep(float(sys.argv[2]))
print("inode:", st.st_ino)
print("seen", st.st_ino, file=open(os.path.join(d, "inode"), "w"))
print("accuracy:", 0.5)
if len(sys.argv) > 3:
    with open(os.path.join(d, "acc.json"), "w") as f:
        f.write('{"accuracy": 0.5}')
EOF

write_sweep() { # NAME SEEDS SLEEP RESULTS-YAML [SLURM-EXTRA] [FIRST-STAGE]
	cat >"$1.yaml" <<EOF
name: $1
command: python3 ckpt.py {stage} $3
seeds: $2
checkpoint: {keep: 2, pattern: '*.pt', dir: 'ck $1/{index}'}
stage: [${6:-}'src/data.tar', 'src/data set']
slurm: {time: "5", mem: 100M, tmp_base: '$BASE'${5:-}}
$4
EOF
}

check_kept() { # NAME INDEX
	local d="ck $1/$2"
	[ "$(find "$d" -maxdepth 1 -name '*epoch.pt' -print0 | tr -cd '\0' | wc -c)" = 2 ] ||
		fail "task $2 of $1 kept not 2 checkpoints: $(ls -b "$d")"
	[ -e "$d/ckpt 3"$'\n'"epoch.pt" ] && [ -e "$d/ckpt 4"$'\n'"epoch.pt" ] ||
		fail "task $2 of $1 kept the wrong ones: $(ls -b "$d")"
	[ -L "$d/link.pt" ] || fail "task $2 of $1: the symbolic link was removed"
	[ -e "$d/notes.txt" ] || fail "task $2 of $1: a file outside the pattern was removed"
}

base_empty() { [ -z "$(ls -A "$BASE")" ]; }

# --- 6 concurrent tasks on the cluster, results from the log --------------------
write_sweep staged 6 4 "results: {log: {accuracy: 'accuracy: ([0-9.]+)'}}"
"$SWEEP" submit --dry-run staged.yaml >dry.out || fail "dry run failed"
grep -q "^# stage: once per node" dry.out || fail "dry run shows no staging plan: $(cat dry.out)"
grep -q "^# checkpoints: each task keeps its newest 2 files matching '\*.pt'" dry.out ||
	fail "dry run shows no keep plan"
submit staged.yaml
wait_sweep 6 300
completed_once 6
inodes=$(cat "ck staged"/*/inode | sort -u | wc -l)
[ "$inodes" = 1 ] || fail "the tasks saw $inodes different copies: $(cat "ck staged"/*/inode)"
copied=$(cat "$(sweep_dir)"/tasks/*/*/.staged | grep -c ' unpacked ') || true
[ "$copied" = 1 ] || fail "$copied tasks unpacked: $(cat "$(sweep_dir)"/tasks/*/*/.staged)"
for i in 0 1 2 3 4 5; do check_kept staged $i; done
grep -q -F "s: $BASE/sweep-stage-" logs/staged_*_0.out || fail "not staged under slurm.tmp_base: $(cat logs/staged_*_0.out)"
[ "$(cat outside/victim.pt)" = precious ] || fail "the link's target was touched"
wait_until 60 "the last task to remove the stage" base_empty
"$SWEEP" status --tasks >status.out || fail "status failed"
grep -q '^staging: 6 tasks, copied 1 time' status.out || fail "status: $(cat status.out)"
grep -q 'STAGING' status.out && grep -q 'shared' status.out || fail "no per-task staging table"
"$SWEEP" report >report.out || fail "report failed: $(cat report.out)"
grep -q '^staging: 6 tasks, copied 1 time' report.out || fail "report: $(cat report.out)"
log "6 tasks staged once, kept 2 checkpoints each, left nothing"

# --- A task killed mid-unpack -----------------------------------------------
# A tar of many small files unpacks slowly enough to be caught at it.
mkdir -p many
(cd many && seq 40000 | xargs -n 200 touch) || fail "cannot make the files"
tar -cf src/many.tar many
write_sweep killed 2 0 "" ", max_concurrent: 1" "'src/many.tar', "
submit killed.yaml
tmpcopy() { compgen -G "$BASE/*/data.tmp.*" >/dev/null; }
deadline=$((SECONDS + 240))
until tmpcopy; do
	((SECONDS < deadline)) || fail "task 0 never started unpacking"
	sleep 0.05
done
scancel --signal=KILL --full "${JOBS[0]}_0" || fail "cannot kill task 0"
wait_sweep 2 300
[ ! -e "ck killed/0/inode" ] || fail "the killed task ran its command"
[ -e "ck killed/1/inode" ] || fail "task 1 did not run: $(cat logs/killed_*_1.err)"
grep -q ' unpacked ' "$(task_dir_in 1)/.staged" ||
	fail "task 1 took the half copy: $(cat "$(task_dir_in 1)/.staged")"
wait_until 60 "task 1 to remove the stage and the killed task's lease" base_empty
log "a task killed mid-unpack left nothing a later task used"

# --- --local: results from a file; cancel removes the stage ----------------------
write_sweep localrun 3 0 "results: {file: 'ck localrun/{index}/acc.json'}"
sed -i 's|^command: .*|command: python3 ckpt.py {stage} 0 json|' localrun.yaml
out=$("$SWEEP" submit --local localrun.yaml) || fail "local submit failed: $out"
LOCAL_ID=$(printf '%s\n' "$out" | sed -n 's/^sweep \([0-9]*\) .*/\1/p' | head -1)
local_done() { "$SWEEP" status "$LOCAL_ID" | grep -q '^3/3 done'; }
wait_until 240 "the local sweep to end" local_done
"$SWEEP" status "$LOCAL_ID" | grep -q '^COMPLETED 3$' ||
	fail "the local sweep did not complete: $("$SWEEP" status "$LOCAL_ID"; cat logs/localrun_*.err)"
for i in 0 1 2; do check_kept localrun $i; done
wait_until 60 "the local stage to go" base_empty
"$SWEEP" report "$LOCAL_ID" >local-report.out || fail "local report: $(cat local-report.out)"
grep -q '^staging: 3 tasks' local-report.out || fail "local report: $(cat local-report.out)"

# Many short tasks: one ends and removes the stage while the next arrives.
# The arriving task never sees a half-removed stage, nor fails to lock it.
cat >churn.yaml <<EOF
name: churn
command: test -f '{stage}/data set/sub/f200.txt'
seeds: 60
stage: ['src/data set']
slurm: {tmp_base: '$BASE'}
EOF
out=$("$SWEEP" submit --local churn.yaml) || fail "local submit failed: $out"
CHURN_ID=$(printf '%s\n' "$out" | sed -n 's/^sweep \([0-9]*\) .*/\1/p' | head -1)
churn_done() { "$SWEEP" status "$CHURN_ID" | grep -q '^60/60 done'; }
wait_until 240 "the churning sweep to end" churn_done
errs=$(grep -h -v '^sweep: \(task\|stag\)' logs/churn_*.err) || true
"$SWEEP" status "$CHURN_ID" | grep -Eq '^COMPLETED 60( \(60 completed, no metric\))?$' ||
	fail "tasks failed while the stage came and went: $("$SWEEP" status "$CHURN_ID"; printf '%s\n' "$errs")"
[ -z "$errs" ] || fail "the stage's comings and goings printed errors: $errs"
wait_until 60 "the churning sweep's stage to go" base_empty
log "60 short tasks each found a whole stage or made one"

write_sweep longrun 2 300 ""
out=$("$SWEEP" submit --local longrun.yaml) || fail "local submit failed: $out"
LONG_ID=$(printf '%s\n' "$out" | sed -n 's/^sweep \([0-9]*\) .*/\1/p' | head -1)
staged_now() { [ -e "$SWEEP_STATE_DIR/sweeps/$LONG_ID/tasks/0/1/.staged" ]; }
wait_until 120 "the long sweep to stage" staged_now
base_empty && fail "no stage while the long sweep runs"
"$SWEEP" cancel "$LONG_ID" >cancel.out || fail "cancel failed: $(cat cancel.out)"
wait_until 60 "cancel to remove the stage" base_empty
log "--local: kept 2, staged, cancel removed the stage"

# --- A stage someone else made first is not used ----------------------------------
# The stage's name is predictable (uid, sweep id, a hash of the sweep folder)
# in a folder every user may write: another user could make it first and
# put their own "data" in it. The next sweep's name, made by another owner:
next_id=$(($("$SWEEP" list | awk '$1 ~ /^[0-9]+$/ { n = $1 } END { print n + 0 }') + 1))
planted=$BASE/$(/usr/bin/python3 - "$(id -u)" "$next_id" "$SWEEP_STATE_DIR/sweeps/$next_id" <<'PY'
import sys
h = 2166136261
for b in sys.argv[3].encode():
    h = ((h ^ b) * 16777619) & 0xFFFFFFFF
print(f"sweep-stage-{sys.argv[1]}-{sys.argv[2]}-{h:08x}")
PY
)
mkdir -p "$planted/data" "$planted/leases"
echo "not your data" >"$planted/data/data.txt"
chown -R 65534:65534 "$planted"
write_sweep planted 1 0 "results: {log: {accuracy: 'accuracy: ([0-9.]+)'}}"
submit planted.yaml
[ "$SWEEP_ID" = "$next_id" ] || fail "expected sweep $next_id, got $SWEEP_ID"
wait_sweep 1 120
grep -q "refusing the folder '$planted': it belongs to someone else" logs/planted_*_0.err ||
	fail "the planted stage was not refused: $(cat logs/planted_*_0.err)"
[ ! -e "ck planted/0/inode" ] || fail "the task ran its command on a planted stage"
rm -rf "$planted"
log "a stage someone else made first was refused"
