#!/usr/bin/env python3
"""What programs really write, with nothing of sweep's: a tqdm progress bar
(tqdm(file=sys.stdout): one line of '\r'-separated updates), a line that a
crashed write left with NUL bytes before what came after, a CSV file written
for Excel (utf-8-sig: a byte order mark; ", " between the names) and, in
--json mode, json.dump of an integer past int64 to the file it is given."""
import argparse
import csv
import json
import sys

p = argparse.ArgumentParser()
p.add_argument("--seed", type=int, required=True)
p.add_argument("--csv")
p.add_argument("--json")
a = p.parse_args()

steps = 20000
for i in range(1, steps + 1):
    sys.stdout.write(f"\r{100 * i // steps:3d}%|{i}/{steps} [loss={1 + a.seed + 1 / i:.4f}]")
sys.stdout.write("\n")
sys.stdout.write("\0\0\0\0" + f"acc=0.{5 + a.seed}\n")
sys.stdout.flush()
if a.csv:
    with open(a.csv, "w", newline="", encoding="utf-8-sig") as f:
        w = csv.writer(f)
        w.writerow(["epoch", " seen", " top1 "])
        w.writerow([1, 2**64, 0.5 + a.seed / 10])
if a.json:
    with open(a.json, "w", encoding="utf-8-sig") as f:
        json.dump({"seen": 2**64 + a.seed, "top1": 0.5 + a.seed / 10, "note\x1b[2J": 1}, f)
