#!/usr/bin/env python3
# A task as users write them: it prints its metric and exits; no signal
# handler. The value "bad" with seed 1 fails until a file named "healed" appears in the
# folder it runs in.
import json
import os
import sys
import time

value, seed = sys.argv[1], int(sys.argv[2])
time.sleep(0.2)
if value == "bad" and seed == 1 and not os.path.exists("healed"):
    print("diverged", file=sys.stderr)
    sys.exit(4)
print(json.dumps({"loss": len(value) + seed / 10}))
