#!/bin/bash
# Held tasks are shown as HELD, with what holds them and what releases them:
# - a throttled sweep (max_concurrent 1) whose pending tasks are held one by
#   the user (scontrol uhold) and one by an administrator (scontrol hold, as
#   root): the counts line, --tasks, --json and the release lines; report
#   says they are held; released, the sweep completes and report passes;
# - a sweep submitted with --hold (every task in the array's pending
#   record): released by its array job id;
# - a sweep with a begin time an hour away, and one with a dependency on
#   the first sweep: their reasons and hints; started with StartTime=now,
#   and by the first sweep completing.
. "$(dirname "$0")/lib.sh"
cluster_up

dir="$WORK/held tasks" # a path with a space, as users have
mkdir -p "$dir"
cd "$dir"
# sweep_file NAME SEEDS EXTRA: a sweep of short tasks whose program prints its metric.
sweep_file() {
	cat >"$1.yaml" <<YAML
name: $1
command: |
  sleep 2
  echo "loss: 0.5"
results:
  log:
    loss: 'loss: ([0-9.]+)'
seeds: $2
slurm:
  time: "2"
  mem: 50M
$3
YAML
}
sweep_file throttled 6 "  max_concurrent: 1"
submit throttled.yaml
A=${JOBS[0]}
THROTTLED=$SWEEP_ID
# The dependent sweep waits for every task of the first.
sweep_file dependent 2 "  extra: [\"--dependency=afterok:$A\"]"
submit dependent.yaml
C=${JOBS[0]}
DEPENDENT=$SWEEP_ID
sweep_file later 2 "  extra: [\"--begin=now+1hour\"]"
submit later.yaml
B=${JOBS[0]}
LATER=$SWEEP_ID
sweep_file onhold 2 "  extra: [\"--hold\"]"
submit onhold.yaml
D=${JOBS[0]}
ONHOLD=$SWEEP_ID
JOBS=("$A" "$C" "$B" "$D")

# Tasks 4 and 5 are still pending behind the throttle: hold them.
scontrol uhold "${A}_4" || fail "scontrol uhold ${A}_4"
scontrol hold "${A}_5" || fail "scontrol hold ${A}_5"

held_two() {
	"$SWEEP" status "$THROTTLED" >status.txt 2>err.txt &&
		grep -q 'HELD 2 (1 held by the user, 1 held by an administrator)' status.txt
}
wait_until 60 "status to show the two held tasks" held_two
cat status.txt >&2
grep -q "^1 task held by the user: release it with 'scontrol release ${A}_4'$" status.txt ||
	fail "no release line for the user's hold: $(cat status.txt)"
grep -q "^1 task held by an administrator: only an operator or administrator can release it ('scontrol release ${A}_5'); ask one$" status.txt ||
	fail "no line for the administrator's hold: $(cat status.txt)"
grep -q 'PENDING' err.txt && fail "a warning: $(cat err.txt)"

"$SWEEP" status --tasks "$THROTTLED" >tasks.txt || fail "status --tasks"
cat tasks.txt >&2
awk '$1 == 4' tasks.txt | grep -q 'HELD .*held by the user' || fail "task 4 in --tasks: $(cat tasks.txt)"
awk '$1 == 5' tasks.txt | grep -q 'HELD .*held by an administrator' ||
	fail "task 5 in --tasks: $(cat tasks.txt)"

"$SWEEP" status --json "$THROTTLED" >status.json || fail "status --json"
/usr/bin/python3 - "$A" <<'PY' || fail "status --json: $(cat status.json)"
import json, sys
a = sys.argv[1]
d = json.load(open("status.json"))
t = d["tasks"]
assert d["counts"]["HELD"] == 2, d["counts"]
assert d["held"] == {"user": 1, "admin": 1}, d["held"]
assert t[4]["state"] == "HELD" and t[4]["held"] is True and t[4]["hold"] == "user", t[4]
assert t[4]["reason"] == "held by the user", t[4]
assert t[5]["hold"] == "admin" and t[5]["reason"] == "held by an administrator", t[5]
assert t[0]["held"] is False and t[0]["hold"] is None, t[0]
assert f"scontrol release {a}_4" in d["release"], d["release"]
PY

# report: not complete while tasks are held, and it says why.
set +e
"$SWEEP" report "$THROTTLED" >report.txt 2>&1
rc=$?
set -e
[ $rc -eq 3 ] || fail "report of a sweep with held tasks exited $rc: $(cat report.txt)"
grep -q 'held (held by the user)' report.txt || fail "report does not say task 4 is held: $(cat report.txt)"

# The begin time, the dependency and the sbatch --hold.
# Read as soon as submitted: the scheduler may not have given a reason yet.
later_held() { "$SWEEP" status "$LATER" >later.txt && grep -q 'HELD 2 (2 waiting for a begin time)' later.txt; }
later_held || wait_until 30 "the begin time's tasks to show as held: $(cat later.txt)" later_held
cat later.txt >&2
grep -q "^2 tasks waiting for a begin time (begins at [0-9T:-]*): they start by themselves then; 'scontrol update JobId=$B StartTime=now' starts them now$" later.txt ||
	fail "begin time's line: $(cat later.txt)"
"$SWEEP" status --tasks "$LATER" | grep -q 'HELD .*begins at ' || fail "begin time in --tasks"

dependent_held() { "$SWEEP" status "$DEPENDENT" >dependent.txt && grep -q 'HELD 2 (2 waiting for a dependency)' dependent.txt; }
dependent_held || wait_until 30 "the dependent tasks to show as held: $(cat dependent.txt)" dependent_held
cat dependent.txt >&2
grep -q "^2 tasks waiting for dependency afterok:${A}_\*.*: they start once it is met; 'scontrol update JobId=$C Dependency=' drops it$" dependent.txt ||
	fail "dependency's line: $(cat dependent.txt)"

"$SWEEP" status "$ONHOLD" >onhold.txt
cat onhold.txt >&2
grep -q 'HELD 2 (2 held by the user)' onhold.txt || fail "sbatch --hold: $(cat onhold.txt)"
grep -q "^2 tasks held by the user: release them with 'scontrol release $D'$" onhold.txt ||
	fail "sbatch --hold's line: $(cat onhold.txt)"

# Released, every sweep completes and report passes.
scontrol release "${A}_[4-5]" || fail "scontrol release ${A}_[4-5]"
scontrol release "$D" || fail "scontrol release $D"
scontrol update JobId="$B" StartTime=now || fail "scontrol update StartTime"
wait_sweep 12 300
for id in "$THROTTLED" "$DEPENDENT" "$LATER" "$ONHOLD"; do
	"$SWEEP" status "$id" >done.txt
	grep -q '^COMPLETED [0-9]*$' done.txt || fail "sweep $id after release: $(cat done.txt)"
	grep -q 'HELD\|release' done.txt && fail "sweep $id still shows a hold: $(cat done.txt)"
done
"$SWEEP" report "$THROTTLED" >report.txt 2>&1 || fail "report after release: $(cat report.txt)"
log "ok"
