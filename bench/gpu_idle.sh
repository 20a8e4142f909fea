#!/bin/bash
# How long a freed GPU stays idle while a task waits for it: two users'
# local runners share the one free GPU of a stand-in nvidia-smi (four A100s,
# three busy), each with TASKS tasks of SECONDS seconds, submitted at once.
# Every gap between a task's end and the next start on the GPU is idle time
# with a task waiting. Measured with the lab's rules (a rule file: runners
# take turns, by who waited longest) and without (each runner on its own,
# asking nvidia-smi every 5 s while it waits, at once after its own task
# ends). Needs root (it makes two users with useradd) and no cluster.
# Prints figures; passes or fails nothing.
#
#   bench/gpu_idle.sh [TASKS] [SECONDS] [BUILD]      (default: 8 3 build)
set -euo pipefail
TASKS=${1:-8}
SECS=${2:-3}
BUILD=$(cd "${3:-build}" && pwd)
SWEEP=$BUILD/sweep
SRC=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d /tmp/sweep-bench-XXXXXX)
A=sweep-bench-a
B=sweep-bench-b
for u in "$A" "$B"; do
	id "$u" >/dev/null 2>&1 || useradd -M -s /bin/bash "$u"
done
chmod 755 "$WORK"
cleanup() {
	local u id
	for u in "$A" "$B"; do
		for id in $(as "$u" list 2>/dev/null | awk '$1 ~ /^[0-9]+$/ { print $1 }'); do
			as "$u" cancel "$id" >/dev/null 2>&1 || true
		done
	done
	rm -rf "$WORK"
}
trap cleanup EXIT

BOX=$WORK/box
cp "$SRC/tests/data/nvidia-smi/a100x4-idle.gpus.csv" "$BOX.gpus.csv"
printf '%s, 1, 30000\n' GPU-8a1e6b0c-3d5f-4e92-a7b1-6c2d9e0f4b58 \
	GPU-c7d90e21-4b6a-8f3c-1e5d-a29b7c3f6e04 GPU-51b8f2d6-0a9e-c3b4-8d17-e6f05a2c9b71 >"$BOX.apps.csv"
mkdir -m 1777 "$WORK/procs"
mkdir "$WORK/bin"
cat >"$WORK/bin/nvidia-smi" <<EOF
#!/bin/bash
# the recorded GPUs; the recorded processes and the tasks' own
if [ "\$1" = --query-compute-apps=gpu_uuid,pid,used_memory ]; then
	cat "$BOX.apps.csv" "$WORK"/procs/*.csv 2>/dev/null
	exit 0
fi
FAKE_NVIDIA_SMI=$BOX exec "$SRC/tests/data/nvidia-smi/nvidia-smi" "\$@"
EOF
chmod 755 "$WORK/bin/nvidia-smi"
cat >"$WORK/idle.yaml" <<EOF
name: idle
command: |
  start=\$(date +%s.%N)
  echo "GPU-2f4c3a8e-91b7-5d2e-7c6a-0b8e4f1d9a23, \$\$, 1000" > "$WORK/procs/\$\$.csv"
  sleep $SECS
  end=\$(date +%s.%N)
  rm -f "$WORK/procs/\$\$.csv"
  echo "{{\"start\": \$start, \"end\": \$end}}" > "\$SWEEP_RESULT"
seeds: $TASKS
slurm:
  time: "30"
  max_concurrent: 1
EOF
chmod 644 "$WORK/idle.yaml"

as() {
	local u=$1
	shift
	runuser -u "$u" -- env -C "$WORK/$u" PATH="$WORK/bin:$PATH" HOME="$WORK/$u" \
		SWEEP_STATE_DIR="$WORK/$u/.sweep" SWEEP_GPU_LOCK_DIR="$WORK/locks" FAKE_NVIDIA_SMI="$BOX" \
		SWEEP_GPU_RULES="$WORK/gpu-rules.yaml" "$SWEEP" "$@"
}
done_count() {
	as "$1" status "$2" --json | /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["done"])'
}

# run LABEL: both users' sweeps at once; prints the idle gaps' figures.
run() {
	local label=$1 u ida idb deadline
	rm -rf "$WORK/locks" "$WORK/$A" "$WORK/$B"
	mkdir -m 1777 "$WORK/locks"
	for u in "$A" "$B"; do
		mkdir "$WORK/$u"
		chown "$u:" "$WORK/$u"
	done
	ida=$(as "$A" submit --local --gpus-per-task 1 "$WORK/idle.yaml" | sed -n 's/^sweep \([0-9]*\) .*/\1/p')
	idb=$(as "$B" submit --local --gpus-per-task 1 "$WORK/idle.yaml" | sed -n 's/^sweep \([0-9]*\) .*/\1/p')
	deadline=$((SECONDS + 2 * TASKS * (SECS + 10) + 60))
	until [ "$(done_count "$A" "$ida")" = "$TASKS" ] && [ "$(done_count "$B" "$idb")" = "$TASKS" ]; do
		((SECONDS < deadline)) || { echo "$label: timed out" >&2; return 1; }
		sleep 1
	done
	/usr/bin/python3 - "$label" "$WORK/$A/.sweep/sweeps/$ida/tasks" "$WORK/$B/.sweep/sweeps/$idb/tasks" <<'PY'
import glob, json, statistics, sys
runs = []
for who, tasks in zip("AB", sys.argv[2:]):
    for f in glob.glob(tasks + "/*/*/result.json"):
        r = json.load(open(f))
        runs.append((r["start"], r["end"], who))
runs.sort()
gaps, switches = [], []
for prev, nxt in zip(runs, runs[1:]):
    gaps.append(nxt[0] - prev[1])
    if nxt[2] != prev[2]:
        switches.append(nxt[0] - prev[1])
order = "".join(r[2] for r in runs)
print(f"{sys.argv[1]}: {len(runs)} tasks, order {order}; idle between tasks: "
      f"mean {statistics.mean(gaps):.2f} s, median {statistics.median(gaps):.2f} s, "
      f"max {max(gaps):.2f} s; when the GPU passes to the other user "
      f"({len(switches)} times): mean {statistics.mean(switches) if switches else 0:.2f} s")
PY
}

echo "gpu_idle: 2 users x $TASKS tasks of $SECS s on one free GPU (3 of 4 busy), $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"
printf 'max_gpus_per_user: 4\n' >"$WORK/gpu-rules.yaml"
chmod 644 "$WORK/gpu-rules.yaml"
run "with rules (turns by longest wait)"
rm "$WORK/gpu-rules.yaml"
run "without rules (reference: each runner on its own; the one whose task ended asks at once, the other every 5 s)"
