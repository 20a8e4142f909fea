#!/bin/bash
# Task folders grouped by the thousand (issue 36, item 5), local backend: a
# new sweep's tasks write in tasks/<index / 1000>/<index> and report reads
# their metrics there, from result.json, from `results: file` and from
# `results: log`. An old sweep, laid out as sweep left them before (flat
# tasks/<index>, a store of schema 10 without the layout, its script
# computing the flat folder), still reads: status, report, resubmit of its
# failed task, and submit --extend, which copies its results into the new
# sweep's grouped folders. The program is as users write them: no signal
# handler, metrics printed, in a folder with a space.
. "$(dirname "$0")/lib.sh"
trap cancel_sweeps EXIT
mkdir "sub mit"
cd "sub mit"
cat >train.py <<'PY'
import json, os, sys
x = int(sys.argv[1])
if x == 3 and not os.path.exists("ok"):
    sys.exit("diverged at x=3")
loss = 1.0 / x
print(f"epoch 1 loss {loss}")
with open(os.environ["SWEEP_RESULT"], "w") as f:
    json.dump({"loss": loss}, f)
with open(f"out {x}.json", "w") as f:
    json.dump({"loss": loss}, f)
PY

done_count() {
	"$SWEEP" status "$1" --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["done"])'
}
finished() { [ "$(done_count "$1")" = "$2" ]; }

# --- New sweeps: the grouped layout, metrics read three ways ----------------
touch ok
for how in json file log; do
	{
		printf '%s\n' "name: folders-$how" 'command: /usr/bin/python3 train.py {x}' 'grid:' '  x: [1, 2, 3]'
		case $how in
		file) printf '%s\n' 'results:' '  file: out {x}.json' ;;
		log) printf '%s\n' 'results:' '  log:' "    loss: 'loss ([0-9.]+)'" ;;
		esac
	} >"$how.yaml"
	submit_local "$how.yaml"
	wait_until 120 "sweep $SWEEP_ID ($how) to end" finished "$SWEEP_ID" 3
	for i in 0 1 2; do
		[ -s "$(sweep_dir)/tasks/0/$i/result.json" ] || fail "$how: no result.json in tasks/0/$i"
		[ -e "$(sweep_dir)/tasks/0/$i/.ran" ] || fail "$how: no .ran note in tasks/0/$i"
	done
	[ ! -e "$(sweep_dir)/tasks/1" ] && [ ! -e "$(sweep_dir)/tasks/2" ] ||
		fail "$how: a flat task folder: $(ls "$(sweep_dir)/tasks")"
	[ "$(stat -c %a "$(sweep_dir)/tasks/0")" = 700 ] || fail "$how: the group folder is not private"
	"$SWEEP" report "$SWEEP_ID" --json >"$how.json" 2>"$how.err" || fail "$how: report: $(cat "$how.err")"
	python3 - "$how.json" <<'PY' || fail "$how: report --json: $(cat "$how.json")"
import json, sys
r = json.load(open(sys.argv[1]))
got = sorted(round(s["metrics"]["loss"]["mean"], 6) for s in r["settings"])
assert got == [round(1 / 3, 6), 0.5, 1.0], got
PY
done
rm ok
log "new sweeps: tasks/0/<index>, read from result.json, results: file and results: log"

# --- An old sweep: flat tasks/<index>, a store of schema 10 --------------------
# Made as sweep made it before: submitted, then its folders moved where the
# old script put them, its script's SWEEP_TASK_DIR line the old one, and its
# store without the layout column (schema 10).
export SWEEP_STATE_DIR=$WORK/old-state
printf '%s\n' 'name: old' 'command: /usr/bin/python3 train.py {x}' 'grid:' '  x: [1, 2, 3]' >old.yaml
submit_local old.yaml
OLD=$SWEEP_ID
wait_until 120 "the old sweep to end" finished "$OLD" 3
dir=$(sweep_dir)
mv "$dir/tasks" "$dir/tasks.grouped"
mkdir -m 700 "$dir/tasks"
for i in 0 1 2; do mv "$dir/tasks.grouped/0/$i" "$dir/tasks/$i"; done
rm -r "$dir/tasks.grouped"
sed -i 's|^SWEEP_TASK_DIR=.*|SWEEP_TASK_DIR=$SWEEP_DIR/tasks/$SWEEP_TASK_INDEX|' "$dir/old.sbatch"
python3 - "$SWEEP_STATE_DIR/sweep.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.executescript("ALTER TABLE sweeps DROP COLUMN task_layout; ALTER TABLE acct_arrays DROP COLUMN since; PRAGMA user_version = 10;")
db.close()
PY

"$SWEEP" status "$OLD" >status.out 2>&1 || fail "status of the old sweep: $(cat status.out)"
grep -q 'COMPLETED 2, FAILED 1' status.out || fail "old sweep's status: $(cat status.out)"
"$SWEEP" report "$OLD" --allow-incomplete --json >old.json 2>old.err || true
python3 - old.json <<'PY' || fail "the old sweep's results were not read: $(cat old.json old.err)"
import json, sys
r = json.load(open(sys.argv[1]))
got = sorted(round(s["metrics"]["loss"]["mean"], 6) for s in r["settings"] if s["metrics"]["loss"]["mean"] is not None)
assert got == [0.5, 1.0], got
PY
python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT task_layout FROM sweeps").fetchall())' \
	"$SWEEP_STATE_DIR/sweep.db" | grep -qx '\[(0,)\]' || fail "the old sweep is not recorded flat"

# Its failed task again: its own (old) script writes in tasks/2, read there.
touch ok
"$SWEEP" resubmit "$OLD" --force >resub.out 2>&1 || fail "resubmit: $(cat resub.out)"
wait_until 120 "the old sweep's resubmitted task to end" finished "$OLD" 3
[ -s "$dir/tasks/2/result.json" ] || fail "the rerun did not write tasks/2/result.json: $(find "$dir/tasks")"
[ ! -e "$dir/tasks/0/2" ] || fail "the old sweep's rerun wrote in the grouped layout"
"$SWEEP" report "$OLD" >old.report 2>&1 || fail "the old sweep's report after resubmit: $(cat old.report)"

# Extended by a new sweep: reused results copied from flat to grouped folders.
printf '%s\n' 'name: old' 'command: /usr/bin/python3 train.py {x}' 'grid:' '  x: [1, 2, 3, 4]' >grown.yaml
submit_local --extend "$OLD" grown.yaml
NEW=$SWEEP_ID
wait_until 120 "the extension to end" finished "$NEW" 4
for i in 0 1 2 3; do
	[ -s "$(sweep_dir)/tasks/0/$i/result.json" ] || fail "extension: no tasks/0/$i/result.json: $(find "$(sweep_dir)/tasks")"
done
"$SWEEP" report "$NEW" >new.report 2>&1 || fail "the extension's report: $(cat new.report)"
grep -q "^3 tasks reused from sweep $OLD" new.report || fail "the extension reused nothing: $(cat new.report)"
log "an old sweep (flat, schema 10): status, report, resubmit and --extend"
log "ok"
