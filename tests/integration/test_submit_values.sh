#!/bin/bash
# Every task runs once with exactly its parameters and seed, hostile values
# included; logs land at %x_%A_%a; result files are written; nothing in the
# values runs as shell code.
. "$(dirname "$0")/lib.sh"
cluster_up
cp "$DATA/echo_args.py" .
submit "$DATA/sweeps/hostile.yaml"
wait_sweep 26 300

python3 - "$(sweep_dir)" "${JOBS[0]}" <<'PY'
import json, os, subprocess, sys
sweep_dir, job = sys.argv[1], sys.argv[2]
values = ["it's", "$(touch pwned)", "`touch pwned2`", "two\nlines", "# not a comment",
          "back\\slash \\\\ \\n", "ünïcødé ✓", '"double" quotes', "; touch pwned3 ;",
          "$HOME ${PATH} $1", " spaced  out ", "*", "-n"]
seeds = [0, 7]
errors = []
for index in range(len(values) * len(seeds)):
    v, seed = values[index // 2], seeds[index % 2]
    path = os.path.join(sweep_dir, "tasks", str(index // 1000), str(index), "args.json")
    try:
        rec = json.load(open(path))
    except OSError as e:
        errors.append(f"task {index}: no args.json ({e})")
        continue
    want = [v, "x-" + v, v, f"--seed={seed}", "--index", str(index)]
    if rec["argv"] != want:
        errors.append(f"task {index}: argv {rec['argv']!r} != {want!r}")
    env = rec["env"]
    if env.get("SWEEP_PARAM_v") != v:
        errors.append(f"task {index}: SWEEP_PARAM_v {env.get('SWEEP_PARAM_v')!r} != {v!r}")
    for key, val in [("SWEEP_SEED", str(seed)), ("SWEEP_TASK_INDEX", str(index))]:
        if env.get(key) != val:
            errors.append(f"task {index}: {key}={env.get(key)!r}, want {val!r}")
    if env.get("SWEEP_TASK_DIR") != os.path.join(sweep_dir, "tasks", str(index // 1000), str(index)):
        errors.append(f"task {index}: SWEEP_TASK_DIR {env.get('SWEEP_TASK_DIR')!r}")
    if not os.path.exists(os.path.join(sweep_dir, "tasks", str(index // 1000), str(index), "result.json")):
        errors.append(f"task {index}: no result.json")
    log = os.path.join(os.getcwd(), "logs", f"hostile_{job}_{index}.out")
    if not os.path.exists(log):
        errors.append(f"task {index}: no log at {log}")
for name in ["pwned", "pwned2", "pwned3"]:
    if os.path.exists(name):
        errors.append(f"a value ran as shell code: '{name}' exists")
if errors:
    print("\n".join(errors))
    sys.exit(1)
print(f"all {len(values) * len(seeds)} tasks received their exact values")
PY

# Exactly one run per index, every one COMPLETED 0:0.
completed_once 26 || fail "not every task completed exactly once"
log "ok"
