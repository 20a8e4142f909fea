#!/bin/bash
# A task of the local runner fills the disk of the state folder (a small
# real tmpfs) and exits 1: the runner cannot record its end in the store,
# and status must still say FAILED with exit code 1, and why it read it from
# elsewhere, not NODE_FAIL with exit code 0.
source "$(dirname "$0")/lib.sh"

FULL=$WORK/full
mkdir "$FULL"
mount -t tmpfs -o size=8m tmpfs "$FULL" || fail "cannot mount a tmpfs (root needed)"
unmount() {
	local id
	for id in $("$SWEEP" list 2>/dev/null | awk '$1 ~ /^[0-9]+$/ { print $1 }'); do
		"$SWEEP" cancel "$id" >/dev/null 2>&1 || true
	done
	umount "$FULL" 2>/dev/null || umount -l "$FULL" || true
}
trap unmount EXIT
export SWEEP_STATE_DIR=$FULL/st
cd "$FULL"
cat >"$WORK/fill disk.yaml" <<'YAML'
# Fills the disk, then fails as a program does when it cannot write.
name: fill-disk
command: |
  sleep 1
  head -c 32M /dev/zero > "$SWEEP_TASK_DIR/filler" || echo "disk full" >&2
  exit 1
seeds: 1
slurm:
  time: "5"
YAML
out=$("$SWEEP" submit --local "$WORK/fill disk.yaml") || fail "submit failed"
printf '%s\n' "$out" >&2
id=$(printf '%s\n' "$out" | sed -n 's/^sweep \([0-9]*\) .*/\1/p' | head -1)
runner_done() { grep -q "array job [0-9]* done" "$FULL/st/sweeps/$id"/runner-*.log 2>/dev/null; }
wait_until 60 "the runner to end" runner_done
cat "$FULL/st/sweeps/$id"/runner-*.log >&2
df "$FULL" >&2
grep -q "could not record its state" "$FULL/st/sweeps/$id"/runner-*.log ||
	fail "the disk was not full when the task ended: the test proves nothing"

check_status() {
	local rc=0
	"$SWEEP" status "$id" --json >status.json 2>status.err || rc=$?
	cat status.err >&2
	[ $rc -eq 0 ] || fail "status: exit $rc"
	[ "$(/usr/bin/python3 -c 'import json; t = json.load(open("status.json"))["tasks"][0]; print(t["state"], t["exit_code"])')" = "FAILED 1" ] ||
		fail "$1: task 0 is $(/usr/bin/python3 -c 'import json; t = json.load(open("status.json"))["tasks"][0]; print(t["state"], t["exit_code"])'), not FAILED 1"
	grep -q "warning: task 0 (job [0-9]*): its runner could not record its end in the state store (is the disk full?); its end is read from '$FULL/st/sweeps/$id/.end.[0-9]*'" status.err ||
		fail "$1: status does not say the end was not recorded"
}
cd "$WORK"
check_status "disk still full"
rm -f "$(task_dir_in 0 "$FULL/st/sweeps/$id")/filler"
check_status "disk freed"
"$SWEEP" status "$id" --tasks >&2
log "ok"
