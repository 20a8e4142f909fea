#!/bin/bash
# Metrics wherever the program prints them (issue 34): a program that prints
# its evaluation lines to stderr, as XGBoost's command line does ("[9]\t
# test-error:0.0162"), with `results: log` and no 2>&1, is read from the
# task's .err log; status, list, report and resubmit agree. A metric the
# program never prints is "completed, no metric" in list and resubmit,
# and report names both logs. Local backend: needs no cluster.
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
		"results:" "  log:" "    test_error: '$2'" >"$1.yaml"
}
write xgb 'test-error:([0-9.]+)'
write nometric 'valid-error:([0-9.]+)'
submit_local xgb.yaml
XGB=$SWEEP_ID
submit_local nometric.yaml
NOMETRIC=$SWEEP_ID
done_all() { "$SWEEP" status "$1" 2>/dev/null | grep -q '^3/3 done'; }
wait_until 60 "sweep $XGB to end" done_all "$XGB"
wait_until 60 "sweep $NOMETRIC to end" done_all "$NOMETRIC"

"$SWEEP" report "$XGB" >report.txt 2>report.err || fail "report of the stderr metrics failed: $(cat report.err)"
# seeds 0, 1, 2: 0.01 + 0.000, 0.001, 0.002 -> mean 0.0110
grep -Eq '0\.0110?0? ± 0\.0010?0? \(n = 3\)' report.txt || fail "report: $(cat report.txt)"
# One setting: nothing to adjust by Holm's method (it said "over 0 settings").
"$SWEEP" report --goal test_error=min "$XGB" >report.txt 2>&1 || fail "report --goal: $(cat report.txt)"
grep -q 'best = lowest mean (-); no other setting to compare it with$' report.txt ||
	fail "report of one setting: $(cat report.txt)"
grep -q 'over 0 settings' report.txt && fail "report of one setting: $(cat report.txt)"
# The local runner measures no GPU: rightsize says so, not "by this cluster".
"$SWEEP" rightsize "$XGB" >rightsize.txt 2>&1 || [ $? = 3 ] || fail "rightsize: $(cat rightsize.txt)"
grep -q '^GPU: utilisation and memory not measured (the local runner does not sample them' rightsize.txt ||
	fail "rightsize's GPU line: $(cat rightsize.txt)"
"$SWEEP" list >list.txt
awk -v id="$XGB" '$1 == id' list.txt | grep -q ' complete ' || fail "list: $(cat list.txt)"
"$SWEEP" resubmit --dry-run "$XGB" >resub.txt
grep -q 'nothing to resubmit: 3 of 3 tasks completed' resub.txt || fail "resubmit: $(cat resub.txt)"
grep -q 'verdict is incomplete' resub.txt && fail "resubmit of a complete sweep: $(cat resub.txt)"

awk -v id="$NOMETRIC" '$1 == id' list.txt | grep -q 'incomplete (3 completed, no metric)' ||
	fail "list of a sweep without its metric: $(cat list.txt)"
"$SWEEP" resubmit --dry-run "$NOMETRIC" >resub.txt
grep -q "but report's verdict is incomplete (3 completed, no metric): pattern for 'test_error' not found in .*\.out nor in .*\.err" resub.txt ||
	fail "resubmit of a sweep without its metric: $(cat resub.txt)"
if "$SWEEP" report "$NOMETRIC" >report.txt 2>&1; then fail "report of a sweep without its metric passed"; fi
grep -q "not found in .*_0\.out nor in .*_0\.err" report.txt || fail "report: $(cat report.txt)"
log "ok"
