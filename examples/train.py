#!/usr/bin/env python3
"""A stand-in for a training script, standard library only.

It "trains" a tiny noisy quadratic model for a few steps, then writes its
metrics as a flat JSON object to $SWEEP_RESULT, which `sweep report` reads.
The result depends on --lr, --width and --seed only, so reruns agree.
"""
import argparse
import json
import os
import random
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lr", type=float, required=True)
    ap.add_argument("--width", type=int, required=True)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--sleep", type=float, default=1.0, help="seconds of pretend work")
    args = ap.parse_args()

    rng = random.Random(args.seed)
    w = rng.uniform(-2.0, 2.0)
    target = 1.0 + 1.0 / args.width
    loss = None
    for _ in range(args.steps):
        noise = rng.gauss(0.0, 0.05)
        grad = 2.0 * (w - target) + noise
        w -= args.lr * grad
        loss = (w - target) ** 2
    time.sleep(args.sleep)

    loss += 0.5 / args.width  # a wider model fits better
    metrics = {"loss": loss, "accuracy": 1.0 / (1.0 + 10.0 * loss), "steps": args.steps}
    path = os.environ.get("SWEEP_RESULT", "result.json")
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(metrics, f)
    os.replace(tmp, path)  # a half-written result never counts
    print(f"lr={args.lr} width={args.width} seed={args.seed} loss={loss:.6g}")


if __name__ == "__main__":
    main()
