#!/usr/bin/env python3
"""Fails the first time it runs in a task folder, as flaky programs do: mode
'exit' exits 1, mode 'silent' prints no metric. The second time it prints
its metric. Mode 'crash' always exits 1."""
import os
import sys

mode = sys.argv[1]
marker = os.path.join(os.environ.get("SWEEP_TASK_DIR", "."), "ran-before")
first = not os.path.exists(marker)
open(marker, "w").close()
if mode == "crash" or (first and mode == "exit"):
    sys.exit("RuntimeError: CUDA error: an illegal memory access was encountered")
if first and mode == "silent":
    sys.exit(0)
print("score=0.75")
