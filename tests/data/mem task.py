#!/usr/bin/env python3
"""A training script as users write them: takes its memory in MB, holds it a
few seconds (long enough for accounting's 1 s sampling to see it), prints its
metric. No signal handler, no result file."""
import sys
import time

megabytes = int(sys.argv[1])
block = bytearray(megabytes * 1024 * 1024)
for i in range(0, len(block), 4096):
    block[i] = 1  # touch every page, so it counts in RSS
time.sleep(3)
print(f"loss={1.0 / (1 + megabytes):.4f}")
