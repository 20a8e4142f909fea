#!/bin/bash
# What watching a running sweep costs the daemons and the reader (issue 26),
# on the local cluster, in one run: a sweep of TASKS tasks of which all but
# LONG end in a second and LONG keep running, so most records are kept;
# then, with nothing else polling:
# - the time of one refresh of `sweep status --tasks` (the running tasks'
#   records and the steps of tasks that ended since the last one), median
#   of 5, against `sacct -j` of the same array jobs, and the slurmdbd
#   queries each refresh sent (SWEEP_DEBUG_QUERIES);
# - the read RPCs slurmctld (sdiag) and slurmdbd (sacctmgr show stats)
#   answered while `sweep status --tasks --watch=INTERVAL` ran for WINDOW
#   seconds, against the same window polled with `squeue` and `sacct -j`
#   at the same interval, and against the window with nothing polling (the
#   running jobs' own RPCs are the other types and are left out).
# Figures only: it passes or fails nothing. Needs a quiet cluster (other
# users' reads count too) and a build.
#
#   bench/watch_load.sh [TASKS] [BUILD_DIR] [LONG] [INTERVAL] [WINDOW]
#   (defaults 500 build 20 5 60)
#
# WATCH_MODE=records (issue 36): what one refresh asks slurmdbd for as a
# big sweep ends. A sweep of TASKS tasks of a second each (default 10,000
# here) in one array job, read by plain `sweep status` every INTERVAL
# seconds as --watch reads it (each read keeps the tasks that ended). At
# the refresh that sees 10%, 50% and 90% of the tasks ended (WATCH_AT,
# percents), it prints the job records slurmdbd returned to it, its
# queries and seconds (SWEEP_DEBUG_QUERIES), and those of one `status
# --refresh`, which reads every record of the array job, as each refresh
# did before issue 36 (with several array jobs, it reads the finished ones
# too, which refreshes did not). (`status --tasks` needs steps, which tasks kept by
# plain reads lack: a watch with --tasks keeps its own.) LONG and WINDOW
# are not used. The cluster's limits are raised for the run as
# bench/big_sweep.sh raises them: WATCH_MAX_ARRAY (default TASKS + 1: one
# array job), WATCH_MAX_JOBS (default 6 x TASKS), WATCH_CPUS and
# WATCH_MSG_TIMEOUT (as is by default); the caller's configuration is put
# back at the end.
#
# WATCH_MD=FILE: the rows also in Markdown, to FILE (WATCH_CMD: the
# command line it names); bench/readme_tables puts it into README.md.
#
#   WATCH_MODE=records bench/watch_load.sh [TASKS] [BUILD_DIR] [-] [INTERVAL]
#   (defaults 10000 build - 5)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
mode=${WATCH_MODE:-rpc}
[ "$mode" = records ] || [ "$mode" = rpc ] || { echo "WATCH_MODE is rpc or records" >&2; exit 2; }
tasks=${1:-$([ "$mode" = records ] && echo 10000 || echo 500)}
top=$(cd "$(dirname "$0")/.." && pwd)
sweep=$(cd "${2:-$top/build}" && pwd)/sweep
long=${3:-20}
interval=${4:-5}
window=${5:-60}
[ -z "${WATCH_MD:-}" ] || WATCH_MD=$(realpath -m -- "$WATCH_MD")
work=$(mktemp -d /tmp/sweep-bench-watch-XXXXXX)
cd "$work"
export SWEEP_STATE_DIR=$work/.sweep
# The configuration goes back first: a task still ending may write a log
# while the folder is removed.
trap '"$sweep" cancel >/dev/null 2>&1 || true; cluster_restore; rm -rf "$work" 2>/dev/null || true' EXIT

# read_once ARGS...: one `sweep ARGS` with SWEEP_DEBUG_QUERIES=1, stdout in
# read.out; prints "RECORDS QUERIES SECONDS" of that read.
read_once() {
	local t0 t1 line
	t0=$(date +%s.%N)
	SWEEP_DEBUG_QUERIES=1 "$sweep" "$@" >read.out 2>read.err || true
	t1=$(date +%s.%N)
	line=$(sed -n 's/^sweep: accounting queries: //p' read.err | tail -1)
	awk -v l="$line" -v a="$t0" -v b="$t1" 'BEGIN {
		q = l; sub(/ .*/, "", q)
		r = l; if (!sub(/ job records? returned.*/, "", r)) r = "?"; else sub(/.* /, "", r)
		printf "%s %s %.2f\n", r, q, b - a }'
}

if [ "$mode" = records ]; then
	cluster_limits "${WATCH_MAX_ARRAY:-$((tasks + 1))}" "${WATCH_MAX_JOBS:-$((tasks * 6))}" \
		"${WATCH_CPUS:-}" "${WATCH_MSG_TIMEOUT:-}"
	cat >records.yaml <<YAML
name: watch-records
command: |
  sleep 1
  echo "{\"x\": \$SWEEP_SEED}" > "\$SWEEP_RESULT"
seeds: 10
grid:
  p: [$(seq -s, 1 $((tasks / 10)))]
slurm:
  time: "20"
  mem: 20M
