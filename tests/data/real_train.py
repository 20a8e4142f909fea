#!/usr/bin/env python3
"""A training script as people write them: it knows nothing of sweep.

No signal handler, no $SWEEP_RESULT: it prints its metrics and writes its
own metrics files (CSV and JSON Lines, one line per epoch) under --out.
--work SECONDS makes it run that long (past a short time limit, say), and
--quiet 1 leaves the final accuracy line out of its output.
"""
import argparse
import json
import os
import random
import time

parser = argparse.ArgumentParser()
parser.add_argument("--lr", type=float, required=True)
parser.add_argument("--seed", type=int, required=True)
parser.add_argument("--out", required=True)
parser.add_argument("--work", type=float, default=0)
parser.add_argument("--epochs", type=int, default=3)
parser.add_argument("--quiet", type=int, default=0)
args = parser.parse_args()

random.seed(args.seed)
os.makedirs(args.out, exist_ok=True)
deadline = time.monotonic() + args.work
with open(os.path.join(args.out, "metrics.csv"), "w") as csv, open(
    os.path.join(args.out, "metrics.jsonl"), "w"
) as jsonl:
    csv.write("epoch,loss,acc,note\n")
    for epoch in range(1, args.epochs + 1):
        loss = 1.0 / (epoch * (1 + args.lr)) + random.random() * 0.01
        acc = 0.9 - loss / 10 + random.random() * 0.001
        print(f"epoch {epoch}: loss={loss:.6f} acc={acc:.6f}", flush=True)
        csv.write(f'{epoch},{loss!r},{acc!r},"lr {args.lr}, ""epoch"" {epoch}"\n')
        jsonl.write(json.dumps({"epoch": epoch, "loss": loss, "acc": acc}) + "\n")
        csv.flush()
        jsonl.flush()
while time.monotonic() < deadline:
    time.sleep(0.5)
if not args.quiet:
    print(f"test accuracy: {acc:.6f}", flush=True)
