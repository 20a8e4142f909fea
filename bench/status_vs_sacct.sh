#!/bin/bash
# sweep status and sweep report against sacct on the same finished sweep, in
# the same run. Needs the local cluster (tests/cluster/up) and a build.
#
#   bench/status_vs_sacct.sh [TASKS] [BUILD_DIR]     (default 2000 tasks, build/)
#
# Prints the median wall time of 5 runs of each command and the peak memory
# of sweep's, the slurmdbd queries each sweep command sent
# (SWEEP_DEBUG_QUERIES=1), and the ratios sweep/sacct. Figures only: it
# passes or fails nothing. Targets (issue 12): a first read (--refresh) at
# most 0.5x `sacct -j` asking the same fields, a repeated read of the
# finished sweep (from the state store, no query) at most 0.1x and 30 ms,
# under 30 MB for 10,000 tasks.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
tasks=${1:-2000}
top=$(cd "$(dirname "$0")/.." && pwd)
sweep=$(cd "${2:-$top/build}" && pwd)/sweep
work=$(mktemp -d /tmp/sweep-bench-XXXXXX)
cd "$work"
export SWEEP_STATE_DIR=$work/.sweep
seeds=20
cat >bench.yaml <<YAML
name: bench
command: |
  echo "{\"x\": \$SWEEP_SEED, \"p\": \$SWEEP_SETTING}" > "\$SWEEP_RESULT"
seeds: $seeds
grid:
  p: [$(seq -s, 1 $((tasks / seeds)))]
slurm:
  time: "5"
  mem: 20M
YAML
echo "submitting $tasks tasks..."
"$sweep" submit bench.yaml >submit.out
jobs=$(sed -n 's/^array job \([0-9]*\):.*/\1/p' submit.out | paste -sd,)
echo "array jobs: $(wc -w <<<"${jobs//,/ }")"
start=$SECONDS
while [ -n "$(squeue -h -r -j "$jobs" 2>/dev/null | head -1)" ]; do
	sleep 5
	echo "  waiting: $(squeue -h -r -j "$jobs" | wc -l) tasks left ($((SECONDS - start)) s)"
done
# let accounting catch up with the last tasks
until [ "$(sacct -n -X -P -j "$jobs" -o State | grep -c COMPLETED)" -ge "$tasks" ]; do sleep 2; done
echo "all $tasks tasks completed in $((SECONDS - start)) s"

# bench_cmd NAME CMD...: median seconds of 5 runs, and max RSS in KB of the last
bench_cmd() {
	local name=$1 t rss
	shift
	"$@" >/dev/null 2>&1 || true   # warm-up (page cache, munge)
	read -r t rss < <(timed_rss 5 "$@")
	printf '%-40s %7.3f s  %8.1f MB\n' "$name" "$t" "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')"
	eval "T_${name//[^a-zA-Z]/_}=$t"
}
queries_of() { sweep_queries "$sweep" "$@"; }
echo
printf '%-40s %9s  %11s\n' command "wall" "peak RSS"
bench_cmd "sacct -j (all rows, like sweep)" sacct -n -P -j "$jobs" -o JobID,State,ExitCode,Elapsed,MaxRSS,Start,End,ReqMem,Timelimit
bench_cmd "sacct -X -j (allocations only)" sacct -n -P -X -j "$jobs" -o JobID,State,ExitCode,Elapsed,Start,End,ReqMem,Timelimit
# A first read: --refresh asks slurmdbd about everything (and keeps it again).
bench_cmd "sweep report --refresh" "$sweep" report --refresh
bench_cmd "sweep status --refresh" "$sweep" status --refresh
bench_cmd "sweep status --tasks --json --refresh" "$sweep" status --tasks --json --refresh
# Repeated reads of the finished sweep: from the state store.
bench_cmd "sweep report" "$sweep" report
bench_cmd "sweep status" "$sweep" status
bench_cmd "sweep status --tasks --json" "$sweep" status --tasks --json
echo
echo "slurmdbd queries: report --refresh $(queries_of report --refresh)," \
	"status --refresh $(queries_of status --refresh)," \
	"status --tasks --json --refresh $(queries_of status --tasks --json --refresh);" \
	"then report $(queries_of report), status $(queries_of status)," \
	"status --tasks --json $(queries_of status --tasks --json)"
echo
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
ref=$T_sacct__j__all_rows__like_sweep_
ms() { awk -v a="$1" 'BEGIN { printf "%.0f ms", a * 1000 }'; }
echo "sweep report --refresh / sacct -j        : $(ratio "$T_sweep_report___refresh" "$ref") (target <= 0.5)"
echo "sweep status --refresh / sacct -j        : $(ratio "$T_sweep_status___refresh" "$ref") (target <= 0.5)"
echo "sweep status --tasks --json --refresh / sacct -j : $(ratio "$T_sweep_status___tasks___json___refresh" "$ref")"
echo "sweep report (kept) / sacct -j           : $(ratio "$T_sweep_report" "$ref"), $(ms "$T_sweep_report") (target <= 0.1, 30 ms)"
echo "sweep status (kept) / sacct -j           : $(ratio "$T_sweep_status" "$ref"), $(ms "$T_sweep_status") (target <= 0.1, 30 ms)"
echo "sweep status --tasks --json (kept) / sacct -j : $(ratio "$T_sweep_status___tasks___json" "$ref"), $(ms "$T_sweep_status___tasks___json")"
rm -rf "$work"
