#!/usr/bin/env python3
"""A stand-in for a training run to search over, standard library only.

It prints its arguments and its validation accuracy to stdout, as most
training scripts do; examples/random_search.yaml reads the accuracy from
the log (results: log:). Fast: it does no work beyond arithmetic.
"""
import argparse
import math
import random
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lr", required=True)
    ap.add_argument("--width", type=int, required=True)
    ap.add_argument("--act", required=True)
    ap.add_argument("--seed", type=int, required=True)
    args = ap.parse_args()
    print("args:", " ".join(sys.argv[1:]), flush=True)

    # Best near lr = 3e-3 and a wide layer; gelu a little better; seed noise.
    lr = float(args.lr)
    acc = 0.9 - 0.04 * (math.log10(lr) - math.log10(3e-3)) ** 2
    acc -= 2.0 / args.width
    acc += {"relu": 0.0, "gelu": 0.01, "silu": 0.005}[args.act]
    acc += random.Random(args.seed * 7919 + args.width).gauss(0.0, 0.01)
    print(f"epoch 1 val_acc={acc - 0.1:.6f}")
    print(f"epoch 2 val_acc={acc:.6f}")


if __name__ == "__main__":
    main()
