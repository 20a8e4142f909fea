#!/bin/bash
# The quick start example end to end: all tasks complete, and `sweep report`
# prints per setting the mean and sample std over seeds with n, matching an
# independent computation from the tasks' own result files.
. "$(dirname "$0")/lib.sh"
cluster_up
cp -r "$SWEEP_SOURCE_DIR/examples" .
submit examples/quickstart.yaml
wait_sweep 12 300

"$SWEEP" status
"$SWEEP" report
"$SWEEP" report --json >report.json
"$SWEEP" report --csv >report.csv
python3 - "$(sweep_dir)" <<'PY'
import json, os, statistics, sys, csv
d = sys.argv[1]
rep = json.load(open("report.json"))
settings = rep["settings"]
assert len(settings) == 4, settings
seeds = 3
for s, row in enumerate(settings):
    losses = [json.load(open(os.path.join(d, "tasks", str((s * seeds + k) // 1000), str(s * seeds + k), "result.json")))["loss"]
              for k in range(seeds)]
    m = row["metrics"]["loss"]
    assert m["n"] == 3, m
    assert abs(m["mean"] - statistics.mean(losses)) <= 1e-9 * max(1, abs(m["mean"])), (m, losses)
    assert abs(m["std"] - statistics.stdev(losses)) <= 1e-9 * max(1, abs(m["std"])), (m, losses)
rows = list(csv.reader(open("report.csv")))
assert len(rows) == 5, rows
print("report matches an independent computation for", len(settings), "settings")
PY
log "ok"
