#!/bin/bash
# A lab's GPU rules kept by the local runners of three real users (made
# with useradd) on a stand-in nvidia-smi with four A100s (recorded output,
# tests/data/nvidia-smi/a100x4-idle), the rule file named by
# SWEEP_GPU_RULES:
#  - announcements: each runner's appears in `sweep gpus` (and --json) while
#    it runs and goes with it; kill -9 of a runner frees its GPU and its
#    announcement;
#  - the cap holds under contention, across two runners of one user, and
#    the waiting task is PENDING with "cap: ..." as its reason (status --tasks);
#  - debug GPUs refuse a long task (its reason names them) and take a short one;
#  - long runs wait for their hours, short ones do not;
#  - priority decides who gets the GPU that frees up; without it, the one
#    that waited longer gets it.
source "$(dirname "$0")/lib.sh"

A=sweep-rules-a
B=sweep-rules-b
C=sweep-rules-c
for u in "$A" "$B" "$C"; do
	id "$u" >/dev/null 2>&1 || useradd -M -s /bin/bash "$u" 2>/dev/null ||
		id "$u" >/dev/null 2>&1 || fail "cannot create the user $u"
done

chmod 755 "$WORK"
LOCKS=$WORK/locks # as /tmp: root's, sticky, writable by all
mkdir "$LOCKS"
chmod 1777 "$LOCKS"
BOX=$WORK/box
cp "$DATA/nvidia-smi/a100x4-idle.gpus.csv" "$BOX.gpus.csv"
: >"$BOX.apps.csv"
RULES=$WORK/gpu-rules.yaml
for u in "$A" "$B" "$C"; do
	mkdir "$WORK/$u"
	chown "$u:" "$WORK/$u"
done

# sweep_file NAME SECONDS TIME: a sweep whose tasks hold their GPU for
# SECONDS and record which GPU and when; TIME is its time limit.
sweep_file() {
	cat >"$WORK/$1.yaml" <<EOF
name: $1
command: |
  start=\$(date +%s.%N)
  sleep $2
  echo "{{\"gpu\": \"\$CUDA_VISIBLE_DEVICES\", \"start\": \$start, \"end\": \$(date +%s.%N)}}" > "\$SWEEP_RESULT"
seeds: 4
slurm:
  time: "$3"
  max_concurrent: 4
EOF
	chmod 644 "$WORK/$1.yaml"
}

# as USER ARGS...: sweep as that user, in a state folder of its own.
as() {
	local u=$1
	shift
	runuser -u "$u" -- env -C "$WORK/$u" PATH="$DATA/nvidia-smi:$PATH" HOME="$WORK/$u" \
		SWEEP_STATE_DIR="$WORK/$u/.sweep" SWEEP_GPU_LOCK_DIR="$LOCKS" FAKE_NVIDIA_SMI="$BOX" \
		SWEEP_GPU_RULES="$RULES" ASAN_OPTIONS="${ASAN_OPTIONS:-}" \
		LSAN_OPTIONS="${LSAN_OPTIONS:-}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-}" "$SWEEP" "$@"
}
# submit_as USER SWEEP [ARGS...]: prints the sweep id.
submit_as() {
	local out
	out=$(as "$1" submit --local --gpus-per-task 1 "${@:3}" "$WORK/$2.yaml") ||
		fail "$1: sweep submit $2 failed"
	printf '%s\n' "$out" >&2
	printf '%s\n' "$out" | sed -n 's/^sweep \([0-9]*\) .*/\1/p' | head -1
}
done_as() {
	[ "$(as "$1" status "$2" --json | /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["done"])')" = "$3" ]
}
runner_log() { cat "$WORK/$1/.sweep/sweeps/$2"/runner-*.log; }
# gpus_says TEXT: sweep gpus (as root) prints TEXT.
gpus_says() {
	as "$A" gpus >"$WORK/gpus.out" 2>&1 || true
	grep -qF -- "$1" "$WORK/gpus.out"
}
gpus_lacks() {
	as "$A" gpus >"$WORK/gpus.out" 2>&1 || true
	! grep -qF -- "$1" "$WORK/gpus.out"
}
cleanup_users() {
	local u id
	for u in "$A" "$B" "$C"; do
		for id in $(as "$u" list 2>/dev/null | awk '$1 ~ /^[0-9]+$/ { print $1 }'); do
			as "$u" cancel "$id" >/dev/null 2>&1 || true
		done
	done
}
trap cleanup_users EXIT
# results USER ID...: "user gpu start end" lines of the tasks' results.
results() {
	local u=$1 id
	shift
	for id in "$@"; do
		/usr/bin/python3 - "$u" "$WORK/$u/.sweep/sweeps/$id/tasks" <<'PY'
import glob, json, sys
for f in sorted(glob.glob(sys.argv[2] + "/*/*/result.json")):
    r = json.load(open(f))
    print(sys.argv[1], r["gpu"], r["start"], r["end"])
PY
	done
}

