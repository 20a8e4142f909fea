#!/bin/bash
# `sweep submit --local` killed (SIGKILL, SWEEP_FAULT) at each step of a
# submission. The local runner's array job is found again as Slurm's is:
# killed once the runner had started (after-sbatch and later), the next
# command records its array job, the sweep is shown submitted, and every
# task's result counts in report; killed before, the sweep is marked
# failed and nothing ran. No Slurm needed.
. "$(dirname "$0")/lib.sh"
trap cancel_sweeps EXIT

cat >three.yaml <<'YAML'
name: three
command: |
  echo '{{"value": {seed}}}' > "$SWEEP_RESULT"
seeds: 3
slurm:
  time: "1:00"
  mem: 50M
YAML

# kill_at POINT: a fresh state folder, submit killed at POINT.
kill_at() {
	export SWEEP_STATE_DIR=$WORK/state-$1
	set +e
	SWEEP_FAULT=submit-$1 "$SWEEP" submit --local three.yaml >"$1.submit" 2>&1
	rc=$?
	set -e
	[ $rc -eq 137 ] || fail "submit at $1 should have been killed (137), exited $rc: $(cat "$1.submit")"
}

done_3() { "$SWEEP" status 1 2>/dev/null | grep -q '^3/3 done'; }

for point in after-sbatch after-add-array before-finish after-finish; do
	kill_at "$point"
	"$SWEEP" status 1 >"$point.status" 2>"$point.err" || fail "$point: status failed: $(cat "$point.err")"
	case $point in after-sbatch)
		grep -q "was interrupted; the local runner had accepted array job 1 (found in the state store by its script): recorded now" "$point.err" ||
			fail "$point: no recovery message: $(cat "$point.err" "$point.status")" ;;
	esac
	grep -q "no array job was accepted" "$point.status" && fail "$point: status says nothing ran: $(cat "$point.status")"
	wait_until 120 "$point: the 3 tasks to finish" done_3
	"$SWEEP" list >"$point.list"
	grep -q -E '^1 +three +complete' "$point.list" || fail "$point: the sweep is not complete in list: $(cat "$point.list")"
	"$SWEEP" report 1 >"$point.report" 2>&1 || fail "$point: report failed: $(cat "$point.report")"
	grep -q "missing" "$point.report" && fail "$point: report counts tasks missing: $(cat "$point.report")"
	[ "$(sqlite3 -cmd ".timeout 10000" "$SWEEP_STATE_DIR/sweep.db" 'SELECT COUNT(*) FROM arrays')" = 1 ] ||
		fail "$point: expected one recorded array job"
	log "$point: recovered, 3/3 done"
done

# Killed before the runner started: marked failed, and nothing ran.
for point in after-lock before-sbatch; do
	kill_at "$point"
	"$SWEEP" status 1 >"$point.status" 2>"$point.err" || true
	grep -q "interrupted before the local runner accepted any array job: marked failed" "$point.err" ||
		fail "$point: not marked failed: $(cat "$point.err" "$point.status")"
	"$SWEEP" list | grep -q -E '^1 +three +failed' || fail "$point: sweep 1 is not marked failed: $("$SWEEP" list)"
	[ "$(sqlite3 -cmd ".timeout 10000" "$SWEEP_STATE_DIR/sweep.db" 'SELECT COUNT(*) FROM local_arrays')" = 0 ] ||
		fail "$point: a local array job was started"
	log "$point: marked failed"
done

# Killed before the sweep was recorded, or before its lock existed: no run.
for point in before-record after-record; do
	kill_at "$point"
	"$SWEEP" list >"$point.list" 2>&1 || true
	[ "$(sqlite3 -cmd ".timeout 10000" "$SWEEP_STATE_DIR/sweep.db" 'SELECT COUNT(*) FROM local_arrays' 2>/dev/null || echo 0)" = 0 ] ||
		fail "$point: a local array job was started"
	log "$point: nothing ran"
done

# A resubmission killed after the runner of its array job started: recorded too.
export SWEEP_STATE_DIR=$WORK/state-resubmit
cat >flaky.yaml <<'YAML'
name: flaky
command: |
  if [ ! -e "$SWEEP_TASK_DIR/ran" ]; then touch "$SWEEP_TASK_DIR/ran"; exit 3; fi
  echo '{{"value": {seed}}}' > "$SWEEP_RESULT"
seeds: 1
slurm:
  time: "1:00"
  mem: 50M
YAML
submit_local flaky.yaml
wait_until 120 "the flaky task to fail" bash -c "'$SWEEP' status 1 | grep -q FAILED"
set +e
SWEEP_FAULT=resubmit-after-sbatch "$SWEEP" resubmit 1 >resubmit.out 2>&1
rc=$?
set -e
[ $rc -eq 137 ] || fail "resubmit should have been killed (137), exited $rc: $(cat resubmit.out)"
"$SWEEP" status 1 >resubmit.status 2>resubmit.err || fail "status after resubmit failed: $(cat resubmit.err)"
grep -q "a resubmission of sweep 1 'flaky' was interrupted; the local runner had accepted array job 2" resubmit.err ||
	fail "no recovery message after the resubmission: $(cat resubmit.err resubmit.status)"
wait_until 120 "the resubmitted task to finish" bash -c "'$SWEEP' status 1 | grep -q '^1/1 done'"
"$SWEEP" report 1 >resubmit.report 2>&1 || fail "report after the resubmission failed: $(cat resubmit.report)"
log "resubmit-after-sbatch: recovered, 1/1 done"
log "ok"
