#!/bin/bash
# GPU locks on a machine two users share (the local runner, a stand-in
# nvidia-smi with two idle GPUs). One user plants a symbolic link at the
# other's next GPU lock, pointing at a file the other owns: the other's
# sweep neither follows it nor changes the file's mode, and runs on the
# GPU whose lock is sound. Then both users run sweeps at once, and no GPU
# is given to two tasks at the same time: each opens the other's locks.
source "$(dirname "$0")/lib.sh"

A=sweep-lock-a
B=sweep-lock-b
for u in "$A" "$B"; do
	id "$u" >/dev/null 2>&1 || useradd -M -s /bin/bash "$u" 2>/dev/null ||
		id "$u" >/dev/null 2>&1 || fail "cannot create the user $u"
done

chmod 755 "$WORK"
LOCKS=$WORK/locks # as /tmp: root's, sticky, writable by all
mkdir "$LOCKS"
chmod 1777 "$LOCKS"
BOX=$WORK/box
cat >"$BOX.gpus.csv" <<'EOF'
0, GPU-0a0a0a0a-1111-2222-3333-444444444444, NVIDIA A100-SXM4-80GB, 0, 81920
1, GPU-1b1b1b1b-1111-2222-3333-444444444444, NVIDIA A100-SXM4-80GB, 0, 81920
EOF
: >"$BOX.apps.csv"
LOCK0=$LOCKS/sweep-gpu-GPU-0a0a0a0a-1111-2222-3333-444444444444.lock
LOCK1=$LOCKS/sweep-gpu-GPU-1b1b1b1b-1111-2222-3333-444444444444.lock

cat >"$WORK/hold gpu.yaml" <<'EOF'
# Each task holds its GPU for a few seconds and says when.
name: hold-gpu
command: |
  start=$(date +%s.%N)
  sleep 3
  echo "{{\"gpu\": \"$CUDA_VISIBLE_DEVICES\", \"start\": $start, \"end\": $(date +%s.%N)}}" > "$SWEEP_RESULT"
seeds: 2
slurm:
  time: "5"
  max_concurrent: 2
EOF
chmod 644 "$WORK/hold gpu.yaml"
for u in "$A" "$B"; do
	mkdir "$WORK/$u"
	chown "$u:" "$WORK/$u"
done

# as USER sweep ARGS...: sweep as that user, in a state folder of its own.
as() {
	local u=$1
	shift
	runuser -u "$u" -- env -C "$WORK/$u" PATH="$DATA/nvidia-smi:$PATH" HOME="$WORK/$u" \
		SWEEP_STATE_DIR="$WORK/$u/.sweep" SWEEP_GPU_LOCK_DIR="$LOCKS" FAKE_NVIDIA_SMI="$BOX" \
		ASAN_OPTIONS="${ASAN_OPTIONS:-}" LSAN_OPTIONS="${LSAN_OPTIONS:-}" \
		UBSAN_OPTIONS="${UBSAN_OPTIONS:-}" "$SWEEP" "$@"
}
submit_as() {
	local out
	out=$(as "$1" submit --local "${@:2}" "$WORK/hold gpu.yaml") || fail "$1: sweep submit failed"
	printf '%s\n' "$out" >&2
	printf '%s\n' "$out" | sed -n 's/^sweep \([0-9]*\) .*/\1/p' | head -1
}
done_as() {
	[ "$(as "$1" status "$2" --json | /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["done"])')" = "$3" ]
}
cleanup_users() {
	local u id
	for u in "$A" "$B"; do
		for id in $(as "$u" list 2>/dev/null | awk '$1 ~ /^[0-9]+$/ { print $1 }'); do
			as "$u" cancel "$id" >/dev/null 2>&1 || true
		done
	done
}
trap cleanup_users EXIT

# --- A plants a link at GPU 0's lock, to a file of B's ---------------------------
runuser -u "$B" -- sh -c "umask 077; echo secret > '$WORK/$B/secret'"
runuser -u "$A" -- ln -s "$WORK/$B/secret" "$LOCK0"
id=$(submit_as "$B" --gpus-per-task 1)
[ -n "$id" ] || fail "no sweep id"
wait_until 90 "B's sweep to finish" done_as "$B" "$id" 2
as "$B" status "$id" --tasks >&2
[ "$(stat -c '%a %U' "$WORK/$B/secret")" = "600 $B" ] ||
	fail "B's file behind A's link was changed: $(stat -c '%a %U' "$WORK/$B/secret")"
[ -L "$LOCK0" ] || fail "the planted link was replaced"
for i in 0 1; do
	gpu=$(/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["gpu"])' \
		"$(task_dir_in "$i" "$WORK/$B/.sweep/sweeps/$id")/result.json")
	[ "$gpu" = 1 ] || fail "B's task $i ran on GPU '$gpu', not on GPU 1 (GPU 0's lock is A's link)"
done
cat "$WORK/$B/.sweep/sweeps/$id"/runner-*.log >&2
grep -q "warning: the GPU lock '$LOCK0' is a symbolic link (owned by user '$A'), not a lock sweep made" \
	"$WORK/$B/.sweep/sweeps/$id"/runner-*.log || fail "the runner log does not say why GPU 0 was left"
[ "$(stat -c '%a %U %h' "$LOCK1")" = "644 $B 1" ] || fail "GPU 1's lock: $(stat -c '%a %U %h' "$LOCK1")"
rm "$LOCK0"

# --- Both users at once: two GPUs, four tasks, never two on one GPU ---------------
ida=$(submit_as "$A" --gpus-per-task 1)
idb=$(submit_as "$B" --gpus-per-task 1)
wait_until 90 "A's sweep to finish" done_as "$A" "$ida" 2
wait_until 90 "B's sweep to finish" done_as "$B" "$idb" 2
[ "$(stat -c '%a %h' "$LOCK0")" = "644 1" ] || fail "GPU 0's lock: $(stat -c '%a %h' "$LOCK0")"
/usr/bin/python3 - "$WORK/$A/.sweep/sweeps/$ida/tasks" "$WORK/$B/.sweep/sweeps/$idb/tasks" <<'PY' ||
import json, sys
runs = []
for tasks in sys.argv[1:]:
    for i in (0, 1):
        r = json.load(open(f"{tasks}/{i // 1000}/{i}/result.json"))
        runs.append((r["gpu"], r["start"], r["end"], f"{tasks}/{i}"))
for k, a in enumerate(runs):
    assert a[0] in ("0", "1"), a
    for b in runs[k + 1:]:
        if a[0] == b[0] and a[1] < b[2] and b[1] < a[2]:
            sys.exit(f"GPU {a[0]} given to two tasks at once: {a[3]} and {b[3]}")
print(runs, file=sys.stderr)
PY
	fail "two users' tasks shared a GPU"
log "ok"
