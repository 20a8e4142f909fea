#!/bin/bash
# bench/big_sweep.sh at a small size on the test cluster as it is (issue 26:
# CI runs only a small size): 300 tasks of a program that prints its loss,
# against the same tasks as a hand-written array split at MaxArraySize. The
# bench must run end to end and print every figure; the sweep must report
# every setting with all its seeds, and the hand-written array's logs must
# hold every loss. It changes no cluster limit (no BIG_* variable).
. "$(dirname "$0")/lib.sh"
cluster_up

out=$PWD/bench.out
bash "$SWEEP_SOURCE_DIR/bench/big_sweep.sh" 300 "$(dirname "$SWEEP")" 1 >"$out" 2>&1 ||
	fail "the bench failed: $(tail -20 "$out")"
cat "$out" >&2

# figure NAME: the line of that figure in the bench's table.
figure() { grep -F -- "$1" "$out" || fail "the bench printed no '$1': $(cat "$out")"; }
figure "wall time, submit to the last task's end" | grep -Eq '^wall time.* [0-9]+ s +hand-written array: [0-9]+ s' ||
	fail "no wall times next to each other"
figure "tasks that printed their loss / reported" | grep -q '30 of 30 settings with n = 10; 0 held' ||
	fail "the sweep's report did not cover every setting with n = 10"
figure "tasks that printed their loss / reported" | grep -q 'hand-written: 300 of 300 losses in the logs' ||
	fail "the hand-written array's logs lack losses"
figure "repeated: report (0 queries)" >/dev/null
figure "state store: sweep.db" | grep -Eq '[0-9.]+ MiB / [0-9.]+ MiB' || fail "no store size"
for f in "first read: status --refresh" "first read: status --tasks --refresh" "rightsize" \
	"slurmctld job records at peak"; do
	figure "$f" | grep -Eq '[0-9]' || fail "no figure for '$f'"
done
# The array jobs: MaxArraySize 50 on the test cluster splits both sides.
max_array=$(scontrol show config | awk '$1 == "MaxArraySize" { print $3 }')
figure "array jobs" | grep -Eq "^array jobs +$(((300 + max_array - 1) / max_array)) +hand-written: $(((300 + max_array - 1) / max_array))" ||
	fail "expected $(((300 + max_array - 1) / max_array)) array jobs on each side"
log "PASS"
