#!/bin/bash
# Why tasks failed, in the program's own words (issue 23), on Slurm and with
# --local, for a program as users write them (cause_train.py: no handler,
# metric on stdout, run from a folder with a space):
# - a Python import error, a crash for one seed only, an error printed only
#   to stdout, and (Slurm) an OOM after a line of the program's: each task's
#   cause, grouped by cause with counts and indices, largest group first,
#   in status --tasks, status --json, report (which refuses) and
#   resubmit --dry-run;
# - a shell "command not found", with what ran on the node and at submit,
#   and without the path of sweep's script;
# - resubmit refuses a sweep whose tasks all failed the same way, for no
#   resource, unless --force;
# - sweep logs shows the traceback, and -f follows a running task to its end;
# - status --watch shows the first failure group while other tasks still run;
# - what ran: a shim first on the node's PATH, not the python3 of submit;
# - retries (retry_on_exit) stop after a round that fails the same way.
. "$(dirname "$0")/lib.sh"
cluster_up
mkdir "my runs"
cd "my runs"
cp "$DATA/cause_train.py" train.py

cleanup_local() {
	[ -z "${WATCHER:-}" ] || kill "$WATCHER" 2>/dev/null || true
	[ -z "${FOLLOWER:-}" ] || kill "$FOLLOWER" 2>/dev/null || true
	cancel_sweeps
}
trap cleanup_local EXIT
done_count() { "$SWEEP" status "$1" --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["done"])'; }
finished() { [ "$(done_count "$1")" = "$2" ]; }

# run BACKEND YAML N: submits and waits until N tasks are done.
run() {
	local backend=$1 yaml=$2 n=$3
	if [ "$backend" = local ]; then
		submit_local "$yaml"
	else
		submit "$yaml"
	fi
	wait_until 300 "sweep $SWEEP_ID ($backend) to end its $n tasks" finished "$SWEEP_ID" "$n"
}

write_sweep() { # NAME MODES...
	local name=$1
	shift
	{
		echo "name: $name"
		echo "command: /usr/bin/python3 train.py {seed} {mode}"
		echo "seeds: 2"
		echo "grid:"
		printf '  mode: [%s]\n' "$(IFS=,; echo "$*")"
		echo "results:"
		echo "  log:"
		echo "    accuracy: 'accuracy: ([0-9.]+)'"
		echo "slurm:"
		echo "  mem: 100M"
		echo '  time: "3"'
	} >"$name.yaml"
}

# expect FILE REGEX WHAT
expect() { grep -q -E -- "$2" "$1" || fail "$3: no /$2/ in $1: $(cat "$1")"; }

check_mixed() { # BACKEND ID WITH_OOM
	local backend=$1 id=$2 oom=$3 rc=0
	"$SWEEP" status "$id" --tasks >"status.$backend" || fail "$backend: status failed"
	"$SWEEP" report "$id" >"report.$backend" 2>&1 || rc=$?
	((rc == 3)) || fail "$backend: report exited $rc, not 3 (incomplete): $(cat "report.$backend")"
	"$SWEEP" resubmit "$id" --dry-run >"dry.$backend" 2>&1 || fail "$backend: resubmit --dry-run failed: $(cat "dry.$backend")"
	for f in "status.$backend" "report.$backend"; do
		expect "$f" "^  2 tasks \\(2,3\\): ModuleNotFoundError: No module named 'sklearn_not_installed_here'\$" "$backend import group"
		expect "$f" "^  2 tasks \\(6,7\\): error: loss is nan at step 7, giving up\$" "$backend stdout-only group"
		expect "$f" "^  1 task \\(5\\): ValueError: loss diverged at step 120 for seed 1\$" "$backend one-seed group"
		# Largest group first: the first group line counts 2 tasks.
		[ "$(grep -m1 -E '^  [0-9]+ tasks? \(' "$f" | awk '{print $1}')" = 2 ] || fail "$backend: largest group not first in $f"
	done
	if [ "$oom" = yes ]; then
		expect "report.$backend" "^  2 tasks \\(8,9\\): out of memory\$" "$backend oom group"
		expect "report.$backend" "out of memory; last line: allocating the embedding table" "$backend oom with the program's line"
	fi
	expect "dry.$backend" "ModuleNotFoundError" "$backend resubmit --dry-run cause"
	expect "dry.$backend" "^these will likely fail the same way again:" "$backend resubmit warning"
	grep -q -E '^  2 tasks \(8,9\) failed for no resource' "dry.$backend" && fail "$backend: OOM called no resource"
	"$SWEEP" status "$id" --json >"status.$backend.json"
	/usr/bin/python3 - "status.$backend.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
by = {t["index"]: t for t in s["tasks"]}
assert by[2]["cause"] == "ModuleNotFoundError: No module named 'sklearn_not_installed_here'", by[2]
assert by[0].get("cause") in (None, ""), by[0]
groups = s["cause_groups"]
assert groups[0]["count"] == 2 and groups[0]["indices"] == [2, 3] and not groups[0]["resource"], groups
PY
	"$SWEEP" logs "$id" 2 >"logs.$backend" || fail "$backend: sweep logs failed"
	expect "logs.$backend" "Traceback \\(most recent call last\\)" "$backend sweep logs shows stderr"
	expect "logs.$backend" "epoch 1 loss 0.9 seed 0" "$backend sweep logs shows stdout"
	"$SWEEP" logs "$id" 6 --err >"logs6.$backend" || fail "$backend: sweep logs --err failed"
	grep -q "giving up" "logs6.$backend" && fail "$backend: logs --err shows stdout"
	return 0
}

