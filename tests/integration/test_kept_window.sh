#!/bin/bash
# test_kept_refresh with the array job read as its rows that ended since the
# last read, not by naming its tasks (issue 36: arrays of thousands of tasks).
export KEPT_WINDOW=1
. "$(dirname "$0")/test_kept_refresh.sh"
