#!/bin/bash
# A sweep of one-second tasks on the test cluster, submitted as a user would:
# wall time from `sweep submit` to the last task's end, and the job records
# slurmctld holds at peak (every array task is one, kept MinJobAge after it
# ends), for each pack given. Prints figures; passes or fails nothing.
#
#   bench/rolling_pack.sh [TASKS] [BUILD] [PACK...]     (default: 10000 build 1 20)
#
# Run it alone on the cluster (through /work/tools/itest-excl, or an idle
# machine): it takes the node for minutes, and other jobs change the figures.
set -euo pipefail
TASKS=${1:-10000}
BUILD=$(cd "${2:-build}" && pwd)
shift 2 2>/dev/null || shift $#
PACKS=("$@")
[ ${#PACKS[@]} -gt 0 ] || PACKS=(1 20)
SWEEP=$BUILD/sweep
WORK=$(mktemp -d /tmp/sweep-bench-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
export SWEEP_STATE_DIR=$WORK/.sweep
seeds=$(( TASKS / 100 ))

records() { squeue -h -r -t all 2>/dev/null | wc -l; }

for pack in "${PACKS[@]}"; do
	cat >sweep.yaml <<YAML
name: bench-pack$pack
command: |
  sleep 1
  echo '{{"value": {x}}}' > "\$SWEEP_RESULT"
seeds: $seeds
grid:
  x: [$(seq -s, 0 99)]
pack: $pack
slurm:
  time: "2"
  signal: USR1@10
  mem: 50M
YAML
	base=$(records)
	t0=$(date +%s.%N)
	out=$("$SWEEP" submit sweep.yaml)
	id=$(sed -n 's/^sweep \([0-9]*\) .*/\1/p' <<<"$out")
	peak=$base
	while :; do
		n=$(records)
		((n > peak)) && peak=$n
		"$SWEEP" status "$id" --json >status.json 2>/dev/null || true
		if python3 -c '
import json, sys
s = json.load(open("status.json"))
sys.exit(0 if len(s["tasks"]) == int(sys.argv[1]) and all(t["state"] in ("COMPLETED", "FAILED", "TIMEOUT", "CANCELLED", "OUT_OF_MEMORY", "NODE_FAIL") for t in s["tasks"]) else 1)' "$TASKS" 2>/dev/null; then
			break
		fi
		sleep 5
	done
	ids=$(sqlite3 "$SWEEP_STATE_DIR/sweep.db" "select group_concat(job_id) from arrays where sweep_id = $id")
	last=$(sacct -n -P -X -j "$ids" -o End | grep -v Unknown | sort | tail -1)
	t_last=$(date -d "$last" +%s)
	completed=$(python3 -c 'import json; print(sum(t["state"] == "COMPLETED" for t in json.load(open("status.json"))["tasks"]))')
	narrays=$(tr , '\n' <<<"$ids" | wc -l)
	printf 'pack %-3s %6d tasks: %5.0f s from submit to the last task end, %d completed, %d array jobs, slurmctld job records at peak %d (%d before)\n' \
		"$pack" "$TASKS" "$(echo "$t_last - $t0" | bc)" "$completed" "$narrays" "$peak" "$base"
done
