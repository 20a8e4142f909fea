#!/bin/bash
# submit --extend of a sweep whose metrics come from what the program
# prints (results: log) is quiet: the reused tasks have no result.json to
# copy, and nothing says "cannot read .../result.json" for each. Their
# metrics in the report are those the first sweep read. --local here;
# test_extend_log runs the same on the cluster.
. "$(dirname "$0")/lib.sh"
trap cancel_sweeps EXIT
mkdir "sub mit"
cd "sub mit"
cp "$DATA/fit.py" .
sed 's/^command: python3 /command: \/usr\/bin\/python3 /' "$DATA/sweeps/fit_log.yaml" >first.yaml
printf '%s\n' '  time: "2"' >>first.yaml # under slurm:
done_count() {
	"$SWEEP" status "$1" --json | /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["done"])'
}
finished() { [ "$(done_count "$1")" = "$2" ]; }

submit_on first.yaml
first=$SWEEP_ID
wait_until 300 "the first sweep to finish" finished "$first" 4
"$SWEEP" report "$first" >first.out || fail "the first sweep is not complete: $(cat first.out)"
sed 's/^seeds: 2/seeds: 3/' first.yaml >grown.yaml
first_logs=(logs/*_[0-3].out)
"$SWEEP" submit "${on_opt[@]}" --extend "$first" grown.yaml >extend.out 2>extend.err ||
	fail "submit --extend failed: $(cat extend.out extend.err)"
cat extend.out extend.err >&2
grep -q 'cannot read' extend.err && fail "submit --extend warns of what it need not read: $(cat extend.err)"
second=$(sed -n 's/^sweep \([0-9]*\) .*/\1/p' extend.out | head -1)
# Local job ids mean nothing to Slurm: only the cluster's are cancelled at the end.
[ "$BACKEND" = local ] ||
	mapfile -t -O "${#CLEANUP_JOBS[@]}" CLEANUP_JOBS < <(sed -n 's/^array job \([0-9]*\):.*/\1/p' extend.out)
wait_until 300 "the extension to finish" finished "$second" 6
"$SWEEP" report "$second" >report.out 2>report.err || fail "the extension is not complete: $(cat report.out report.err)"
cat report.out >&2
grep -q 'cannot read' report.err && fail "report warns: $(cat report.err)"
[ "$(grep -c '(n = 3)' report.out)" -eq 2 ] || fail "not n = 3 in every row"
grep -q "^4 tasks reused from sweep $first" report.out || fail "the report does not say what was reused"
"$SWEEP" report "$second" --csv >second.csv
# Each mean of the extension: the two reused losses (the first sweep's
# logs, tasks 0-1 and 2-3) and the new seed's (task 2 and 5 of its own).
/usr/bin/python3 - "${first_logs[@]}" <<'PY' || fail "the reused metrics are not the first sweep's: $(cat second.csv)"
import csv, glob, re, sys
def loss(path):
    return float(re.findall(r"final loss: ([0-9.eE+-]+)", open(path).read())[-1])
first = [loss(p) for p in sorted(sys.argv[1:])]
assert len(first) == 4, sys.argv
new = sorted(p for p in glob.glob("logs/*_[25].out") if p not in sys.argv[1:])
assert len(new) == 2, new
want = {"0.1": (first[0] + first[1] + loss(new[0])) / 3, "0.2": (first[2] + first[3] + loss(new[1])) / 3}
for row in csv.DictReader(open("second.csv")):
    assert abs(float(row["loss_mean"]) - want[row["lr"]]) < 1e-6, (row, want)
PY
log "ok"
