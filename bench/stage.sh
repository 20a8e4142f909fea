#!/bin/bash
# What `stage:` costs against reading a data set of many small files where it
# lies: the same sweep of TASKS tasks, each reading every file of a data set
# of FILES files of 4 KiB once, submitted to the test cluster twice in the
# same run: without `stage:` (every task reads the shared folder) and with
# `stage: [data.tar]` (the first task on the node unpacks the tar into the
# node-local base once, the others share it, every task reads its copy).
# Prints, for each, the wall time from `sweep submit` to the last task's end,
# from the first task's start to the last task's end, the task-seconds, the
# staging summary, and the ratios staged / unstaged. Passes or fails nothing.
#
#   bench/stage.sh [FILES] [TASKS] [BUILD]     (default: 20000 6 build)
#
# On this machine the "shared" folder is on the same local disk as /tmp and
# warm in the page cache: the figures are the price of staging, not the
# relief of a busy NAS (there, each unstaged task's 20,000 opens go over the
# network to one metadata server). Run it on an otherwise idle cluster.
set -euo pipefail
FILES=${1:-20000}
TASKS=${2:-6}
BUILD=$(cd "${3:-build}" && pwd)
SWEEP=$BUILD/sweep
WORK=$(mktemp -d /tmp/sweep-bench-stage-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
export SWEEP_STATE_DIR=$WORK/.sweep
unset TMPDIR

/usr/bin/python3 - "$FILES" <<'PY'
import os, sys
n = int(sys.argv[1])
for i in range(n):
    d = os.path.join("data", f"part{i // 1000:03d}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"sample{i:06d}.bin"), "wb") as f:
        f.write(os.urandom(4096))
PY
tar -cf data.tar data
cat >read_all.py <<'PY'
import json, os, sys, time
t0 = time.time()
n = size = 0
for folder, _, names in os.walk(sys.argv[1]):
    for name in names:
        with open(os.path.join(folder, name), "rb") as f:
            size += len(f.read())
        n += 1
print("files:", n, "bytes:", size)
with open(os.environ["SWEEP_RESULT"], "w") as f:
    json.dump({"files": n, "read_seconds": time.time() - t0}, f)
PY

# run NAME DATA-ARG [STAGE-YAML]: prints "submit-to-end first-start-to-end task-seconds"
run() {
	local out id ids first last secs
	cat >"$1.yaml" <<YAML
name: $1
command: python3 read_all.py $2
seeds: $TASKS
${3:-}
slurm: {time: "10", mem: 200M}
YAML
	t0=$(date +%s.%N)
	out=$("$SWEEP" submit "$1.yaml")
	id=$(sed -n 's/^sweep \([0-9]*\) .*/\1/p' <<<"$out")
	until "$SWEEP" status "$id" --json >status.json 2>/dev/null && /usr/bin/python3 -c '
import json, sys
s = json.load(open("status.json"))
sys.exit(0 if len(s["tasks"]) == int(sys.argv[1]) and all(t["state"] not in ("PENDING", "RUNNING", "REQUEUED") for t in s["tasks"]) else 1)' "$TASKS"; do
		sleep 1
	done
	ids=$(sqlite3 "$SWEEP_STATE_DIR/sweep.db" "select group_concat(job_id) from arrays where sweep_id = $id")
	for _ in $(seq 60); do # accounting lags the queue
		sacct -n -P -X -j "$ids" -o State,Start,End,ElapsedRaw >"$1.acct"
		[ "$(grep -c -v -E '^(PENDING|RUNNING)|\|Unknown\|' "$1.acct")" = "$TASKS" ] && break
		sleep 1
	done
	grep -c '^COMPLETED|' "$1.acct" | grep -qx "$TASKS" || { echo "$1: not every task completed:" >&2; cat "$1.acct" >&2; exit 1; }
	first=$(date -d "$(cut -d'|' -f2 "$1.acct" | sort | head -1)" +%s)
	last=$(date -d "$(cut -d'|' -f3 "$1.acct" | sort | tail -1)" +%s)
	secs=$(awk -F'|' '{s += $4} END {print s}' "$1.acct")
	"$SWEEP" status "$id" --tasks >"$1.status"
	# The reading itself, as each task timed it, and the staging, as each task noted it.
	read_s=$(/usr/bin/python3 -c 'import glob, json, sys; print(round(sum(json.load(open(p))["read_seconds"] for p in glob.glob(sys.argv[1] + "/tasks/*/*/result.json")), 2))' \
		"$SWEEP_STATE_DIR/sweeps/$id")
	stage_s=$(find "$SWEEP_STATE_DIR/sweeps/$id/tasks" -name .staged -exec cat {} + | awk '{s += $1} END {printf "%.2f", s}')
	printf '%.1f %d %d %s %s\n' "$(echo "$last - $t0" | bc)" $((last - first)) "$secs" "$read_s" "$stage_s"
}

figures=$(run unstaged "'$WORK/data'")
read -r u_wall u_span u_secs u_read u_stage <<<"$figures"
figures=$(run staged "{stage}/data" "stage: [data.tar]")
read -r s_wall s_span s_secs s_read s_stage <<<"$figures"
size=$(du -sh data.tar | cut -f1)
printf 'data set: %d files of 4 KiB (%s tar), %d tasks each reading every file once, on %s\n' \
	"$FILES" "$size" "$TASKS" "$(hostname)"
printf 'unstaged: %6.1f s submit to last end, %4d s first start to last end, %4d task-seconds (sacct), reading %6.2f s, staging %6.2f s (summed over tasks)\n' \
	"$u_wall" "$u_span" "$u_secs" "$u_read" "$u_stage"
printf 'staged:   %6.1f s submit to last end, %4d s first start to last end, %4d task-seconds (sacct), reading %6.2f s, staging %6.2f s (summed over tasks)\n' \
	"$s_wall" "$s_span" "$s_secs" "$s_read" "$s_stage"
grep '^staging:' staged.status || echo "staged: no staging line in status" >&2
awk -v a="$s_wall" -v b="$u_wall" -v c="$s_secs" -v d="$u_secs" -v e="$s_read" -v f="$s_stage" -v g="$u_read" 'BEGIN {
	printf "staged / unstaged: %.2fx wall (submit to last end), %.2fx task-seconds, %.2fx reading + staging\n", a / b, (d ? c / d : 0), (g ? (e + f) / g : 0) }'
