#!/usr/bin/env python3
"""A task for the compare test, written as users write them.

Its accuracy depends on --lr (0.01 is best) plus seed noise; it prints its
metrics, writes them to $SWEEP_RESULT, and writes a learning curve as JSON
Lines to curve.jsonl in its task folder: one line every 10 steps, and a
seed-dependent number of lines (seed k stops after step 10 * (5 + k)), so
that the seeds of a setting reach different steps.
"""
import argparse
import json
import os
import random

BASE = {"0.001": 0.70, "0.01": 0.85, "0.1": 0.80}

ap = argparse.ArgumentParser()
ap.add_argument("--lr", required=True)
ap.add_argument("--seed", type=int, required=True)
args = ap.parse_args()

rng = random.Random(args.seed * 7919 + len(args.lr))
acc = BASE[args.lr] + rng.gauss(0.0, 0.01)
last = 10 * (5 + args.seed)
with open(os.path.join(os.environ["SWEEP_TASK_DIR"], "curve.jsonl"), "w") as f:
    for step in range(0, last + 1, 10):
        frac = step / last
        f.write(json.dumps({"step": step, "accuracy": acc * frac + 0.1 * (1 - frac),
                            "loss": 2.0 * (1 - acc * frac)}) + "\n")
metrics = {"accuracy": acc, "loss": 2.0 * (1 - acc)}
print(f"lr={args.lr} seed={args.seed} accuracy={acc:.4f}")
with open(os.environ["SWEEP_RESULT"], "w") as f:
    json.dump(metrics, f)
