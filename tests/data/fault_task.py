#!/usr/bin/env python3
"""One task of the faults sweep: ends the way its mode says.

Written as users write programs: no signal handler, so the warning signal
the sweep asks for ends the "timeout" task, as it would end theirs.
"""
import json
import os
import sys
import time

mode = sys.argv[1]
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
