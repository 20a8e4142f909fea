#!/bin/bash
# The readers take what programs really write (issue 20, items 5 and 6), on
# the real cluster: shapes_task.py (no signal handler, metrics on stdout, a
# folder with a space) prints a tqdm bar of 20,000 '\r' updates and a line
# with NUL bytes, and writes a CSV file for Excel (a byte order mark, ", "
# between the names, 2**64) or a JSON file with 2**64 and a key holding an
# escape sequence. report reads every value, warns once per task about the
# NUL line, and prints the key escaped in the table, CSV and JSON.
. "$(dirname "$0")/lib.sh"
cluster_up
mkdir "shape s"
cd "shape s"
cp "$DATA/shapes_task.py" .

cat >csv.yaml <<'YAML'
name: shapes-csv
command: python3 shapes_task.py --seed {seed} --csv "out dir/{task}.csv"
seeds: 2
results:
  file: out dir/{task}.csv
  log:
    loss: 'loss=([0-9.]+)'
    acc: 'acc=([0-9.]+)'
slurm:
  mem: 100M
YAML
mkdir "out dir"
submit csv.yaml
wait_sweep 2 300
completed_once 2 || fail "not every task completed once"
"$SWEEP" report "$SWEEP_ID" --csv >report.csv 2>report.err || fail "report --csv failed: $(cat report.err)"
cat report.csv report.err >&2
# The last update of the bar, the value after the NUL bytes, the CSV's
# trimmed names and its 2**64: every metric of both seeds (n = 2).
head -1 report.csv | grep -q '^n,n_planned,acc_mean,acc_std,acc_ci95,epoch_mean,.*,loss_mean,.*,seen_mean,.*,top1_mean,' ||
	fail "report --csv header: $(head -1 report.csv)"
python3 - report.csv <<'PY' || fail "report --csv values"
import csv, sys
row = next(csv.DictReader(open(sys.argv[1])))
want = {"n": "2", "acc_mean": "0.55", "loss_mean": "1.50005", "seen_mean": "18446744073709551616", "top1_mean": "0.55"}
bad = {k: (row.get(k), v) for k, v in want.items() if row.get(k) is None or abs(float(row[k]) - float(v)) > 1e-9 * abs(float(v))}
assert not bad, bad
PY
for t in 0 1; do
	[ "$(grep -c "warning: task $t: line 3 of .*holds a NUL byte; 'acc' was read from that line" report.err)" = 1 ] ||
		fail "task $t: not one warning about its NUL line: $(cat report.err)"
done

cat >json.yaml <<'YAML'
name: shapes-json
command: python3 shapes_task.py --seed {seed} --json "$SWEEP_RESULT"
seeds: 2
slurm:
  mem: 100M
YAML
submit json.yaml
wait_sweep 2 300
completed_once 2 || fail "not every task completed once"
"$SWEEP" report "$SWEEP_ID" >report.out 2>&1 || fail "report failed: $(cat report.out)"
cat report.out >&2
grep -q 'note\\x1b\[2J' report.out || fail "the key is not shown escaped: $(cat -v report.out)"
grep -q $'\x1b' report.out && fail "an escape byte reached the terminal: $(cat -v report.out)"
"$SWEEP" report "$SWEEP_ID" --json >report.json || fail "report --json failed"
python3 - report.json <<'PY' || fail "report --json: $(cat report.json)"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["metrics"] == ["note\\x1b[2J", "seen", "top1"], r["metrics"]
m = r["settings"][0]["metrics"]
assert m["seen"]["mean"] == float(2**64), m["seen"]
PY
"$SWEEP" report "$SWEEP_ID" --csv | head -1 | grep -q '^n,n_planned,note\\x1b\[2J_mean,' ||
	fail "report --csv header: $("$SWEEP" report "$SWEEP_ID" --csv | head -1 | cat -v)"
log "ok"
