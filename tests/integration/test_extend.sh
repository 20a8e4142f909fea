#!/bin/bash
# Grow a finished sweep: 2 seeds x 2 values, then --extend to 4 seeds and one
# more value. Only the 8 new tasks run; the report pools all 12 (n = 4 in
# every row) and says which tasks came from which sweep. A changed command
# reuses nothing and says why.
. "$(dirname "$0")/lib.sh"
cluster_up
cp "$DATA/score.py" .
submit "$DATA/sweeps/grow.yaml"
FIRST=$SWEEP_ID
wait_sweep 4 300
"$SWEEP" report "$FIRST" >first.out || fail "the first sweep is not complete: $(cat first.out)"

sed -e 's/^seeds: 2/seeds: 4/' -e 's/x: \[1, 2\]/x: [1, 2, 3]/' "$DATA/sweeps/grow.yaml" >grow4.yaml
"$SWEEP" submit --extend "$FIRST" --dry-run grow4.yaml >dry.out || fail "extend --dry-run failed"
grep -q '^# 4 reused, 8 to run$' dry.out || fail "dry run does not say '4 reused, 8 to run': $(tail -5 dry.out)"
grep -q "^# 4 tasks reused from sweep $FIRST (indices 0-1,4-5)" dry.out || fail "dry run does not say what is reused"

submit --extend "$FIRST" grow4.yaml
SECOND=$SWEEP_ID
wait_sweep 8 300
# Only the new tasks ran: one array job of 8 tasks, none of the old indices.
ran=$(sacct -n -P -X -j "$(jobs_csv)" -o JobID | sort -u)
[ "$(wc -l <<<"$ran")" -eq 8 ] || fail "expected 8 new tasks, accounting has: $ran"
for old in 0 1 4 5; do
	grep -qx "${JOBS[0]}_$old" <<<"$ran" && fail "task $old ran again"
done
done_all() { "$SWEEP" status "$SECOND" | grep -q '^COMPLETED 12$'; }
wait_until 60 "status to count all 12 tasks completed" done_all
"$SWEEP" report "$SECOND" >report.out || fail "the extended sweep's report is not complete: $(cat report.out)"
cat report.out >&2
[ "$(grep -c '(n = 4)' report.out)" -eq 3 ] || fail "not n = 4 in every row"
grep -q "^4 tasks reused from sweep $FIRST (indices 0-1,4-5)" report.out || fail "the report does not say what was reused"

# A changed command reuses nothing, and says why.
sed 's/{x} {seed}/{x} {seed} extra/' grow4.yaml >changed.yaml
"$SWEEP" submit --extend "$SECOND" --dry-run changed.yaml >changed.out || fail "dry run failed"
grep -q '^# 0 reused, 12 to run$' changed.out || fail "a changed command still reuses tasks"
grep -q "^# sweep $SECOND 'grow' ran with different command text: nothing of it is reused" changed.out ||
	fail "the output does not say why nothing is reused: $(tail -4 changed.out)"
log "ok"
