#!/usr/bin/env python3
"""One task of the packed_ends sweep, as users write them: no signal
handler, the metric printed to stdout (the command sends it to a file).

ok: 40 MB and some CPU for 2 s. crash: dies of SIGSEGV. slow: 10 minutes,
past the array task's time limit (Slurm's TERM ends it). oom: 300 MB, over
--mem. Once a file named "healed" is in the folder it runs in, every mode
is ok.
"""
import json
import os
import signal
import sys
import time

mode, seed = sys.argv[1], int(sys.argv[2])


def hold(megabytes, seconds):
    block = bytearray(megabytes * 1024 * 1024)
    for i in range(0, len(block), 4096):
        block[i] = 1  # touch every page, so it counts in RSS
    deadline = time.monotonic() + seconds
    n = 0
    while time.monotonic() < deadline:
        n += 1  # CPU time, not sleep
    return len(block) + n


if os.path.exists("healed"):
    mode = "ok"
if mode == "crash":
    os.kill(os.getpid(), signal.SIGSEGV)
elif mode == "slow":
    time.sleep(600)
elif mode == "oom":
    hold(300, 10)
else:
    hold(40, 2)
print(json.dumps({"loss": len(mode) + seed / 10}))
