#!/bin/bash
# submit --extend reuses every task that passed, whatever way its metrics
# are read: the same verdict as report. A program as users write them
# (fit.py: prints its loss, writes its own JSON Lines file, no signal
# handler) in a folder with a space, with `results: log` and `results: file`
# ({sweep}/{task} in the path), on Slurm and with --local. Then the edit of
# one bad value: the dry run says per setting what is reused, changed and
# new, and report --exclude drops a setting with its reason, said under the
# table.
. "$(dirname "$0")/lib.sh"
cluster_up
mkdir "sub mit"
cd "sub mit"
cp "$DATA/fit.py" .

trap cancel_sweeps EXIT
done_count() {
	"$SWEEP" status "$1" --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["done"])'
}
finished() { [ "$(done_count "$1")" = "$2" ]; }

# run BACKEND YAML N: submits (slurm or local) and waits for N tasks to end.
run() {
	local backend=$1 yaml=$2 n=$3
	shift 3
	if [ "$backend" = local ]; then
		submit_local "$@" "$yaml"
	else
		submit "$@" "$yaml"
		wait_sweep "$n" 600
	fi
	wait_until 300 "sweep $SWEEP_ID to count its tasks done" finished "$SWEEP_ID" "$((n + ${REUSED:-0}))"
}

# extend_case BACKEND YAML: 2 values x 2 seeds, then 3 x 3 with --extend.
extend_case() {
	local backend=$1 yaml=$2 first second local_opt=()
	[ "$backend" = local ] && local_opt=(--local)
	log "extend: $backend, $(basename "$yaml")"
	REUSED=0 run "$backend" "$yaml" 4
	first=$SWEEP_ID
	"$SWEEP" report "$first" >first.out || fail "$backend $yaml: the first sweep is not complete: $(cat first.out)"
	sed -e 's/^seeds: 2/seeds: 3/' -e 's/lr: \[0.1, 0.2\]/lr: [0.1, 0.2, 0.3]/' "$yaml" >grown.yaml
	"$SWEEP" submit "${local_opt[@]}" --extend "$first" --dry-run grown.yaml >dry.out ||
		fail "extend --dry-run failed"
	grep -q '^# 4 reused, 5 to run$' dry.out || fail "$backend $yaml: not '4 reused, 5 to run': $(cat dry.out)"
	grep -q 'did not pass' dry.out && fail "$backend $yaml: passed tasks said not to pass: $(cat dry.out)"
	REUSED=4 run "$backend" grown.yaml 5 --extend "$first"
	second=$SWEEP_ID
	"$SWEEP" report "$second" >report.out ||
		fail "$backend $yaml: the extended sweep's report is not complete: $(cat report.out)"
	cat report.out >&2
	[ "$(grep -c '(n = 3)' report.out)" -eq 3 ] || fail "$backend $yaml: not n = 3 in every row"
	grep -q "^4 tasks reused from sweep $first (indices 0-1,3-4)" report.out ||
		fail "$backend $yaml: the report does not say what was reused"
	# The reused tasks did not run again: the extension's array jobs ran 5 tasks.
	if [ "$backend" = slurm ]; then
		ran=$(sacct -n -P -X -j "$(jobs_csv)" -o JobID | sort -u | grep -c .)
		[ "$ran" -eq 5 ] || fail "$backend $yaml: the extension ran $ran tasks, want 5"
	fi
}

extend_case slurm "$DATA/sweeps/fit_log.yaml"
# Per setting in the dry run: lr=0.3 is new; editing 0.2 to 0.25 is a change.
sed -e 's/lr: \[0.1, 0.2, 0.3\]/lr: [0.1, 0.25, 0.3]/' grown.yaml >edited.yaml
"$SWEEP" submit --extend "$SWEEP_ID" --dry-run edited.yaml >edit.out || fail "dry run of the edit failed"
grep -q '^#   lr=0.1: reused (3 seeds)$' edit.out || fail "lr=0.1 not reused: $(cat edit.out)"
grep -q '^#   lr=0.25: changed (lr: 0.2 -> 0.25): 3 to run$' edit.out || fail "no change: $(cat edit.out)"
grep -q '^#   lr=0.3: reused (3 seeds)$' edit.out || fail "lr=0.3 not reused: $(cat edit.out)"
# report --exclude: recorded with its reason, said under the table, never silent.
"$SWEEP" report "$SWEEP_ID" --exclude 'lr=0.2' >excl.out 2>&1 && fail "--exclude without --reason accepted"
"$SWEEP" report "$SWEEP_ID" --exclude 'lr=0.7' --reason x >excl.out 2>&1 && fail "a selector naming nothing accepted"
grep -q "'lr=0.7' matches no setting" excl.out || fail "$(cat excl.out)"
"$SWEEP" report "$SWEEP_ID" --exclude 'lr=0.2' --reason 'a typo' >excl.out || fail "--exclude failed"
"$SWEEP" report "$SWEEP_ID" >excl.out || fail "report after --exclude failed"
cat excl.out >&2
[ "$(grep -c '(n = 3)' excl.out)" -eq 2 ] || fail "lr=0.2 still reported: $(cat excl.out)"
grep -q '^  lr=0.2 (1 setting): a typo (recorded ' excl.out || fail "the exclusion is not said: $(cat excl.out)"
"$SWEEP" report "$SWEEP_ID" --json | python3 -c 'import json, sys; e = json.load(sys.stdin)["excluded"]; assert e[0]["selector"] == "lr=0.2" and e[0]["reason"] == "a typo", e' ||
	fail "JSON does not list the exclusion"
"$SWEEP" report "$SWEEP_ID" --include 'lr=0.2' >excl.out || fail "--include failed"
[ "$(grep -c '(n = 3)' excl.out)" -eq 3 ] || fail "--include did not bring lr=0.2 back"
extend_case slurm "$DATA/sweeps/fit_file.yaml"
extend_case local "$DATA/sweeps/fit_log.yaml"
extend_case local "$DATA/sweeps/fit_file.yaml"
log "ok"
