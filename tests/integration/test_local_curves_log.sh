#!/bin/bash
# Learning curves from printed lines (issue 34 item 5): a program that
# prints "epoch N val_acc X" with print() and its loss to stderr, with no
# result file, and `results: {log: ..., step: ...}` in the sweep file:
# `report --curves log` draws its curves, the loss read from the .err log
# as the final metrics are. A sweep file without results.step, and logs
# where no step comes before a value, are refused with their reasons.
# A JSON Lines result file counted by "epoch": report --step epoch makes it
# the x axis and no metric, in the table, --json, --csv and --plot.
# --local here; test_curves_log runs the same on the cluster.
. "$(dirname "$0")/lib.sh"
trap cancel_sweeps EXIT
mkdir "curve runs"
cd "curve runs"
cat >"train prog.py" <<'PY'
import sys
lr, seed = float(sys.argv[1]), int(sys.argv[2])
print("val_acc 0.0 before training")
for epoch in range(1, 4 + seed):
    print(f"epoch {epoch}")
    print(f"  val_acc {0.5 + 0.1 * epoch + lr + seed * 0.01:.4f}")
    print(f"epoch {epoch} loss {2.0 / epoch:.4f}", file=sys.stderr)
print("done")
PY
write() { # NAME STEP-PATTERN (none: no results.step)
	printf '%s\n' "name: $1" "command: /usr/bin/python3 'train prog.py' {lr} {seed}" "seeds: 2" \
		"grid: {lr: [0.1, 0.01]}" "results:" "  log:" "    val_acc: 'val_acc ([0-9.]+)'" \
		"    loss: 'loss ([0-9.]+)'" >"$1.yaml"
	[ "$2" = none ] || printf '%s\n' "  step: '$2'" >>"$1.yaml"
	printf '%s\n' 'slurm:' '  time: "2"' >>"$1.yaml"
}
write curves 'epoch ([0-9]+)'
write nostep none
write otherstep 'iter ([0-9]+)'
cat >"series prog.py" <<'PY'
import json, os, sys
lr, seed, path = float(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
os.makedirs(os.path.dirname(path), exist_ok=True)
with open(path, "w") as f:
    for epoch in range(1, 6):
        print(json.dumps({"epoch": epoch, "val_acc": 0.5 + 0.05 * epoch + lr + seed * 0.01}), file=f)
PY
printf '%s\n' "name: jsonl-runs" \
	"command: /usr/bin/python3 'series prog.py' {lr} {seed} 'runs/{sweep}/{task}.jsonl'" "seeds: 2" \
	"grid: {lr: [0.1, 0.01]}" "results:" "  file: 'runs/{sweep}/{task}.jsonl'" \
	'slurm:' '  time: "2"' >series.yaml
submit_on curves.yaml
CURVES=$SWEEP_ID
submit_on nostep.yaml
NOSTEP=$SWEEP_ID
submit_on otherstep.yaml
OTHER=$SWEEP_ID
submit_on series.yaml
EPOCHS=$SWEEP_ID
done_all() { "$SWEEP" status "$1" 2>/dev/null | grep -q '^4/4 done'; }
wait_until 180 "sweep $CURVES to end" done_all "$CURVES"
wait_until 180 "sweep $NOSTEP to end" done_all "$NOSTEP"
wait_until 180 "sweep $OTHER to end" done_all "$OTHER"
wait_until 180 "sweep $EPOCHS to end" done_all "$EPOCHS"

# --step epoch: the epoch counts the lines of the result file, no metric.
"$SWEEP" report "$EPOCHS" --step epoch >report.txt 2>&1 || fail "report --step epoch: $(cat report.txt)"
grep -q 'val_acc' report.txt || fail "report --step epoch: no val_acc: $(cat report.txt)"
grep -q 'epoch' report.txt && fail "report --step epoch shows the epoch: $(cat report.txt)"
"$SWEEP" report "$EPOCHS" --step epoch --json >report.json 2>&1 || fail "report --step epoch --json: $(cat report.json)"
grep -q '"val_acc"' report.json && ! grep -q '"epoch"' report.json ||
	fail "report --step epoch --json: $(cat report.json)"
"$SWEEP" report "$EPOCHS" --step epoch --csv >report.csv 2>&1 || fail "report --step epoch --csv: $(cat report.csv)"
grep -q 'epoch' report.csv && fail "report --step epoch --csv: $(cat report.csv)"
"$SWEEP" report "$EPOCHS" --step epoch --no-title --plot "series out.pdf" >/dev/null 2>&1 || fail "report --step epoch --plot"
pdftotext "series out.pdf" - | tr -s ' \n' ' ' >series.txt
grep -q 'val_acc' series.txt && ! grep -q 'epoch' series.txt || fail "--plot: an epoch panel: $(cat series.txt)"
# Without --step, "epoch" is a key as any other: a metric.
"$SWEEP" report "$EPOCHS" >report.txt 2>&1 || fail "report: $(cat report.txt)"
grep -q 'epoch' report.txt || fail "report without --step: no epoch: $(cat report.txt)"
"$SWEEP" report "$EPOCHS" --step epoch --curves 'runs/{sweep}/{task}.jsonl' --plot "epoch curves.pdf" >/dev/null 2>&1 ||
	fail "--curves with --step epoch"
pdftotext "epoch curves.pdf" - | tr -s ' \n' ' ' | grep -q 'val_acc by epoch' || fail "curves: not by epoch"

# Seed 0 prints epochs 1..3, seed 1 epochs 1..4: the mean runs to step 3.
"$SWEEP" report "$CURVES" --curves log --plot "curves out.pdf" >/dev/null 2>err.txt ||
	fail "--curves log exited $?: $(cat err.txt)"
grep -q 'learning curves written to curves out.pdf' err.txt || fail "stderr: $(cat err.txt)"
pdftotext "curves out.pdf" - | tr -s ' \n' ' ' >curves.txt
grep -q 'lr=0.1 (2 seeds, to step 3)' curves.txt || fail "legend: $(cat curves.txt)"
grep -q 'lr=0.01 (2 seeds, to step 3)' curves.txt || fail "legend: $(cat curves.txt)"
grep -q 'val_acc by step' curves.txt || fail "no val_acc panel: $(cat curves.txt)"
# The loss is only on stderr: read from the .err log.
grep -q 'loss by step' curves.txt || fail "no loss panel (from the .err log): $(cat curves.txt)"
# --metric picks one.
"$SWEEP" report "$CURVES" --curves log --metric loss --plot loss.pdf >/dev/null 2>err.txt ||
	fail "--curves log --metric loss exited $?: $(cat err.txt)"
pdftotext loss.pdf - | tr -s ' \n' ' ' >loss.txt
grep -q 'loss by step' loss.txt && ! grep -q 'val_acc by step' loss.txt || fail "--metric loss: $(cat loss.txt)"
# The final metrics are unchanged: the last match.
"$SWEEP" report "$CURVES" >report.txt 2>&1 || fail "report: $(cat report.txt)"

# No results.step: the reason, exit 1, no plot.
rc=0
"$SWEEP" report "$NOSTEP" --curves log --plot none.pdf >/dev/null 2>err.txt || rc=$?
[ "$rc" = 1 ] || fail "--curves log without results.step: exit $rc, want 1: $(cat err.txt)"
grep -q "error: --curves log reads the task logs with the sweep file's 'results.step' and 'results.log' patterns: the sweep file has none (or cannot be read); add them, or give the JSON Lines file that holds the curves" err.txt ||
	fail "no reason: $(cat err.txt)"
[ ! -e none.pdf ] || fail "a plot drawn without results.step"

# A step pattern that matches nothing: every task listed with both logs, exit 3.
rc=0
"$SWEEP" report "$OTHER" --curves log --plot none.pdf >/dev/null 2>err.txt || rc=$?
[ "$rc" = 3 ] || fail "no step in the logs: exit $rc, want 3: $(cat err.txt)"
grep -q "task 0 (lr=0.1, seed 0): no learning curve in .*_0\.out nor in .*_0\.err: no metric's value after a line that matches 'results.step'" err.txt ||
	fail "no reason: $(cat err.txt)"
grep -q "4 of 4 tasks without a usable curve: no plot" err.txt || fail "no count: $(cat err.txt)"
[ ! -e none.pdf ] || fail "a plot drawn without curves"
rc=0
"$SWEEP" report "$OTHER" --curves log --plot none.pdf --allow-incomplete >/dev/null 2>err.txt || rc=$?
[ "$rc" = 3 ] || fail "--allow-incomplete, no step in the logs: exit $rc, want 3: $(cat err.txt)"
grep -q "error: no task log holds a point of a metric" err.txt || fail "no reason: $(cat err.txt)"

# A log that is a symbolic link is not read (it may point anywhere): the reason, exit 3.
out=$(ls logs/curves_*_3.out)
mv "$out" kept.out
ln -s "$PWD/kept.out" "$out"
rc=0
"$SWEEP" report "$CURVES" --curves log --plot none.pdf >/dev/null 2>err.txt || rc=$?
[ "$rc" = 3 ] || fail "a log that is a link: exit $rc, want 3: $(cat err.txt)"
grep -q "task 3 (lr=0.01, seed 1): cannot read its log .*_3\.out: a symbolic link, not a regular file" err.txt ||
	fail "no reason: $(cat err.txt)"
log "ok"
