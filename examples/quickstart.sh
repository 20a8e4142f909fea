#!/bin/bash
# The whole job on a fresh Debian 12 machine (as root): install, build, bring
# up a local single-node Slurm cluster, submit examples/quickstart.yaml (12
# short tasks), wait for it, then print its status and its report.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

tests/install-deps
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j"$(nproc)"
tests/cluster/up

export SWEEP_STATE_DIR=$top/.sweep
build/sweep submit examples/quickstart.yaml
# --watch refreshes (every 10 s, kind to slurmdbd) until every task has ended.
build/sweep status --watch=5
build/sweep status --tasks
build/sweep report