sweep_file hold 8 5
sweep_file long 6 30
sweep_file short 2 1
sweep_file stay 120 5

# --- A rule file that does not read is refused at submit --------------------------
printf 'max_gpus_per_usr: 2\n' >"$RULES"
chmod 644 "$RULES"
out=$(as "$A" submit --local --gpus-per-task 1 "$WORK/hold.yaml" 2>&1) && fail "submitted with a broken rule file"
printf '%s\n' "$out" | grep -qF "$RULES:1:1: unknown key 'max_gpus_per_usr'; did you mean 'max_gpus_per_user'?" ||
	fail "the rule file's mistake: $out"
out=$(as "$A" gpus --rules 2>&1) && fail "gpus --rules read a broken rule file"
printf '%s\n' "$out" | grep -qF "$RULES:1:1: unknown key 'max_gpus_per_usr'" || fail "gpus --rules: $out"
printf 'max_gpus_per_user: 2\n' >"$RULES"
out=$(as "$A" submit --local --gpus-per-task 3 "$WORK/hold.yaml" 2>&1) && fail "submitted over the cap"
printf '%s\n' "$out" | grep -qF "each task asks 3 GPUs and the lab's rules ('$RULES') let one user hold 2 at once" ||
	fail "over the cap: $out"

# --- Announcements, and kill -9 of a runner (no rule file) ---------------------------
rm "$RULES"
as "$A" gpus --rules | grep -qF "no GPU rules: '$RULES' does not exist" || fail "gpus --rules without a file"
id=$(submit_as "$A" stay)
wait_until 30 "A's announcement" gpus_says "$A: GPUs 0,1,2,3, sweep stay, 0 of 4 tasks, at the latest"
cat "$WORK/gpus.out" >&2
as "$B" gpus --json >"$WORK/gpus.json"
pid=$(/usr/bin/python3 - "$WORK/gpus.json" "$A" <<'PY'
import json, sys
runners = json.load(open(sys.argv[1]))["runners"]
assert len(runners) == 1, runners
r = runners[0]
assert r["user"] == sys.argv[2] and r["sweep"] == "stay" and r["gpus"] == [0, 1, 2, 3], r
assert r["done"] == 0 and r["total"] == 4 and r["ends_latest"] > 0 and r["ends_about"] is None, r
print(r["pid"])
PY
) || fail "sweep gpus --json: $(cat "$WORK/gpus.json")"
kill -9 "$pid"
wait_until 10 "A's announcement to go" gpus_lacks "$A:"
idb=$(submit_as "$B" short)
wait_until 60 "B's sweep to run on the GPUs A's killed runner held" done_as "$B" "$idb" 4
as "$A" cancel "$id" >/dev/null 2>&1 || true
pkill -9 -u "$A" -f 'sleep 120' || true
wait_until 30 "no announcement left" gpus_lacks "runners ("

