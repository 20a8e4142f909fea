#!/usr/bin/env python3
"""A training script as users write them: no signal handler, nothing of
sweep's. It prints its loss every epoch and its final loss; with --out it
also writes its own JSON Lines log, one line per epoch. A negative learning
rate diverges: the loss is printed as nan."""
import argparse
import json
import os

p = argparse.ArgumentParser()
p.add_argument("--lr", type=float, required=True)
p.add_argument("--seed", type=int, required=True)
p.add_argument("--out")
a = p.parse_args()

loss = 2.0 + 0.01 * a.seed
rows = []
for epoch in range(3, 8):
    loss = loss * (1 - a.lr) if a.lr >= 0 else float("nan")
    print(f"epoch {epoch}: train loss {loss:.6f}", flush=True)
    rows.append({"epoch": epoch, "loss": loss, "lr": a.lr})
print(f"final loss: {loss:.6f}")
if a.out:
    os.makedirs(os.path.dirname(a.out) or ".", exist_ok=True)
    with open(a.out, "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
