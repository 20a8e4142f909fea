#!/bin/bash
# One task over its memory, one over its time limit: `sweep rightsize`
# recommends more than they had and says why; a resubmission sbatch refuses
# leaves nothing running; `sweep resubmit` runs exactly those two again (same
# indices) with bigger requests, after which they succeed and `sweep report`
# accepts the whole sweep.
. "$(dirname "$0")/lib.sh"
cluster_up
cp "$DATA/rightsize_task.py" .
submit "$DATA/sweeps/rightsize.yaml"
wait_sweep 3 400

# --- rightsize --------------------------------------------------------------
"$SWEEP" rightsize --tasks >rightsize.out || fail "rightsize exited $?"
cat rightsize.out >&2
grep -q 'ran out of memory with' rightsize.out || fail "rightsize does not name the lower bound of memory"
grep -q 'hit the time limit after' rightsize.out || fail "rightsize does not name the lower bound of time"
grep -q '^  #SBATCH --mem=' rightsize.out || fail "no #SBATCH --mem line"
grep -q '^  #SBATCH --time=' rightsize.out || fail "no #SBATCH --time line"
grep -q '^    mem: ' rightsize.out || fail "no slurm: mem key"

"$SWEEP" rightsize --json >rightsize.json || fail "rightsize --json exited $?"
python3 - <<'PY' || fail "rightsize --json"
import json
r = json.load(open("rightsize.json"))
rec = r["recommendation"]
tasks = {t["index"]: t for t in r["tasks"]}
assert tasks[1]["lower_bound"] == "memory", tasks[1]
assert tasks[2]["lower_bound"] == "time", tasks[2]
oom, slow = tasks[1], tasks[2]
had_mem = max(oom["req_mem_mb"], (oom["maxrss_bytes"] or 0) / 2**20)
assert rec["mem_mb"] > had_mem, (rec, oom)
assert rec["time_min"] * 60 > max(slow["timelimit_s"], slow["elapsed_s"]), (rec, slow)
assert rec["lower_bounds"], rec
assert tasks[0]["maxrss_bytes"], "the ok task has no MaxRSS: is JobAcctGatherFrequency 1?"
print("recommended", rec["mem"], rec["time"], "for", had_mem, "MiB and", slow["elapsed_s"], "s")
PY

# submit --resources-from applies it (a dry run: nothing more on the cluster).
"$SWEEP" submit --dry-run --resources-from "$SWEEP_ID" "$DATA/sweeps/rightsize.yaml" >from.out ||
	fail "submit --resources-from exited $?"
mem=$(python3 -c 'import json; print(json.load(open("rightsize.json"))["recommendation"]["mem"])')
grep -q "slurm.mem: 100M -> $mem" from.out || fail "submit --resources-from does not say what it changed"
grep -q "^#SBATCH --mem=$mem\$" from.out || fail "the script does not ask --mem=$mem"

# --- resubmit ---------------------------------------------------------------
"$SWEEP" resubmit --dry-run >dry.out || fail "resubmit --dry-run exited $?"
cat dry.out >&2
grep -q 'out of memory' dry.out || fail "the plan does not say why task 1 runs again"
grep -q 'time limit' dry.out || fail "the plan does not say why task 2 runs again"
grep -q -- 'sbatch --parsable --array=1 --mem=' dry.out || fail "no sbatch command for task 1"
grep -q -- 'sbatch --parsable --array=2 --time=' dry.out || fail "no sbatch command for task 2"
"$SWEEP" status --json >status.json
python3 -c 'import json, sys; sys.exit(len(json.load(open("status.json"))["sweep"]["array_job_ids"]) != 1)' ||
	fail "resubmit --dry-run submitted something"

# A resubmission sbatch refuses (far more memory than the node has) is not
# left running: the array job it had already submitted (the time override
# goes first) is cancelled, and the error says so.
set +e
"$SWEEP" resubmit --mem-factor 1000 >refused.out 2>refused.err
rc=$?
set -e
cat refused.out refused.err >&2
((rc == 1)) || fail "a refused resubmission exited $rc"
grep -q 'sbatch refused' refused.err || fail "the error does not give sbatch's reason"
grep -q 'of this resubmission, already accepted, was cancelled' refused.err ||
	fail "the error does not say what was cancelled"
