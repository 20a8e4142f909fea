# Shared helpers for the packaging tests (tests/pkg): man pages, completion,
# the Debian package, install and module file, -DSLURM_ROOT. They need no
# cluster. Source this file.
set -euo pipefail

: "${SWEEP:?set SWEEP to the sweep binary (ctest does)}"
: "${SWEEP_SOURCE_DIR:?set SWEEP_SOURCE_DIR to the source tree (ctest does)}"
: "${SWEEP_BUILD_DIR:?set SWEEP_BUILD_DIR to the build folder (ctest does)}"
TEST_NAME=$(basename "$0" .sh)
WORK=${SWEEP_TEST_WORK:-/tmp/sweep-pkg}/$TEST_NAME
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK"

log() { printf '[%s %s] %s\n' "$TEST_NAME" "$(date +%T)" "$*" >&2; }
fail() { log "FAIL: $*"; exit 1; }

# need PROGRAM PACKAGE: fails with what to install when PROGRAM is missing.
need() {
	command -v "$1" >/dev/null 2>&1 ||
		fail "'$1' is missing: apt-get install $2 (tests/install-deps installs it)"
}

# Bounded polling: wait_until SECONDS DESCRIPTION COMMAND...
wait_until() {
	local limit=$1 what=$2 deadline
	shift 2
	deadline=$((SECONDS + limit))
	until "$@"; do
		((SECONDS < deadline)) || fail "timed out after ${limit}s waiting for: $what"
		sleep 0.2
	done
}
