#!/bin/bash
# Task folders at TASKS tasks (issue 36, item 5), for two builds side by
# side: OLD (one folder per task in tasks/, as before) and NEW (grouped by
# the thousand, tasks/<index / 1000>/<index>). For each build, a sweep of
# TASKS tasks is submitted with --local and cancelled at once; then its
# task folders are made as TASKS tasks that ran would leave them (the path
# from the generated script's own SWEEP_TASK_DIR line, each folder with its
# notes .ran and .exit.<job id> and a result.json), and the store records
# every task COMPLETED, so that status and report read a finished sweep of
# TASKS tasks without running them (the local runner starts ~30 tasks/s
# here: 100,000 would take an hour per build). Prints, per build:
#   - submit: wall seconds and peak memory of `sweep submit --local`, and the
#     inodes under the state folder right after (what submit itself makes);
#   - the folders the tasks make: inodes under the state folder at the end,
#     the most entries in one folder, and the seconds to make them all;
#   - mkdir: the task script's `mkdir -p "$SWEEP_TASK_DIR"`, 1,000 more tasks
#     as separate processes in the full tree (ms per task);
#   - status, status --tasks and report on the finished sweep: wall seconds
#     and peak memory (report reads every task's result.json).
# Figures only: it passes or fails nothing. Needs no Slurm.
#
#   bench/task_folders.sh OLD_BUILD NEW_BUILD [TASKS]   (default TASKS: 100000)
set -euo pipefail
OLD=$(cd "${1:?usage: bench/task_folders.sh OLD_BUILD NEW_BUILD [TASKS]}" && pwd)
NEW=$(cd "${2:?usage: bench/task_folders.sh OLD_BUILD NEW_BUILD [TASKS]}" && pwd)
TASKS=${3:-100000}
WORK=$(mktemp -d /tmp/sweep-bench-folders-XXXXXX)
trap 'rm -rf "$WORK"' EXIT

# timed OUT CMD...: runs CMD, appends "SECONDS PEAK_KB" to OUT.
timed() {
	local out=$1
	shift
	/usr/bin/time -o "$out" -a -f '%e %M' "$@"
}

# Most entries in one folder under $1.
widest() {
	find "$1" -mindepth 1 -printf '%h\n' | sort | uniq -c | sort -n | tail -1 | awk '{ print $1 }'
}

run() {
	local side=$1 build=$2 dir=$WORK/$1 sweep_dir line t0 t1
	mkdir -p "$dir"
	cd "$dir"
	export SWEEP_STATE_DIR=$dir/state
	printf '%s\n' 'name: folders' 'command: "true"' "seeds: $TASKS" >folders.yaml
	timed submit.time "$build/sweep" submit --local folders.yaml >submit.out
	"$build/sweep" cancel 1 >/dev/null 2>&1 || true
	sweep_dir=$SWEEP_STATE_DIR/sweeps/1
	# What submit made (the runner may have started a task or two meanwhile: not counted).
	find "$SWEEP_STATE_DIR" -path "$sweep_dir/tasks" -prune -o -print | wc -l >inodes.submit
	# Wait for the cancelled runner's tasks to end before the store is rewritten.
	for _ in $(seq 100); do
		"$build/sweep" status 1 2>/dev/null | grep -q RUNNING || break
		sleep 0.1
	done

	line=$(grep -m1 '^SWEEP_TASK_DIR=' "$sweep_dir/folders.sbatch")
	printf '%s\n' "$line" >layout
	t0=$(date +%s.%N)
	# Every task's folder, computed as its script computes it.
	SWEEP_DIR=$sweep_dir TASKS=$TASKS LINE=$line bash -c '
		for ((SWEEP_TASK_INDEX = 0; SWEEP_TASK_INDEX < TASKS; SWEEP_TASK_INDEX++)); do
			eval "$LINE"
			printf "%s\n" "$SWEEP_TASK_DIR"
		done' |
		/usr/bin/python3 -c '
import os, sys
os.umask(0o077)
for i, line in enumerate(sys.stdin):
    d = line.rstrip("\n")
    os.makedirs(d, exist_ok=True)
    job = 100000 + i
    for name, text in ((".ran", f"{job}\thost\t/usr/bin/true\n"), (f".exit.{job}", "0\n"),
                       ("result.json", "{\"loss\": %.6f}\n" % (0.5 + (i % 13) * 1e-3))):
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
'
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", b - a }' >made.seconds
	/usr/bin/python3 - "$SWEEP_STATE_DIR/sweep.db" <<'PY'
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1])
now = int(time.time())
db.execute("UPDATE local_tasks SET state = 'COMPLETED', exit_code = 0, signal = 0,"
           " start_time = ?, end_time = ?, maxrss_bytes = 1048576, cpu_us = 1000", (now - 60, now - 50))
