#!/bin/bash
# A sweep larger than MaxArraySize is split into several array jobs, each
# indexed from 0 with an offset; every index runs exactly once.
. "$(dirname "$0")/lib.sh"
cluster_up
max=$(scontrol show config | sed -n 's/^MaxArraySize *= *//p')
((max < 60)) || fail "this test needs MaxArraySize below 60 (the cluster has $max)"
submit "$DATA/sweeps/chunked.yaml"
((${#JOBS[@]} == (60 + max - 1) / max)) || fail "expected $(((60 + max - 1) / max)) array jobs, got ${#JOBS[@]}"
wait_sweep 60 300

python3 - "$(sweep_dir)" <<'PY'
import json, os, sys
d = sys.argv[1]
seen = {}
for index in range(60):
    r = json.load(open(os.path.join(d, "tasks", str(index // 1000), str(index), "result.json")))
    assert r["index"] == index, (index, r)
    assert r["seed"] == index % 20, (index, r)
    seen[index] = True
assert len(seen) == 60
print("60 indices, each with its own seed")
PY
completed_once 60 || fail "not every task completed exactly once"
[ -z "$(find . -path ./.sweep -prune -o -name 'pwned*' -print)" ]
log "ok"