YAML
	"$sweep" submit records.yaml >submit.out
	echo "$tasks tasks in $(grep -c '^array job ' submit.out) array job(s) (MaxArraySize $(scontrol show config | awk '$1 == "MaxArraySize" { print $3 }')); plain status every $interval s"
	read -r -a at <<<"${WATCH_AT:-10 50 90}"
	rows=()
	k=0
	start=$SECONDS
	while ((k < ${#at[@]})); do
		refresh=$(read_once status)
		ended=$(awk '$NF == "done" { split($(NF - 1), a, "/"); n = a[1] } END { print n + 0 }' read.out)
		if ((${ended:-0} * 100 >= at[k] * tasks)); then
			whole=$(read_once status --refresh)
			rows+=("$(printf '%3s%% (%6s ended) | %8s %8s %8s | %8s %8s' "${at[k]}" "$ended" \
				$refresh $(cut -d' ' -f1,3 <<<"$whole"))")
			echo "  ${at[k]}% ended after $((SECONDS - start)) s" >&2
			k=$((k + 1))
			continue
		fi
		((SECONDS - start < 7200)) || { echo "gave up: ${ended:-0} of $tasks ended in 2 h" >&2; exit 1; }
		sleep "$interval"
	done
	echo
	echo "records slurmdbd returned per refresh (kept tasks are not asked for again):"
	echo "ended               |  records  queries  seconds | --refresh: records  seconds (every record, as each refresh before)"
	printf '%s\n' "${rows[@]}"
	if [ -n "${WATCH_MD:-}" ]; then
		{
			echo "$tasks one-second tasks in $(grep -c '^array job ' submit.out) array job(s), plain \`status\` every $interval s; run of $(date -u '+%F %H:%M') UTC, \`${WATCH_CMD:-WATCH_MODE=records bench/watch_load.sh $tasks}\`:"
			echo
			echo "| ended | job records returned | queries | seconds | \`status --refresh\`: records | seconds |"
			echo "| --- | --- | --- | --- | --- | --- |"
			for r in "${rows[@]}"; do
				# "10% (  1000 ended) | R Q S | R S"
				read -r pct n _ bar r1 q1 s1 bar2 r2 s2 <<<"${r//[()]/ }"
				echo "| $pct ($n) | $r1 | $q1 | $s1 | $r2 | $s2 |"
			done
		} >"$WATCH_MD"
	fi
	exit 0
fi

cat >watch.yaml <<YAML
name: watch-bench
command: |
  if [ "\$SWEEP_TASK_INDEX" -ge $((tasks - long)) ]; then sleep 900; else sleep 1; fi
  echo "{\"x\": \$SWEEP_SEED}" > "\$SWEEP_RESULT"
seeds: 10
grid:
  p: [$(seq -s, 1 $((tasks / 10)))]
slurm:
  time: "20"
  mem: 20M
YAML
"$sweep" submit watch.yaml >submit.out
jobs=$(sed -n 's/^array job \([0-9]*\):.*/\1/p' submit.out | paste -sd,)
echo "$tasks tasks in $(wc -w <<<"${jobs//,/ }") array jobs, $long of them running for 15 min"
start=$SECONDS
until [ "$(sacct -n -X -P -j "$jobs" -o State 2>/dev/null | grep -c COMPLETED)" -ge $((tasks - long)) ]; do
	sleep 5
	((SECONDS - start < 1800)) || { echo "gave up waiting for the short tasks" >&2; exit 1; }
done
echo "the $((tasks - long)) short tasks ended in $((SECONDS - start)) s; $long still run"
# A run without MaxRSS (these end in a moment) is kept once it ended 2
# minutes ago (ACCT_CACHE_STATS_SETTLE_S): then keep what ended.
sleep 125
"$sweep" status --tasks >/dev/null 2>&1

# time5 CMD...: the median wall seconds of 5 runs.
time5() { timed_rss 5 "$@" | cut -d' ' -f1; }
t_sacct=$(time5 sacct -n -P -j "$jobs" -o JobID,State,ExitCode,Elapsed,MaxRSS,TotalCPU,Start,End,ReqMem,Timelimit)
t_sweep=$(time5 "$sweep" status --tasks)
q=$(SWEEP_DEBUG_QUERIES=1 "$sweep" status --tasks 2>&1 >/dev/null | sed -n 's/^sweep: accounting queries: //p' | tail -1)
echo
printf 'one refresh of status --tasks: %.3f s; sacct -j of the same jobs: %.3f s; ratio %.2f (target <= 0.2)\n' \
	"$t_sweep" "$t_sacct" "$(awk -v a="$t_sweep" -v b="$t_sacct" 'BEGIN { print a / b }')"
echo "  its queries: $q"

window_of() { local name=$1; shift; rpc_window "$name" "$window" "$interval" "$@"; }
poll() { while :; do squeue -h -r -j "$jobs" >/dev/null; sacct -n -P -j "$jobs" -o JobID,State,MaxRSS >/dev/null; sleep "$interval"; done; }
echo
echo "read RPCs while watching $long running tasks for $window s, every $interval s ($((window / interval)) refreshes):"
window_of "nothing polling (the reference)"
window_of "sweep status --tasks --watch=$interval" "$sweep" status --tasks --watch="$interval"
window_of "squeue -r -j + sacct -j every $interval s" poll
