#!/usr/bin/env python3
"""A tiny experiment as users write them: its score from its arguments,
printed. No signal handler, no result file."""
import sys
import time

x, seed = float(sys.argv[1]), int(sys.argv[2])
time.sleep(1)
print(f"score={x * 10 + seed}")
