#!/bin/bash
# A refresh of plain status asks only for what is not kept (issue 36): a
# sweep of 60 tasks over two array jobs (MaxArraySize 50 here; at most 2
# at once, so the rest pend and the node stays free for the other tests)
# whose tasks 0-29 end at once and 30-59 wait for a file. Once 0-29 are kept, with some gated tasks running, one of
# them requeued, and the rest pending, status names the tasks not kept:
# slurmdbd returns fewer job records than a --refresh (which reads every
# record), counted by SWEEP_DEBUG_QUERIES, and its output is the same. The
# pending record, which no (array job, task) pair names, comes from a
# second query. When every task ended, status still matches --refresh,
# and the requeued task shows its restart.
# With KEPT_WINDOW=1 (test_kept_window), no task is named
# (SWEEP_DEBUG_NAMED=0, as an array of thousands of tasks not kept): a
# refresh reads the rows that had not ended or ended since the last read
# (the pending record among them), and still returns fewer records than --refresh once the
# kept tasks ended over a minute (the margin) before that read.
. "$(dirname "$0")/lib.sh"
if [ "${KEPT_WINDOW:-0}" = 1 ]; then export SWEEP_DEBUG_NAMED=0; fi
cluster_up

# queries CMD...: runs sweep with SWEEP_DEBUG_QUERIES=1, stdout to out.txt,
# stderr to err.txt; prints the debug line.
queries() {
	SWEEP_DEBUG_QUERIES=1 "$SWEEP" "$@" >out.txt 2>err.txt || fail "sweep $* failed: $(cat err.txt)"
	grep '^sweep: accounting queries:' err.txt | tail -1
}
# records LINE: the job records slurmdbd returned, from a debug line.
records() { sed -n 's/.* \([0-9]*\) job records\{0,1\} returned.*/\1/p' <<<"$1"; }
kept_tasks() { sed -n 's/.*; \([0-9]*\) tasks\{0,1\} of the asked ones.*/\1/p' <<<"$1"; }

GO="$WORK/go file"
cat >kept-refresh.yaml <<YAML
name: kept-refresh
command: |
  if [ "\$SWEEP_TASK_INDEX" -ge 30 ]; then
    for i in \$(seq 900); do [ -e '$GO' ] && break; sleep 1; done
  fi
  echo '{{"value": {seed}}}' > "\$SWEEP_RESULT"
grid:
  p: [1, 2, 3, 4, 5, 6]
seeds: 10
slurm:
  time: "20"
  mem: 50M
  max_concurrent: 2
