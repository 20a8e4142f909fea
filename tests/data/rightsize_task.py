#!/usr/bin/env python3
"""One task of the rightsize sweep: uses the memory or time its mode says.

ok: 40 MB for 4 s. oom: 150 MB for 5 s (over --mem=100M, fine with 256M).
timeout: 70 s (over --time=1, fine with 3 minutes). Each writes a result
when it gets to the end. No signal handler: the sweep asks for no warning
signal, and Slurm's TERM at the limit ends the slow one (TIMEOUT).
"""
import json
import os
import sys
import time

mode = sys.argv[1]


def hold(megabytes, seconds):
    block = bytearray(megabytes * 1024 * 1024)
    for i in range(0, len(block), 4096):
        block[i] = 1  # touch every page, so it counts in RSS
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        time.sleep(0.2)
    return len(block)


if mode == "ok":
    hold(40, 4)
elif mode == "oom":
    hold(150, 5)
elif mode == "timeout":
    hold(10, 70)
else:
    sys.exit(f"unknown mode {mode!r}")
with open(os.environ["SWEEP_RESULT"], "w") as f:
    json.dump({"score": 1.0}, f)
