#!/bin/bash
# A big failure reads in one screen (issue 34): 30 tasks that fail for one
# reason give report one group line (count, index ranges, cause) with one
# example log, at most 20 rows of the per-task table and a line that says
# how to see the rest; status --tasks keeps every row. resubmit refuses to
# repeat it and names the program that ran, resolved on the node: here
# `python3` is a shim first on PATH (as pyenv's is), not the python meant.
# --local here; test_big_failure runs the same on the cluster.
. "$(dirname "$0")/lib.sh"
trap cancel_sweeps EXIT
mkdir "big failure"
cd "big failure"
mkdir "shim bin"
printf '%s\n' '#!/bin/sh' 'exec /usr/bin/python3 "$@"' >"shim bin/python3"
chmod +x "shim bin/python3"
printf '%s\n' 'import sklearn_not_installed_here' >train.py
printf '%s\n' 'name: wide' 'command: python3 train.py --lr {lr} --seed {seed}' 'seeds: 3' \
	'grid:' '  lr: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]' 'results:' '  log:' "    acc: 'acc ([0-9.]+)'" \
	'slurm:' '  time: "2"' >wide.yaml
PATH="$PWD/shim bin:$PATH" submit_on wide.yaml
ended() { "$SWEEP" status "$SWEEP_ID" 2>/dev/null | grep -q '^30/30 done'; }
wait_until 300 "the 30 tasks to end" ended
if "$SWEEP" report "$SWEEP_ID" >report.txt 2>&1; then fail "report passed a failed sweep"; fi
cat report.txt >&2
grep -q "^  30 tasks (0-29): ModuleNotFoundError: No module named 'sklearn_not_installed_here'$" report.txt ||
	fail "no single group line"
grep -q '^    e\.g\. task 0: .*/logs/wide_[0-9]*_0\.out$' report.txt || fail "no example log"
rows=$(grep -cE '^[0-9]+ +lr=' report.txt)
[ "$rows" -eq 20 ] || fail "report shows $rows task rows, not 20"
grep -q "^\.\.\. and 10 more failed tasks, grouped above: 'sweep status $SWEEP_ID --tasks' lists every task" report.txt ||
	fail "no line saying how to see the rest"
[ "$(wc -l <report.txt)" -le 30 ] || fail "the report of one failure takes $(wc -l <report.txt) lines"
"$SWEEP" report --csv "$SWEEP_ID" >report.csv 2>/dev/null || true
[ "$(grep -c ',FAILED,' report.csv)" -eq 30 ] || fail "report --csv lost failures: $(cat report.csv)"
"$SWEEP" status --tasks "$SWEEP_ID" >status.txt
[ "$(grep -cE '^[0-9]+ +lr=' status.txt)" -eq 30 ] || fail "status --tasks lost rows: $(cat status.txt)"
# The exit column reads the same on both backends: the program's code.
[ "$(grep -cE '^[0-9]+ +lr=[0-9]+ +[0-9]+ +FAILED +1 +1 ' status.txt)" -eq 30 ] ||
	fail "status --tasks: not FAILED with exit 1 in every row: $(cat status.txt)"
# --exclude is kept for every later report: the first run says so.
"$SWEEP" report "$SWEEP_ID" --exclude lr=1 --reason 'bad batch' >excl.txt 2>&1 || true
grep -q "^sweep: recorded: 'lr=1' is left out of this and every later report of sweep $SWEEP_ID ('sweep report $SWEEP_ID --include lr=1' brings it back)$" excl.txt ||
	fail "--exclude did not say it is kept: $(cat excl.txt)"
"$SWEEP" report "$SWEEP_ID" --include lr=1 >/dev/null 2>&1 || true
# resubmit refuses a failure it would repeat, and says what to do next.
if "$SWEEP" resubmit --dry-run "$SWEEP_ID" >resub.txt 2>&1; then fail "resubmit took it: $(cat resub.txt)"; fi
grep -q "Next: read the cause ('sweep logs $SWEEP_ID 0'.*then 'sweep resubmit $SWEEP_ID --force'; or.*'sweep submit --extend $SWEEP_ID FILE'" resub.txt ||
	fail "resubmit's refusal: $(cat resub.txt)"
# The same program at submit and on the node: named all the same.
grep -qxF "the program that ran: $PWD/shim bin/python3 (resolved on $(hostname); a script, '#!/bin/sh', that runs another program)" resub.txt ||
	fail "resubmit's refusal does not name the program that ran: $(cat resub.txt)"
log "ok"
