#!/bin/bash
# The %K throttle holds: never more than K tasks of the sweep run at once,
# both as sampled from the queue while it runs and as recorded by accounting.
. "$(dirname "$0")/lib.sh"
cluster_up
submit "$DATA/sweeps/throttle.yaml"
grep -q '^#SBATCH --array=0-11%3$' "$(sweep_dir)/throttle.sbatch" || fail "no %3 throttle in the script"

max_seen=0
deadline=$((SECONDS + 300))
while ! queue_empty; do
	running=$(squeue -h -r -t RUNNING -j "$(jobs_csv)" | grep -c . || true)
	((running > max_seen)) && max_seen=$running
	((running <= 3)) || fail "$running tasks running at once, throttle is 3"
	((SECONDS < deadline)) || fail "sweep did not finish in time"
	sleep 0.5
done
log "at most $max_seen tasks ran at once (sampled)"
((max_seen >= 2)) || fail "never saw more than $max_seen task running: the sample proves nothing"
wait_sweep 12 60

# Accounting: the largest number of overlapping [start, end) intervals.
overlap=$(sacct -n -P -X -j "$(jobs_csv)" -o Start,End | python3 -c '
import sys, datetime
ev = []
for line in sys.stdin:
    s, e = line.strip().split("|")
    p = lambda t: datetime.datetime.fromisoformat(t).timestamp()
    ev += [(p(s), 1), (p(e), -1)]
cur = best = 0
for _, d in sorted(ev, key=lambda x: (x[0], x[1])):
    cur += d; best = max(best, cur)
print(best)')
log "at most $overlap tasks overlapped (accounting)"
((overlap <= 3)) || fail "accounting shows $overlap tasks overlapping, throttle is 3"
log "ok"
