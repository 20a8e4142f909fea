#!/usr/bin/env python3
"""A training script as users write them, failing the ways they do.

No signal handler, no $SWEEP_RESULT: it prints its metric to stdout. The
mode says how it ends: fine; an import error; a crash for one seed only;
an error printed to stdout alone; over its memory after a line of its own;
ending well without printing its metric; slow.
"""
import sys
import time

seed, mode = int(sys.argv[1]), sys.argv[2]
print(f"epoch 1 loss 0.9 seed {seed}", flush=True)
if mode == "slow":
    time.sleep(45)
if mode == "quiet":  # ends well but never prints its metric
    sys.exit(0)
if mode == "import":
    import sklearn_not_installed_here  # noqa: F401
if mode == "oneseed" and seed == 1:
    raise ValueError(f"loss diverged at step 120 for seed {seed}")
if mode == "stdout":
    print("error: loss is nan at step 7, giving up", flush=True)
    sys.exit(2)
if mode == "oom":
    print("allocating the embedding table", file=sys.stderr, flush=True)
    hog = bytearray(600 * 1024 * 1024)
    for i in range(0, len(hog), 4096):
        hog[i] = 1
    time.sleep(30)
print(f"accuracy: {0.8 + seed / 100}")