"$SWEEP" status --json >status.json
REFUSED=$(python3 -c 'import json; print(",".join(str(j) for j in json.load(open("status.json"))["sweep"]["array_job_ids"][1:]))')
[ -n "$REFUSED" ] || fail "the accepted half of the refused resubmission was not recorded"
CLEANUP_JOBS+=(${REFUSED//,/ })
# sweep itself must see the cancelled attempt (for a few seconds slurmdbd
# holds a record without its array fields, which sweep cannot place).
cancelled() {
	"$SWEEP" status --json 2>/dev/null |
		python3 -c 'import json, sys; sys.exit(json.load(sys.stdin)["tasks"][2]["state"] != "CANCELLED")'
}
wait_until 60 "sweep to see the refused resubmission's array job cancelled" cancelled
[ -z "$(squeue -h -r -j "$REFUSED" 2>/dev/null)" ] || fail "the refused resubmission left tasks in the queue"

# The real one: task 1 with twice its memory, task 2 with the time its last
# (cancelled) attempt asked, as attempt 3.
out=$("$SWEEP" resubmit) || fail "resubmit exited $?"
printf '%s\n' "$out" >&2
mapfile -t JOBS < <(printf '%s\n' "$out" | sed -n 's/^array job \([0-9]*\):.*/\1/p')
((${#JOBS[@]} == 2)) || fail "expected two array jobs (one per override), got: ${JOBS[*]}"
CLEANUP_JOBS+=("${JOBS[@]}")
printf '%s\n' "$out" | grep -q 'resubmitted as attempt 3' || fail "not recorded as attempt 3"

# Exactly indices 1 and 2 ran again, with more memory and more time.
wait_sweep 2 400
sacct -n -P -X -j "$(jobs_csv)" -o JobID,State,ReqMem,Timelimit >resubmitted.txt
cat resubmitted.txt >&2
python3 - <<'PY' || fail "the resubmitted tasks"
import re
rows = [l.split("|") for l in open("resubmitted.txt").read().split("\n") if l]
tasks = {r[0].split("_")[1]: r for r in rows}
assert sorted(tasks) == ["1", "2"], tasks

def mib(s):
    n, unit = re.match(r"([0-9.]+)([KMGT]?)", s).groups()
    return float(n) * {"K": 1 / 1024, "": 1, "M": 1, "G": 1024, "T": 1024 ** 2}[unit]

def minutes(s):
    days, _, hms = s.rpartition("-")
    h, m, sec = (int(x) for x in hms.split(":"))
    return (int(days or 0) * 24 + h) * 60 + m + sec / 60

assert mib(tasks["1"][2]) > 100, tasks["1"]
assert minutes(tasks["1"][3]) == 1, tasks["1"]
assert minutes(tasks["2"][3]) > 1, tasks["2"]
assert mib(tasks["2"][2]) == 100, tasks["2"]
assert all(r[1] == "COMPLETED" for r in rows), rows
PY

# The sweep is whole now: each task's latest attempt counts.
"$SWEEP" status --json >status.json
python3 - <<'PY' || fail "status after the resubmission"
import json
s = json.load(open("status.json"))
t = {x["index"]: x for x in s["tasks"]}
assert all(x["state"] == "COMPLETED" for x in t.values()), t
assert [t[i]["attempts"] for i in range(3)] == [1, 2, 3], t
PY
"$SWEEP" report >report.out || fail "report exited $? after the resubmission: $(cat report.out)"
cat report.out >&2
grep -q '±' report.out || fail "report printed no statistics"

out=$("$SWEEP" resubmit) || fail "resubmit of a whole sweep exited $?"
printf '%s\n' "$out" | grep -q 'nothing to resubmit: 3 of 3 tasks completed' ||
	fail "resubmit of a whole sweep: $out"
log "ok"
