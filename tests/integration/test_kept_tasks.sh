#!/bin/bash
# Tasks kept one by one while their array job still runs: once three of four
# tasks finished and settled, a read of status --tasks takes their records
# from the state store and asks slurmdbd for the array's job records without
# steps, and for steps only of tasks that ended since (none while the fourth
# runs: a running task has no step statistics yet; SWEEP_DEBUG_QUERIES counts
# the job records that came with steps). The kept records are the ones a
# fresh query returns, field by field. When the last task ends, the next
# read asks for its steps alone (a second query), and the array job is then
# kept whole.
. "$(dirname "$0")/lib.sh"
cluster_up

# queries CMD...: runs sweep with SWEEP_DEBUG_QUERIES=1, stdout to out.txt,
# stderr to err.txt; prints the debug line.
queries() {
	SWEEP_DEBUG_QUERIES=1 "$SWEEP" "$@" >out.txt 2>err.txt || fail "sweep $* failed: $(cat err.txt)"
	grep '^sweep: accounting queries:' err.txt | tail -1
}

GO="$WORK/go file"
cat >kept-tasks.yaml <<YAML
name: kept-tasks
command: |
  if [ {seed} = 3 ]; then
    for i in \$(seq 900); do [ -e '$GO' ] && break; sleep 1; done
  fi
  sleep 3
  echo '{{"value": {seed}}}' > "\$SWEEP_RESULT"
seeds: 4
slurm:
  time: "20"
  mem: 100M
YAML
submit kept-tasks.yaml
trap 'touch "$GO"; cleanup' EXIT

three_kept() {
	local line
	line=$(queries status --tasks "$SWEEP_ID")
	[[ $line == *"; 3 tasks of the asked ones from the state store,"* ]]
}
# Three tasks end within a minute; a missing MaxRSS settles in 2 more.
wait_until 420 "three finished tasks to be kept one by one" three_kept
grep -q RUNNING out.txt || fail "the fourth task should still run: $(cat out.txt)"
line=$(queries status --tasks "$SWEEP_ID")
log "$line"
[[ $line == "sweep: accounting queries: 1 (1 array job asked, 0 from the state store; 3 tasks"* ]] ||
	fail "one query for the running array job expected: $line"
# Neither the kept tasks' steps nor the running task's (it has no statistics yet) are asked for.
[[ $line == *"steps of 0 job records read)" ]] || fail "steps were read of kept or running tasks: $line"
# The same read without steps (status) asks once too, and reads no steps.
line=$(queries status "$SWEEP_ID")
[[ $line == *"steps of 0 job records read)" ]] || fail "status read steps: $line"

# Field by field, the kept tasks' records against a fresh query's.
rm -f kept.tsv fresh.tsv
SWEEP_DEBUG_RECORDS=$WORK/kept.tsv "$SWEEP" status --tasks "$SWEEP_ID" >/dev/null 2>err.txt
SWEEP_DEBUG_RECORDS=$WORK/fresh.tsv "$SWEEP" status --tasks --refresh "$SWEEP_ID" >/dev/null 2>&1
kept_rows() { awk -F'\t' '$2 != 4294967295 && $5 == "COMPLETED"' "$1" | sort; }
[ "$(kept_rows kept.tsv | wc -l)" -ge 3 ] || fail "no kept records dumped: $(cat kept.tsv)"
diff <(kept_rows kept.tsv) <(kept_rows fresh.tsv) >&2 || fail "kept task records differ from a fresh query"
log "kept task records match a fresh query field by field"

touch "$GO"
wait_sweep 4 300
completed_once 4 || fail "tasks did not complete once each"
# The last task ended since: its steps alone, in a second query.
line=$(queries status --tasks "$SWEEP_ID")
log "$line"
[[ $line == "sweep: accounting queries: 2 (1 array job asked, 0 from the state store; 3 tasks"* &&
	$line == *"steps of 1 job record read)" ]] || fail "the steps of the task that ended, alone, expected: $line"
grep -q 'COMPLETED 4' out.txt || fail "status after the last task ended: $(cat out.txt)"
kept_whole() { [[ $(queries status --tasks "$SWEEP_ID") == "sweep: accounting queries: 0 "* ]]; }
wait_until 240 "the finished array job to be kept whole" kept_whole
grep -q 'COMPLETED 4' out.txt || fail "status from the store: $(cat out.txt)"
"$SWEEP" report "$SWEEP_ID" >report.txt 2>&1 || fail "report failed: $(cat report.txt)"
log "ok"