YAML
submit kept-refresh.yaml
trap 'touch "$GO"; cleanup' EXIT
[ ${#JOBS[@]} -ge 2 ] || fail "expected the sweep split over several array jobs: ${JOBS[*]}"
first=${JOBS[0]}

short_done() { [ "$(sacct -n -X -P -j "$first" -o JobID,State | awk -F'|' '{ split($1, a, "_"); if (a[2] + 0 < 30 && $2 == "COMPLETED") n++ } END { print n + 0 }')" -ge 30 ]; }
wait_until 400 "tasks 0-29 to end" short_done
gated_running() { squeue -h -r -j "$first" -t R -o %K | awk '$1 >= 30' | grep -q .; }
wait_until 300 "a gated task to run" gated_running
task=$(squeue -h -r -j "$first" -t R -o %K | awk '$1 >= 30' | sort -n | head -1)
log "requeueing task $task while it runs"
scontrol requeue "${first}_$task" || fail "scontrol requeue ${first}_$task failed"
requeued() { sacct -n -X -P -D -j "${first}_$task" -o State | grep -q REQUEUED; }
wait_until 60 "accounting to record the requeue" requeued
# Other tests' jobs may hold the node's CPUs: the requeued task may have
# been the only one running. Wait for one to run again.
wait_until 300 "a gated task to run after the requeue" gated_running
# slurmdbd hears of a start and of the requeued task's new run a moment
# after squeue shows them: until then status shows the task MISSING.
settled() {
	"$SWEEP" status --refresh "$SWEEP_ID" >settled.txt 2>/dev/null || return 1
	grep -q RUNNING settled.txt && ! grep -q MISSING settled.txt
}
wait_until 60 "accounting to record the running tasks" settled

# Plain status keeps the finished tasks one by one as it reads them.
thirty_kept() { local n; n=$(kept_tasks "$(queries status "$SWEEP_ID")"); [ "${n:-0}" -ge 30 ]; }
wait_until 120 "tasks 0-29 to be kept" thirty_kept
if [ "${KEPT_WINDOW:-0}" = 1 ]; then
	# The read after the margin has passed since the kept tasks' ends moves
	# the window past them (the requeued run's end, not kept, bounds it).
	last_end=$(sacct -n -X -P -j "$first" -o JobID,End | awk -F'|' '$1 ~ /_[0-9]+$/ { split($1, a, "_"); if (a[2] + 0 < 30) print $2 }' | sort | tail -1)
	wait_s=$(($(date -d "$last_end" +%s) + 65 - $(date +%s)))
	log "waiting ${wait_s}s for the margin past the last kept task's end ($last_end)"
	((wait_s <= 0)) || sleep "$wait_s"
	queries status "$SWEEP_ID" >/dev/null
fi

# Same output, fewer records: the kept read against a --refresh (which reads
# every record and keeps them anew: a plain read follows it). The tasks are
# gated, so nothing changes between the reads but the requeued task's start.
same=0
for attempt in 1 2 3; do
	all=$(queries status --refresh "$SWEEP_ID")
	cp out.txt refresh.txt
	line=$(queries status "$SWEEP_ID")
	if cmp -s out.txt refresh.txt; then
		same=1
		break
	fi
	log "status changed between reads (attempt $attempt): $(diff out.txt refresh.txt | tr '\n' ' ')"
done
((same)) || fail "status from kept records differs from --refresh"
log "--refresh: $all"
log "kept:      $line"
n_all=$(records "$all")
n_kept=$(records "$line")
[ -n "$n_all" ] && [ -n "$n_kept" ] || fail "no record count in the debug lines"
((n_kept < n_all)) || fail "the kept read asked for $n_kept records, --refresh for $n_all"
((n_all - n_kept >= 20)) || fail "the kept read should not ask for the 30 kept tasks: $n_kept against $n_all"
# Windowed: the second array job (nothing kept) whole, then the first's
# rows that ended since the last read, pending record included.
[[ $line == "sweep: accounting queries: 2 "* ]] ||
	fail "the tasks not kept, then the pending record (2 queries) expected: $line"
grep -q PENDING out.txt || fail "no pending task shown: $(cat out.txt)"
grep -q RUNNING out.txt || fail "no running task shown: $(cat out.txt)"
grep -qi 'no record' out.txt && fail "tasks shown without a record: $(cat out.txt)"

touch "$GO"
wait_sweep 60 600
completed_once 60 || fail "tasks did not complete once each"
"$SWEEP" status --tasks --refresh "$SWEEP_ID" >refresh.txt 2>/dev/null || fail "status --refresh failed"
for attempt in 1 2 3 4 5; do
	line=$(queries status "$SWEEP_ID")
	queries status --tasks "$SWEEP_ID" >/dev/null
	cmp -s out.txt refresh.txt && break
	sleep 5
done
diff out.txt refresh.txt >&2 || fail "status --tasks from kept records differs from --refresh"
grep -q 'COMPLETED 60' <("$SWEEP" status "$SWEEP_ID" 2>/dev/null) || fail "not every task completed: $("$SWEEP" status "$SWEEP_ID" 2>&1)"
"$SWEEP" status --tasks --json "$SWEEP_ID" >status.json 2>/dev/null
python3 - "$task" <<'PY'
import json, sys
t = {x["index"]: x for x in json.load(open("status.json"))["tasks"]}
i = int(sys.argv[1])
assert t[i]["state"] == "COMPLETED" and t[i]["restarts"] >= 1, t[i]
print("the requeued task completed after", t[i]["restarts"], "restart(s)")
PY
log "ok"
