#!/bin/bash
# Concurrent sweep confirm runs of one sweep take disjoint seeds: reading the seeds the family used and recording the new
# sweep happen under the family's submission lock. The local backend: no
# Slurm needed.
. "$(dirname "$0")/lib.sh"
trap cancel_sweeps EXIT

cat >tiny.yaml <<'YAML'
name: tiny
command: echo acc={x}.{seed}
seeds: 2
grid:
  x: [1, 2]
results:
  log:
    acc: 'acc=([0-9.]+)'
metrics:
  acc: max
slurm:
  time: "1:00"
  mem: 100M
YAML
submit_local tiny.yaml
BASE=$SWEEP_ID
wait_until 120 "the sweep to finish" bash -c "'$SWEEP' status $BASE | grep -q '^4/4 done'"

# A goal for a metric the sweep does not report is an error, not the file's goal.
"$SWEEP" confirm "$BASE" --goal nosuch=max --dry-run >nosuch.out 2>&1 && fail "confirm took --goal nosuch: $(cat nosuch.out)"
grep -q "error: --goal 'nosuch': no metric 'nosuch' is reported; the metrics are 'acc'" nosuch.out ||
	fail "no error naming the metrics: $(cat nosuch.out)"

# Five rounds of two confirms of the sweep at once.
for round in 1 2 3 4 5; do
	"$SWEEP" confirm "$BASE" --top 1 --seeds 2 >"a$round.out" 2>&1 &
	A=$!
	"$SWEEP" confirm "$BASE" --top 1 --seeds 2 >"b$round.out" 2>&1 &
	B=$!
	wait "$A" || fail "confirm a of round $round failed: $(cat "a$round.out")"
	wait "$B" || fail "confirm b of round $round failed: $(cat "b$round.out")"
done
cat a*.out b*.out | sed -n 's/^selected on seeds 0-1 of sweep [0-9]*; estimated on seeds \([0-9-]*\).*/\1/p' >ranges
[ "$(grep -c . ranges)" = 10 ] || fail "expected 10 confirms' seeds, got: $(cat a*.out b*.out)"
/usr/bin/python3 - ranges <<'PY' || fail "two confirms took the same seeds: $(tr '\n' ' ' <ranges)"
import sys
seen = set()
for line in open(sys.argv[1]):
    lo, _, hi = line.strip().partition("-")
    seeds = set(range(int(lo), int(hi or lo) + 1))
    assert len(seeds) == 2, line
    assert not (seeds & seen), (line, sorted(seen))
    assert not (seeds & {0, 1}), line
    seen |= seeds
print("10 concurrent confirms: 20 distinct fresh seeds")
PY
log "ok"