# --- The cap, under contention, across two runners of one user ---------------------
printf 'max_gpus_per_user: 2\n' >"$RULES"
ida1=$(submit_as "$A" hold)
ida2=$(submit_as "$A" hold)
idb=$(submit_as "$B" hold)
wait_until 30 "A's waiting runner to give the cap as its reason" \
	gpus_says "(cap: $A holds 2 of 2 GPUs)"
cat "$WORK/gpus.out" >&2
rules_say() {
	as "$1" gpus --rules >"$WORK/rules.out" 2>&1 || true
	grep -qF -- "$2" "$WORK/rules.out"
}
# status_reason USER TEXT ID...: a task of one of the sweeps waits, PENDING, for TEXT.
status_reason() {
	local u=$1 want=$2 id
	shift 2
	for id in "$@"; do
		as "$u" status "$id" --tasks --json | /usr/bin/python3 -c '
import json, sys
tasks = json.load(sys.stdin)["tasks"]
sys.exit(not any(t["state"] == "PENDING" and t["reason"] == sys.argv[1] for t in tasks))' "$want" &&
			as "$u" status "$id" --tasks | grep -qF "$want" && return 0
	done
	return 1
}
wait_until 30 "status to give the cap as a waiting task's reason" \
	status_reason "$A" "cap: $A holds 2 of 2 GPUs" "$ida1" "$ida2"
wait_until 30 "gpus --rules to tell A of the cap" \
	rules_say "$A" "with no time limit: waits (cap: $A holds 2 of 2 GPUs)"
cat "$WORK/rules.out" >&2
grep -qF "GPU rules: '$RULES'" "$WORK/rules.out" || fail "gpus --rules names no file"
wait_until 120 "A's first sweep" done_as "$A" "$ida1" 4
wait_until 120 "A's second sweep" done_as "$A" "$ida2" 4
wait_until 120 "B's sweep" done_as "$B" "$idb" 4
runner_log "$A" "$ida2" | grep -q "PENDING (cap: $A holds 2 of 2 GPUs)" ||
	runner_log "$A" "$ida1" | grep -q "PENDING (cap: $A holds 2 of 2 GPUs)" ||
	fail "no runner of A logged the cap as its reason"
{ results "$A" "$ida1" "$ida2"; results "$B" "$idb"; } >"$WORK/cap.runs"
/usr/bin/python3 - "$WORK/cap.runs" "$A" "$B" <<'PY' || fail "the cap did not hold"
import sys
runs = [l.split() for l in open(sys.argv[1])]
assert len(runs) == 12, runs
for who in sys.argv[2:]:
    mine = [(float(s), float(e)) for u, g, s, e in runs if u == who]
    for s, _ in mine:
        at_once = sum(1 for s2, e2 in mine if s2 <= s < e2)
        assert at_once <= 2, f"{who} held {at_once} GPUs at once"
for k, a in enumerate(runs):
    for b in runs[k + 1:]:
        assert not (a[1] == b[1] and float(a[2]) < float(b[3]) and float(b[2]) < float(a[3])), (a, b)
print("cap ok", file=sys.stderr)
PY

# --- Debug GPUs: three kept for tasks up to 1 minute ------------------------------
cat >"$RULES" <<'EOF'
debug_gpus:
  gpus: [0, 1, 2]
  max_time: 1
EOF
idl=$(submit_as "$B" long)
wait_until 30 "the long sweep's reason" gpus_says "(GPUs 0,1,2 are for tasks up to 1min)"
ids=$(submit_as "$C" short)
wait_until 60 "the short sweep" done_as "$C" "$ids" 4
wait_until 120 "the long sweep" done_as "$B" "$idl" 4
runner_log "$B" "$idl" | grep -q "PENDING (GPUs 0,1,2 are for tasks up to 1min)" ||
	fail "the long sweep's log does not give the debug GPUs as its reason"
[ "$(results "$B" "$idl" | awk '{ print $2 }' | sort -u)" = 3 ] ||
	fail "a long task ran on a debug GPU: $(results "$B" "$idl")"