db.commit()
PY
	find "$SWEEP_STATE_DIR" | wc -l >inodes.end
	widest "$SWEEP_STATE_DIR" >widest
	# The task script's mkdir for 1,000 more tasks, one process each; the
	# best of three rounds (the CPUs are shared). Seconds for 1,000 tasks =
	# milliseconds per task.
	for round in 0 1 2; do
		t0=$(date +%s.%N)
		SWEEP_DIR=$sweep_dir FIRST=$((TASKS + round * 1000)) LINE=$line bash -c '
			for ((SWEEP_TASK_INDEX = FIRST; SWEEP_TASK_INDEX < FIRST + 1000; SWEEP_TASK_INDEX++)); do
				eval "$LINE"
				mkdir -p "$SWEEP_TASK_DIR"
			done'
		t1=$(date +%s.%N)
		awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f\n", b - a }'
	done | sort -n | head -1 >mkdir.seconds
	sync
	# Warm, then the best of three (the CPUs are shared).
	"$build/sweep" report 1 >/dev/null 2>&1 || true
	for _ in 1 2 3; do
		timed status.time "$build/sweep" status 1 >status.out 2>&1 || true
		timed tasks.time "$build/sweep" status 1 --tasks >tasks.out 2>&1 || true
		timed report.time "$build/sweep" report 1 >report.out 2>&1 || true
	done
	for f in status tasks report; do sort -n "$f.time" | head -1 >"$f.best"; done
	cd "$WORK"
}

run old "$OLD"
run new "$NEW"

field() { awk -v n="$3" 'NR == n { print $'"$2"' }' "$WORK/$1"; }
printf '\n%s tasks (--local, folders made as ran tasks leave them)\n' "$TASKS"
printf '%-44s %18s %18s\n' '' old new
printf '%-44s %18s %18s\n' 'task folder' "$(sed 's/^SWEEP_TASK_DIR=//' "$WORK/old/layout")" \
	"$(sed 's/^SWEEP_TASK_DIR=//' "$WORK/new/layout" | sed 's/\$(( SWEEP_TASK_INDEX \/ 1000 ))/<i\/1000>/')"
printf '%-44s %17ss %17ss\n' 'submit --local: wall' "$(field old/submit.time 1 1)" "$(field new/submit.time 1 1)"
printf '%-44s %16sKB %16sKB\n' 'submit --local: peak memory' "$(field old/submit.time 2 1)" "$(field new/submit.time 2 1)"
printf '%-44s %18s %18s\n' 'inodes submit made (tasks/ aside)' "$(cat "$WORK/old/inodes.submit")" "$(cat "$WORK/new/inodes.submit")"
printf '%-44s %18s %18s\n' 'inodes once every task made its folder' "$(cat "$WORK/old/inodes.end")" "$(cat "$WORK/new/inodes.end")"
printf '%-44s %18s %18s\n' 'most entries in one folder' "$(cat "$WORK/old/widest")" "$(cat "$WORK/new/widest")"
printf '%-44s %17ss %17ss\n' 'making them (one process, mkdir + 3 files)' "$(cat "$WORK/old/made.seconds")" "$(cat "$WORK/new/made.seconds")"
printf '%-44s %16sms %16sms\n' "task script's mkdir -p, per task (best of 3)" \
	"$(cat "$WORK/old/mkdir.seconds")" "$(cat "$WORK/new/mkdir.seconds")"
printf '%-44s %17ss %17ss\n' 'status (best of 3)' "$(field old/status.best 1 1)" "$(field new/status.best 1 1)"
printf '%-44s %17ss %17ss\n' 'status --tasks (best of 3)' "$(field old/tasks.best 1 1)" "$(field new/tasks.best 1 1)"
printf '%-44s %17ss %17ss\n' 'report: reads every result.json (best of 3)' "$(field old/report.best 1 1)" "$(field new/report.best 1 1)"
printf '%-44s %16sKB %16sKB\n' 'report: peak memory' "$(field old/report.best 2 1)" "$(field new/report.best 2 1)"
for side in old new; do
	printf '%s status: %s\n' "$side" "$(head -3 "$WORK/$side/status.out" | tr '\n' ' ')"
	printf '%s report: %s\n' "$side" "$(grep -m1 -E 'loss|error' "$WORK/$side/report.out" || head -1 "$WORK/$side/report.out")"
done
