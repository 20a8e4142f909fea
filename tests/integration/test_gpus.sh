#!/bin/bash
# sweep gpus: who holds each GPU. The recorded nvidia-smi stand-in lists
# real processes this test starts:
#  - one of ours left by a sweep task (it has the task's SWEEP_ID and
#    SWEEP_TASK_INDEX, and its task script is gone),
#  - one of ours still under its task (a parent has the same task variables),
#  - one of another user (made with useradd), with sweep variables too,
#  - a pid this PID namespace does not have (another container's).
# gpus shows each with pid, user, elapsed time, memory and command; --mine
# lists only ours with the kill line for the leftover alone; nothing is killed.
. "$(dirname "$0")/lib.sh"

OTHER=sweepgpu
id "$OTHER" >/dev/null 2>&1 || useradd --no-create-home --shell /usr/sbin/nologin "$OTHER"
PIDS=()
stop_all() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
}
trap stop_all EXIT

# Ours, left: its parent (this test) has no task variables.
SWEEP_ID=41 SWEEP_TASK_INDEX=3 sleep 601 &
LEFT=$!
PIDS+=("$LEFT")
# Ours, still under its task: the bash parent is "the task".
SWEEP_ID=41 SWEEP_TASK_INDEX=4 bash -c 'sleep 602 & echo $! >live.pid; wait' &
PIDS+=($!)
# Another user's, with task variables of its own.
runuser -u "$OTHER" -- env SWEEP_ID=41 SWEEP_TASK_INDEX=5 sleep 603 &
PIDS+=($!)
has_pid() { [ -s live.pid ] && pgrep -u "$OTHER" -f 'sleep 603' >/dev/null; }
wait_until 30 "the processes to start" has_pid
LIVE=$(cat live.pid)
PIDS+=("$LIVE")
THEIRS=$(pgrep -u "$OTHER" -f 'sleep 603')
GONE=1
while [ -e "/proc/$GONE" ]; do GONE=$((GONE + 7919)); done

BOX=$WORK/box
cp "$DATA/nvidia-smi/mixed-workstation.gpus.csv" "$BOX.gpus.csv"
T4=GPU-9e0c7a31-5f48-b2d6-c1a9-3e7f06b4d852
A6000=GPU-08b2d4e6-13c5-a7f9-4e60-5d1b8c2a7f93
cat >"$BOX.apps.csv" <<EOF
$T4, $LEFT, 6114
$T4, $LIVE, 512
$A6000, $THEIRS, 20480
$A6000, $GONE, 1024
EOF
export FAKE_NVIDIA_SMI=$BOX PATH=$DATA/nvidia-smi:$PATH

sleep 1.1 # so the elapsed times are at least 00:01
"$SWEEP" gpus >gpus.out || fail "sweep gpus failed: $(cat gpus.out)"
cat gpus.out >&2
row() { grep -E "^$1 +$2 " gpus.out || fail "no row for GPU $1 pid $2: $(cat gpus.out)"; }
row 2 "$LEFT" | grep -E " root +00:0[0-9] +6G +sleep 601 +left by sweep 41 task 3$" >/dev/null ||
	fail "the leftover's row: $(row 2 "$LEFT")"
row 2 "$LIVE" | grep -E " root +00:0[0-9] +512M +sleep 602 +sweep 41 task 4$" >/dev/null ||
	fail "the live task's row: $(row 2 "$LIVE")"
row 1 "$THEIRS" | grep -E " $OTHER +00:0[0-9] +20G +sleep 603 *$" >/dev/null ||
	fail "the other user's row: $(row 1 "$THEIRS")"
row 1 "$GONE" | grep -E " unknown +unknown +1G +unknown *$" >/dev/null ||
	fail "the other namespace's row: $(row 1 "$GONE")"

"$SWEEP" gpus --mine >mine.out || fail "sweep gpus --mine failed: $(cat mine.out)"
cat mine.out >&2
grep -q "^kill $LEFT$" mine.out || fail "no kill line for the leftover: $(cat mine.out)"
! grep -q -E "^[0-9]+ +($THEIRS|$GONE) " mine.out || fail "--mine lists others' processes"
grep -q -E "^2 +$LIVE " mine.out || fail "--mine misses our live task's process"

"$SWEEP" gpus --mine --json >mine.json || fail "gpus --mine --json failed"
/usr/bin/python3 - "$LEFT" "$LIVE" mine.json <<'EOF' || fail "JSON: $(cat mine.json)"
import json, sys
left, live = int(sys.argv[1]), int(sys.argv[2])
s = json.load(open(sys.argv[3]))
procs = {p["pid"]: p for g in s["gpus"] for p in g["processes"]}
assert set(procs) == {left, live}, procs
assert procs[left]["outlived_task"] and procs[left]["sweep_id"] == 41, procs[left]
assert not procs[live]["outlived_task"] and procs[live]["task_index"] == 4, procs[live]
assert procs[left]["command_line"] == "sleep 601", procs[left]
EOF
for p in "$LEFT" "$LIVE" "$THEIRS"; do
	kill -0 "$p" 2>/dev/null || fail "process $p is gone: sweep gpus must never kill"
done
log "gpus lists holders, marks the leftover, --mine prints its kill line only"