results "$C" "$ids" | awk '$2 == 0 || $2 == 1 || $2 == 2' | grep -q . ||
	fail "no short task ran on a debug GPU: $(results "$C" "$ids")"

# --- Long runs start only in their hours (hours that do not include now) ------------
from=$(( ($(date +%-H) + 2) % 24 ))
to=$(( (from + 1) % 24 ))
span=$(printf '%02d:00-%02d:00' "$from" "$to")
printf 'long_runs: {longer_than: 1, start: "%s"}\n' "$span" >"$RULES"
idl=$(submit_as "$B" long)
ids=$(submit_as "$C" short)
wait_until 30 "the long run's reason" status_reason "$B" "long runs (over 1min) start $span" "$idl"
wait_until 60 "the short sweep, which may start at any hour" done_as "$C" "$ids" 4
[ "$(as "$B" status "$idl" --json | /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["done"])')" = 0 ] ||
	fail "a long run started outside its hours"
as "$B" cancel "$idl" >/dev/null

# --- Priority: one GPU left free; A holds it, B waits, then C (listed) waits -------
printf '%s, 1, 30000\n' GPU-8a1e6b0c-3d5f-4e92-a7b1-6c2d9e0f4b58 GPU-c7d90e21-4b6a-8f3c-1e5d-a29b7c3f6e04 \
	GPU-51b8f2d6-0a9e-c3b4-8d17-e6f05a2c9b71 >"$BOX.apps.csv"
# first without a priority list: who waited longer goes first
printf 'max_gpus_per_user: 4\n' >"$RULES"
sweep_file one 6 5
sed -i 's/^seeds: 4/seeds: 1/' "$WORK/one.yaml"
# A holds the GPU long enough for B and C to say, on the board, who goes first
sweep_file first 25 5
sed -i 's/^seeds: 4/seeds: 1/' "$WORK/first.yaml"
ida=$(submit_as "$A" first)
wait_until 30 "A to hold GPU 0" gpus_says "$A: GPU 0, sweep first"
idb=$(submit_as "$B" one)
wait_until 30 "B to wait" gpus_says "$B: no GPU, sweep one"
ldc=$(submit_as "$C" one)
wait_until 30 "C to wait behind B" gpus_says "(resources: no GPU is free; $B goes first (waited longer))"
cat "$WORK/gpus.out" >&2
for p in "$A $ida" "$B $idb" "$C $ldc"; do wait_until 120 "$p" done_as $p 1; done
tb=$(results "$B" "$idb" | awk '{ print $3 }')
tc=$(results "$C" "$ldc" | awk '{ print $3 }')
/usr/bin/python3 -c "import sys; sys.exit(not float('$tb') < float('$tc'))" ||
	fail "C started ($tc) before B ($tb), who waited longer"
# then with C listed: C goes first though B waited longer
cat >"$RULES" <<EOF
priority:
  - user: $C
    until: 2999-12-31
EOF
ida=$(submit_as "$A" first)
wait_until 30 "A to hold GPU 0" gpus_says "$A: GPU 0, sweep first"
idb=$(submit_as "$B" one)
wait_until 30 "B to wait" gpus_says "$B: no GPU, sweep one"
ldc=$(submit_as "$C" one)
wait_until 30 "B to wait behind C" gpus_says "(resources: no GPU is free; $C goes first (priority list))"
cat "$WORK/gpus.out" >&2
for p in "$A $ida" "$B $idb" "$C $ldc"; do wait_until 120 "$p" done_as $p 1; done
tb=$(results "$B" "$idb" | awk '{ print $3 }')
tc=$(results "$C" "$ldc" | awk '{ print $3 }')
/usr/bin/python3 -c "import sys; sys.exit(not float('$tc') < float('$tb'))" ||
	fail "B started ($tb) before C ($tc), who comes first by the priority list"
runner_log "$B" "$idb" | grep -q "PENDING (resources: no GPU is free; $C goes first (priority list))" ||
	fail "B's log does not give the priority as its reason"
wait_until 30 "no announcement left" gpus_lacks "runners ("
log "ok"
