#!/bin/bash
# The local backend (no Slurm needed), issue 16.8. A task whose process
# escapes its session with setsid is still the task's: its memory counts
# and it ends with the task. A runner killed with kill -9: a task that
# then ends by itself with status 0 is recorded COMPLETED, not NODE_FAIL.
. "$(dirname "$0")/lib.sh"

PIDS=()
cleanup_local() {
	cancel_sweeps
	for id in "${PIDS[@]}"; do kill -9 "$id" 2>/dev/null || true; done
}
trap cleanup_local EXIT
status_field() {
	"$SWEEP" status "$1" --json | python3 -c "import json, sys; s = json.load(sys.stdin); print($2)"
}
state_of() { status_field "$1" "s['tasks'][$2]['state']"; }
state_is() { [ "$(state_of "$1" "$2")" = "$3" ]; }
task_dir() { task_dir_in "$2" "$SWEEP_STATE_DIR/sweeps/$1"; }

# --- setsid: the escaped process ends with its task ---------------------------
cat >escape.yaml <<'YAML'
name: escape
command: |
  setsid bash -c 'echo $$ > "$SWEEP_TASK_DIR/escaped.pid"; exec sleep 300' &
  sleep 4
  echo '{{"ok": 1}}' > "$SWEEP_RESULT"
seeds: 1
slurm:
  time: "5"
YAML
submit_local escape.yaml
ESC=$SWEEP_ID
wait_until 60 "the escaped process to start" test -s "$(task_dir "$ESC" 0)/escaped.pid"
pid=$(cat "$(task_dir "$ESC" 0)/escaped.pid")
PIDS+=("$pid")
[ "$(ps -o sid= -p "$pid" | tr -d ' ')" = "$pid" ] || fail "the process did not make a session of its own"
wait_until 60 "the task to end" test -s "$(task_dir "$ESC" 0)/result.json"
gone() { ! kill -0 "$pid" 2>/dev/null || [ "$(ps -o stat= -p "$pid" | cut -c1)" = Z ]; }
wait_until 15 "the escaped process (pid $pid) to end with its task" gone
wait_until 30 "the task to be recorded" state_is "$ESC" 0 COMPLETED

# --- setsid: its memory counts ------------------------------------------------
cat >escape-mem.yaml <<'YAML'
name: escape-mem
command: |
  setsid python3 -c 'import time; hold = b"x" * (300 * 1024 * 1024); time.sleep(60)' &
  sleep 30
seeds: 1
slurm:
  time: "5"
  mem: 100M
YAML
submit_local escape-mem.yaml
MEM=$SWEEP_ID
wait_until 60 "the task over its memory request to be killed" state_is "$MEM" 0 OUT_OF_MEMORY

# --- runner killed: a task that then ends with 0 is COMPLETED ------------------
cat >orphan.yaml <<'YAML'
name: orphan
command: |
  touch "$SWEEP_TASK_DIR/started"
  sleep 6
  echo '{{"ok": 1}}' > "$SWEEP_RESULT"
seeds: 1
slurm:
  time: "5"
YAML
submit_local orphan.yaml
ORPHAN=$SWEEP_ID
wait_until 60 "the task to start" test -e "$(task_dir "$ORPHAN" 0)/started"
runner=$(sqlite3 "$SWEEP_STATE_DIR/sweep.db" "SELECT runner_pid FROM local_arrays WHERE sweep_id = $ORPHAN")
[ -n "$runner" ] && [ "$runner" -gt 0 ] || fail "no runner recorded"
kill -9 "$runner"
wait_until 60 "the task to end by itself" test -s "$(task_dir "$ORPHAN" 0)/result.json"
sleep 1
st=$(state_of "$ORPHAN" 0)
[ "$st" = COMPLETED ] || fail "a task that ended 0 after its runner was killed is $st, not COMPLETED"
log "ok"
