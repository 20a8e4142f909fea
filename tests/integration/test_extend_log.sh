#!/bin/bash
# test_local_extend_log on the cluster (issue 34: both backends).
export SWEEP_TEST_BACKEND=slurm
. "$(dirname "$0")/test_local_extend_log.sh"
