# Helpers the cluster benchmarks share (sourced, not run): timing with
# peak memory, and the read RPCs slurmctld and slurmdbd answered.

command -v /usr/bin/time >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -q time >/dev/null

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# timed_rss RUNS CMD...: "SECONDS KB": the median wall time of RUNS runs of
# CMD (output discarded, exit code ignored) and the peak RSS of the last.
timed_rss() {
	local runs=$1 i t f
	shift
	f=$(mktemp)
	t=$(for ((i = 0; i < runs; i++)); do
		/usr/bin/time -f '%e %M' -o "$f" "$@" >/dev/null 2>&1 || true
		tail -1 "$f" | cut -d' ' -f1
	done | median)
	echo "$t $(tail -1 "$f" | cut -d' ' -f2)"
	rm -f "$f"
}

# sweep_queries SWEEP ARGS...: how many slurmdbd queries one run of SWEEP
# ARGS sent (it counts them under SWEEP_DEBUG_QUERIES=1).
sweep_queries() {
	SWEEP_DEBUG_QUERIES=1 "$@" 2>&1 >/dev/null |
		sed -n 's/^sweep: accounting queries: \([0-9]*\).*/\1/p' | tail -1
}

# ratio A B: A / B with two decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }

# The read RPCs of the daemons: slurmctld's *_INFO* requests (sdiag's own
# left out), slurmdbd's job queries (DBD_GET_JOBS_COND), its other GET_*
# and its connections (SLURM_PERSIST_INIT; sacctmgr's own stats left out).
# Running jobs' own RPCs (steps, completions, pings) are other types.
ctld_reads() {
	sdiag | sed -n '/by message type/,/by user/p' |
		awk '/REQUEST_[A-Z_]*INFO/ && !/STATS_INFO/ { sub(/count:/, "", $4); n += $4 } END { print n + 0 }'
}
# dbd_count PATTERN: the count of slurmdbd's RPC types matching PATTERN.
dbd_count() {
	sacctmgr -n show stats 2>/dev/null | sed -n '/by message type/,/by user/p' |
		awk -v p="$1" '$1 ~ p && $1 !~ /GET_STATS/ { for (i = 1; i <= NF; i++) if ($i ~ /^count:/) { sub(/count:/, "", $i); n += $i } } END { print n + 0 }'
}
rpc_snapshot() {
	echo "$(ctld_reads) $(dbd_count '^DBD_GET_JOBS_COND$') $(dbd_count '^DBD_GET_') $(dbd_count '^SLURM_PERSIST_INIT$')"
}

# rpc_window NAME WINDOW INTERVAL [CMD...]: runs CMD in the background for
# WINDOW seconds (nothing when no CMD: the reference window) and prints the
# read RPCs the daemons answered per INTERVAL (one refresh).
rpc_window() {
	local name=$1 window=$2 interval=$3 pid="" a b
	shift 3
	a=$(rpc_snapshot)
	if [ $# -gt 0 ]; then
		"$@" >/dev/null 2>&1 &
		pid=$!
	fi
	sleep "$window"
	if [ -n "$pid" ]; then
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	fi
	b=$(rpc_snapshot)
	awk -v a="$a" -v b="$b" -v n=$((window / interval)) -v name="$name" 'BEGIN {
		split(a, x); split(b, y)
		printf "  %-42s per refresh: slurmctld %4.1f; slurmdbd job queries %4.1f, other reads %4.1f, connections %4.1f\n",
			name, (y[1] - x[1]) / n, (y[2] - x[2]) / n, (y[3] - x[3] - y[2] + x[2]) / n, (y[4] - x[4]) / n }'
}

# cluster_limits MAX_ARRAY MAX_JOBS CPUS MSG_TIMEOUT: re-renders the test
# cluster with those limits for a bench (tests/cluster/up with
# SWEEP_CLUSTER_*; an empty one stays as is) and sets LIMITS_RAISED;
# cluster_restore puts the caller's configuration back once slurmctld
# purged the ended jobs' records the default MaxJobCount could not hold.
LIMITS_RAISED=0
# The project's top, found now: a bench may change folder before it calls these.
BENCH_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cluster_limits() {
	local top=$BENCH_TOP
	[ -n "$1$2$3$4" ] || return 0
	LIMITS_RAISED=1
	env ${1:+SWEEP_CLUSTER_MAX_ARRAY=$1} ${2:+SWEEP_CLUSTER_MAX_JOBS=$2} \
		${3:+SWEEP_CLUSTER_CPUS=$3} ${4:+SWEEP_CLUSTER_MSG_TIMEOUT=$4} \
		"$top/tests/cluster/up" >/dev/null
}
cluster_restore() {
	local top=$BENCH_TOP i
	((LIMITS_RAISED)) || return 0
	for ((i = 0; i < 80; i++)); do
		(($(squeue -h -t all 2>/dev/null | wc -l) < 9000)) && break
		sleep 10
	done
	"$top/tests/cluster/up" >/dev/null || true
	LIMITS_RAISED=0
}
