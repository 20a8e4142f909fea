#!/usr/bin/env python3
"""Records exactly what a task received: its arguments and sweep's variables."""
import json
import os
import sys

env = {k: v for k, v in os.environ.items() if k.startswith("SWEEP_")}
record = {"argv": sys.argv[1:], "env": env, "cwd": os.getcwd()}
with open(os.path.join(os.environ["SWEEP_TASK_DIR"], "args.json"), "w") as f:
    json.dump(record, f)
with open(os.environ["SWEEP_RESULT"], "w") as f:
    json.dump({"length": len(sys.argv[1])}, f)
print("argv:", sys.argv[1:])
