#!/bin/bash
# Metrics wherever the program prints them (issue 34): a program that prints
# its evaluation lines to stderr, as XGBoost's command line does ("[9]\t
# test-error:0.0162"), with `results: log` and no 2>&1, is read from the
# task's .err log; status, list, report and resubmit agree. A metric the
# program never prints (results: log), or a result file it never writes
# (results: file), is "completed, no metric" in status (counts, --tasks,
# --json), list and resubmit, and report names both logs. --local here;
# test_stderr_metrics runs the same on the cluster.
. "$(dirname "$0")/lib.sh"
trap cancel_sweeps EXIT
mkdir "xgb runs"
cd "xgb runs"
cat >"eval prog.py" <<'PY'
import sys
seed = int(sys.argv[1])
for i in range(10):
    print(f"[{i}]\ttest-error:{0.1 / (i + 1) + seed * 0.001:.4f}", file=sys.stderr)
print("training done")
PY
write() { # NAME PATTERN
	printf '%s\n' "name: $1" "command: /usr/bin/python3 'eval prog.py' {seed}" "seeds: 3" \
		"results:" "  log:" "    test_error: '$2'" "slurm:" '  time: "2"' >"$1.yaml"
}
write xgb 'test-error:([0-9.]+)'
write nometric 'valid-error:([0-9.]+)'
printf '%s\n' "name: nofile" "command: /usr/bin/python3 'eval prog.py' {seed}" "seeds: 3" \
	"results:" "  file: 'out dir/{task}.json'" "slurm:" '  time: "2"' >nofile.yaml
submit_on xgb.yaml
XGB=$SWEEP_ID
submit_on nometric.yaml
NOMETRIC=$SWEEP_ID
submit_on nofile.yaml
NOFILE=$SWEEP_ID
done_all() { "$SWEEP" status "$1" 2>/dev/null | grep -q '^3/3 done'; }
wait_until 180 "sweep $XGB to end" done_all "$XGB"
wait_until 180 "sweep $NOMETRIC to end" done_all "$NOMETRIC"
wait_until 180 "sweep $NOFILE to end" done_all "$NOFILE"

"$SWEEP" report "$XGB" >report.txt 2>report.err || fail "report of the stderr metrics failed: $(cat report.err)"
# seeds 0, 1, 2: 0.01 + 0.000, 0.001, 0.002 -> mean 0.0110
grep -Eq '0\.0110?0? ± 0\.0010?0? \(n = 3\)' report.txt || fail "report: $(cat report.txt)"
# One setting: nothing to adjust by Holm's method (it said "over 0 settings").
"$SWEEP" report --goal test_error=min "$XGB" >report.txt 2>&1 || fail "report --goal: $(cat report.txt)"
grep -q 'best = lowest mean (-); no other setting to compare it with$' report.txt ||
	fail "report of one setting: $(cat report.txt)"
grep -q 'over 0 settings' report.txt && fail "report of one setting: $(cat report.txt)"
if [ "$BACKEND" = local ]; then
	# The local runner measures no GPU: rightsize says so, not "by this cluster".
	"$SWEEP" rightsize "$XGB" >rightsize.txt 2>&1 || [ $? = 3 ] || fail "rightsize: $(cat rightsize.txt)"
	grep -q '^GPU: utilisation and memory not measured (the local runner does not sample them' rightsize.txt ||
		fail "rightsize's GPU line: $(cat rightsize.txt)"
fi
"$SWEEP" list >list.txt
awk -v id="$XGB" '$1 == id' list.txt | grep -q ' complete ' || fail "list: $(cat list.txt)"
"$SWEEP" resubmit --dry-run "$XGB" >resub.txt
grep -q 'nothing to resubmit: 3 of 3 tasks completed' resub.txt || fail "resubmit: $(cat resub.txt)"
grep -q 'verdict is incomplete' resub.txt && fail "resubmit of a complete sweep: $(cat resub.txt)"
"$SWEEP" status "$XGB" >status.txt
grep -q '^COMPLETED 3$' status.txt || fail "status of a complete sweep: $(cat status.txt)"

# status, list, report and resubmit: one verdict for the same tasks.
# agree ID REASON: a sweep whose 3 tasks completed without their metric.
agree() {
	local id=$1 why=$2
	awk -v id="$id" '$1 == id' list.txt | grep -q 'incomplete (3 completed, no metric)' ||
		fail "list of sweep $id: $(cat list.txt)"
	"$SWEEP" resubmit --dry-run "$id" >resub.txt
	grep -q "but report's verdict is incomplete (3 completed, no metric): $why" resub.txt ||
		fail "resubmit of sweep $id: $(cat resub.txt)"
	"$SWEEP" status "$id" >status.txt 2>status.err
	grep -q '^COMPLETED 3 (3 completed, no metric)$' status.txt ||
		fail "status of sweep $id: $(cat status.txt status.err)"
	[ ! -s status.err ] || fail "status of sweep $id said: $(cat status.err)"
	"$SWEEP" status --tasks "$id" >tasks.txt
	[ "$(grep -cE "^[0-2] .* COMPLETED .*completed, no metric +$why" tasks.txt)" -eq 3 ] ||
		fail "status --tasks of sweep $id: $(cat tasks.txt)"
	"$SWEEP" status --json "$id" >status.json
	/usr/bin/python3 - "$why" <<'PY' || fail "status --json of sweep $id: $(cat status.json)"
import json, re, sys
d = json.load(open("status.json"))
assert d["completed_no_metric"] == 3, d["completed_no_metric"]
for t in d["tasks"]:
    assert t["state"] == "COMPLETED" and t["verdict"] == "completed, no metric", t
    assert re.search(sys.argv[1], t["cause"]), t["cause"]
PY
}
agree "$NOMETRIC" "pattern for 'test_error' not found in .*\.out nor in .*\.err"
agree "$NOFILE" "no result file"
"$SWEEP" status --json "$XGB" | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["completed_no_metric"] == 0 and {t["verdict"] for t in d["tasks"]} == {"passed"}, d' ||
	fail "status --json of a complete sweep"
if "$SWEEP" report "$NOMETRIC" >report.txt 2>&1; then fail "report of a sweep without its metric passed"; fi
grep -q "not found in .*_0\.out nor in .*_0\.err" report.txt || fail "report: $(cat report.txt)"
log "ok"
