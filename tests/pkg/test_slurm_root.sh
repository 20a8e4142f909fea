#!/bin/bash
# A build against a Slurm under a non-standard prefix (-DSLURM_ROOT): the
# system's headers and libslurm copied into a temporary prefix, the copy's
# slurm_version.h changed to another release so that the headers used can
# be told apart. The build must take both from the prefix (and never the
# system's: an empty SLURM_ROOT fails although the system has libslurm),
# run with the prefix's libslurm, and install with a run path to it.
source "$(dirname "$0")/lib.sh"
need cmake cmake
need readelf binutils

sys_include=$(awk -F= '/^SLURM_INCLUDE_DIR:/ { print $2 }' "$SWEEP_BUILD_DIR/CMakeCache.txt")
sys_lib=$(awk -F= '/^SLURM_LIBRARY:/ { print $2 }' "$SWEEP_BUILD_DIR/CMakeCache.txt")
[[ -f $sys_include/slurm/slurm.h && -f $sys_lib ]] || fail "no Slurm in the main build's cache"
root=$WORK/slurm-site
mkdir -p "$root/include" "$root/lib" empty
cp -r "$sys_include/slurm" "$root/include/"
cp -P "$(dirname "$sys_lib")"/libslurm.so* "$root/lib/"
# 22.05.8 -> 22.05.99: only these headers say so.
sed -i -E 's/^(#define[ \t]+SLURM_VERSION_NUMBER[ \t]+0x[0-9a-fA-F]{4})[0-9a-fA-F]{2}/\163/' \
	"$root/include/slurm/slurm_version.h"
site_version=${SLURM_VERSION%.*}.99
grep -q 'SLURM_VERSION_NUMBER.*63$' "$root/include/slurm/slurm_version.h" || fail "could not edit the copied slurm_version.h"

log "an empty SLURM_ROOT: the system's Slurm is not taken instead"
if cmake -S "$SWEEP_SOURCE_DIR" -B bad -DSLURM_ROOT="$WORK/empty" -DSWEEP_TESTS=OFF >bad.log 2>&1; then
	fail "configured with an empty SLURM_ROOT: $(grep Slurm bad.log)"
fi
# CMake wraps the message: compare it as one line.
tr -s ' \n' '  ' <bad.log | grep -F "libslurm not found under SLURM_ROOT='$WORK/empty'" >/dev/null ||
	fail "message: $(cat bad.log)"

log "configure and build with -DSLURM_ROOT=$root"
cmake -S "$SWEEP_SOURCE_DIR" -B build -DSLURM_ROOT="$root" -DSWEEP_TESTS=OFF -DSWEEP_WERROR=ON \
	-DCMAKE_BUILD_TYPE=Debug >configure.log 2>&1 || fail "configure: $(tail -20 configure.log)"
grep -qF -- "-- Slurm $site_version: $root/include, $root/lib/libslurm.so ($SLURM_SONAME)" configure.log ||
	fail "configure did not take the prefix's Slurm: $(grep Slurm configure.log)"
targets=(sweep)
grep -q '^SCDOC:FILEPATH=/' build/CMakeCache.txt && targets+=(man)
nice cmake --build build --target "${targets[@]}" -j2 >build.log 2>&1 || fail "build: $(tail -30 build.log)"

version_says() { # version_says BINARY: its --version matches the prefix's Slurm
	"$1" --version >v.out 2>v.err || fail "$1 --version: $(cat v.err)"
	[[ ! -s v.err ]] || fail "$1 --version warns: $(cat v.err)"
	grep -qxF "built against: Slurm $site_version headers, $SLURM_SONAME" v.out ||
		fail "$1 was not built with the prefix's headers: $(cat v.out)"
	grep -qE "^running with:  libslurm API [0-9.]+, $root/lib/libslurm\.so" v.out ||
		fail "$1 does not run with the prefix's libslurm: $(cat v.out)"
}
version_says build/sweep

log "installed, it still finds the prefix's libslurm (run path)"
cmake --install build --prefix "$WORK/inst" >install.log 2>&1 || fail "install: $(cat install.log)"
readelf -d "$WORK/inst/bin/sweep" | grep -E 'RUNPATH|RPATH' | grep -F "$root/lib" >/dev/null ||
	fail "no run path to $root/lib: $(readelf -d "$WORK/inst/bin/sweep" | grep -E 'RUNPATH|RPATH')"
version_says "$WORK/inst/bin/sweep"
log "ok"
