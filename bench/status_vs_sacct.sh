#!/bin/bash
# sweep status and sweep report against sacct on the same finished sweep, in
# the same run. Needs the local cluster (tests/cluster/up) and a build.
#
#   bench/status_vs_sacct.sh [TASKS] [BUILD_DIR]     (default 2000 tasks, build/)
#
# Prints the median wall time of 5 runs of each command and the peak memory
# of sweep's, and the ratios sweep/sacct. Figures only: it passes or fails
# nothing. Targets: no slower than 1.2x `sacct -j`, under 30 MB for 10,000 tasks.
set -euo pipefail
tasks=${1:-2000}
top=$(cd "$(dirname "$0")/.." && pwd)
sweep=$(cd "${2:-$top/build}" && pwd)/sweep
command -v /usr/bin/time >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -q time >/dev/null
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

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# bench_cmd NAME CMD...: median seconds of 5 runs, and max RSS in KB of the last
bench_cmd() {
	local name=$1 t rss
	shift
	"$@" >/dev/null 2>&1 || true   # warm-up (page cache, munge)
	t=$(for _ in 1 2 3 4 5; do
		/usr/bin/time -f '%e %M' -o time.out "$@" >/dev/null 2>&1 || true
		cut -d' ' -f1 time.out
	done | median)
	rss=$(cut -d' ' -f2 time.out)
	printf '%-34s %7.3f s  %8.1f MB\n' "$name" "$t" "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')"
	eval "T_${name//[^a-zA-Z]/_}=$t"
}
echo
printf '%-34s %9s  %11s\n' command "wall" "peak RSS"
bench_cmd "sacct -j (all rows, like sweep)" sacct -n -P -j "$jobs" -o JobID,State,ExitCode,Elapsed,MaxRSS
bench_cmd "sacct -X -j (allocations only)" sacct -n -P -X -j "$jobs" -o JobID,State,ExitCode,Elapsed
bench_cmd "sweep status" "$sweep" status
bench_cmd "sweep status --tasks --json" "$sweep" status --tasks --json
bench_cmd "sweep report" "$sweep" report
echo
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
echo "sweep status / sacct -j : $(ratio "$T_sweep_status" "$T_sacct__j__all_rows__like_sweep_")"
echo "sweep report / sacct -j : $(ratio "$T_sweep_report" "$T_sacct__j__all_rows__like_sweep_")"
rm -rf "$work"
