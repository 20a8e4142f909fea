#!/usr/bin/env python3
"""One task of the faults sweep: ends the way its mode says."""
import json
import os
import signal
import sys
import time

mode = sys.argv[1]
task_dir = os.environ["SWEEP_TASK_DIR"]


def on_signal(signum, frame):
    # What a checkpointing program does: note it, save, and (here) go on
    # working until the time limit kills it.
    with open(os.path.join(task_dir, "signal"), "w") as f:
        f.write(f"{signal.Signals(signum).name} after {time.monotonic() - start:.0f}s\n")


start = time.monotonic()
signal.signal(signal.SIGUSR1, on_signal)
if mode == "fail":
    sys.exit(3)
if mode == "oom":
    hog = bytearray(400 * 1024 * 1024)  # well over --mem=100M
    for i in range(0, len(hog), 4096):
        hog[i] = 1
    time.sleep(30)
if mode == "timeout":
    while True:
        time.sleep(1)
with open(os.environ["SWEEP_RESULT"], "w") as f:
    json.dump({"score": 1.0}, f)