check_not_found() { # BACKEND ID
	local backend=$1 id=$2 rc=0
	"$SWEEP" report "$id" >"nf.$backend" 2>&1 || rc=$?
	((rc == 3)) || fail "$backend: report of the not-found sweep exited $rc"
	expect "nf.$backend" "^  2 tasks \\(0,1\\): trian.sh: command not found \\(trian.sh not found on [^ ]+ nor at submit\\)\$" "$backend command not found"
	grep -q -E 'slurm_script|\.sbatch: line' "nf.$backend" && fail "$backend: the cause names sweep's script: $(cat "nf.$backend")"
	rc=0
	"$SWEEP" resubmit "$id" --dry-run >"nfre.$backend" 2>&1 || rc=$?
	((rc != 0)) || fail "$backend: resubmit of tasks that all failed the same way was not refused"
	expect "nfre.$backend" "the same command would fail the same way" "$backend refusal"
	"$SWEEP" resubmit "$id" --dry-run --force >"nfre.$backend" 2>&1 || fail "$backend: resubmit --force refused: $(cat "nfre.$backend")"
}

# --- Slurm: a failure group shows in status --watch while a task still runs ---
write_sweep mixed slow ok import oneseed stdout oom
submit mixed.yaml
MIXED=$SWEEP_ID
"$SWEEP" status "$MIXED" --watch=5 >watch.out 2>&1 &
WATCHER=$!
# sweep logs -f follows the slow task 0 until it ends (its last line comes
# after 45 s of silence).
"$SWEEP" logs "$MIXED" 0 -f >follow.out 2>&1 &
FOLLOWER=$!
seen_early() { grep -q "ModuleNotFoundError" watch.out; }
wait_until 120 "status --watch to show the import error" seen_early
[ -n "$(squeue -h -r -j "$(jobs_csv)" 2>/dev/null)" ] ||
	fail "the slow tasks ended before status --watch showed the first failure"
grep -q "accuracy:" follow.out && fail "logs -f shows the slow task's last line before it was written"
wait_until 300 "sweep $MIXED to end its 12 tasks" finished "$MIXED" 12
wait "$WATCHER" || fail "status --watch failed: $(tail watch.out)"
WATCHER=
wait_until 60 "sweep logs -f to end with its task" eval '! kill -0 "$FOLLOWER" 2>/dev/null'
wait "$FOLLOWER" || fail "sweep logs -f failed: $(cat follow.out)"
expect follow.out "^accuracy: 0.8\$" "logs -f: the slow task's last line"
expect follow.out "epoch 1 loss 0.9 seed 0" "logs -f: the slow task's first line"
# The slow setting comes first here, so the import error is tasks 4 and 5.
expect watch.out "^  2 tasks \\(4,5\\): ModuleNotFoundError" "watch group"

write_sweep causes ok import oneseed stdout oom
run slurm causes.yaml 10
check_mixed slurm "$SWEEP_ID" yes
# The best settings of a sweep with failed tasks are not known: confirm refuses.
rc=0
"$SWEEP" confirm "$SWEEP_ID" --goal accuracy=max >confirm.out 2>&1 || rc=$?
((rc == 1)) || fail "confirm of an incomplete sweep exited $rc: $(cat confirm.out)"
expect confirm.out "is incomplete \\(7 of 10 tasks missing or failed\\): its best settings are not known" "confirm's gate"
printf 'name: notfound\ncommand: trian.sh --seed {seed}\nseeds: 2\nslurm:\n  time: "1"\n' >notfound.yaml
run slurm notfound.yaml 2
check_not_found slurm "$SWEEP_ID"

# --- What ran: python3 on the node is not the one submit found -----------------
# A setup that puts a broken pyenv-like shim first on PATH, as a login
# profile or a module does on a node.
mkdir shims
printf '#!/bin/sh\necho "pyenv: python3: command not found" >&2\nexit 127\n' >shims/python3
chmod +x shims/python3
{
	echo "name: shim"
	echo "command: python3 train.py {seed} ok"
	echo "seeds: 2"
	echo "setup: export PATH=\"$PWD/shims:\$PATH\""
	echo "slurm:"
	echo '  time: "1"'
} >shim.yaml
run slurm shim.yaml 2
rc=0
"$SWEEP" report "$SWEEP_ID" >shim.out 2>&1 || rc=$?
((rc == 3)) || fail "report of the shim sweep exited $rc"
expect shim.out "^  2 tasks \\(0,1\\): pyenv: python3: command not found \\(python3 was .*/my runs/shims/python3 on [^ ]+, .* at submit\\)\$" "what ran"

# --- retries with retry_on_exit stop after a round that fails the same way -----
{
	echo "name: retried"
	echo "command: /usr/bin/python3 train.py {seed} import"
	echo "seeds: 2"
	echo "retries: 3"
	echo "retry_on_exit: true"
	echo "slurm:"
	echo '  time: "1"'
} >retried.yaml
submit retried.yaml
RETRIED=$SWEEP_ID
followups_over() { "$SWEEP" status "$RETRIED" >retried.out 2>&1 && grep -q "final:" retried.out; }
wait_until 420 "the follow-ups of sweep $RETRIED to end" followups_over
expect retried.out "retries stopped: retry round 1 failed the same way everywhere" "retries stop"
expect retried.out "2 array jobs" "one retry round, not three"
grep -q "; ;" retried.out && fail "an empty part in the follow-up note: $(cat retried.out)"

# --- The local backend: the same ----------------------------------------------
write_sweep lcauses ok import oneseed stdout oom
run local lcauses.yaml 10
check_mixed local "$SWEEP_ID" yes
run local notfound.yaml 2
check_not_found local "$SWEEP_ID"
log "ok"
