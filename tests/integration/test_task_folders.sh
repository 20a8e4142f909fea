#!/bin/bash
# Task folders grouped by the thousand (issue 36, item 5), on the real
# cluster: a sweep's tasks make tasks/<index / 1000>/<index> (and the group
# folder, private) as they start, and report reads their metrics from
# result.json, from `results: file` and from `results: log`; a sweep whose
# template of one's own was copied before {{TASK_DIR}} keeps the flat
# tasks/<index>, and reads there. The program is as users write them: no
# signal handler, metrics printed, in a folder with a space.
. "$(dirname "$0")/lib.sh"
cluster_up
mkdir "sub mit"
cd "sub mit"
cat >train.py <<'PY'
import json, os, sys
x = int(sys.argv[1])
loss = 1.0 / x
print(f"epoch 1 loss {loss}")
with open(os.environ["SWEEP_RESULT"], "w") as f:
    json.dump({"loss": loss}, f)
with open(f"out {x}.json", "w") as f:
    json.dump({"loss": loss}, f)
PY

# check_report HOW: the report of SWEEP_ID has each x's loss.
check_report() {
	"$SWEEP" report "$SWEEP_ID" --json >"$1.json" 2>"$1.err" || fail "$1: report: $(cat "$1.err")"
	python3 - "$1.json" <<'PY' || fail "$1: report --json: $(cat "$1.json")"
import json, sys
r = json.load(open(sys.argv[1]))
got = sorted(round(s["metrics"]["loss"]["mean"], 6) for s in r["settings"])
assert got == [round(1 / 3, 6), 0.5, 1.0], got
PY
}

for how in json file log; do
	{
		printf '%s\n' "name: folders-$how" 'command: python3 train.py {x}' 'grid:' '  x: [1, 2, 3]'
		case $how in
		file) printf '%s\n' 'results:' '  file: out {x}.json' ;;
		log) printf '%s\n' 'results:' '  log:' "    loss: 'loss ([0-9.]+)'" ;;
		esac
		printf '%s\n' 'slurm:' '  mem: 100M'
	} >"$how.yaml"
	submit "$how.yaml"
	wait_sweep 3 300
	completed_once 3 || fail "$how: not every task completed once"
	for i in 0 1 2; do
		[ -s "$(task_dir_in $i)/result.json" ] || fail "$how: no result.json in $(task_dir_in $i)"
	done
	[ ! -e "$(sweep_dir)/tasks/1" ] && [ ! -e "$(sweep_dir)/tasks/2" ] ||
		fail "$how: a flat task folder: $(ls "$(sweep_dir)/tasks")"
	[ "$(stat -c %a "$(sweep_dir)/tasks/0")" = 700 ] || fail "$how: the group folder is not private"
	check_report "$how"
done
log "grouped: read from result.json, results: file and results: log"

# A template of one's own copied before {{TASK_DIR}}: the flat layout.
sed 's|^SWEEP_TASK_DIR={{TASK_DIR}}$|SWEEP_TASK_DIR=$SWEEP_DIR/tasks/$SWEEP_TASK_INDEX|' \
	"$SWEEP_SOURCE_DIR/templates/array.sbatch" >"my template.sbatch"
grep -q 'TASK_DIR}}' "my template.sbatch" && fail "the template still has the marker"
printf '%s\n' 'name: folders-flat' 'command: python3 train.py {x}' 'grid:' '  x: [1, 2, 3]' \
	'template: my template.sbatch' 'slurm:' '  mem: 100M' >flat.yaml
submit flat.yaml
wait_sweep 3 300
completed_once 3 || fail "flat: not every task completed once"
for i in 0 1 2; do
	[ -s "$(sweep_dir)/tasks/$i/result.json" ] || fail "flat: no tasks/$i/result.json: $(find "$(sweep_dir)/tasks")"
done
check_report flat
log "a template without {{TASK_DIR}}: flat, read there"
log "ok"
