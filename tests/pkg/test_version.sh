#!/bin/bash
# sweep --version names the Slurm release and libslurm soname it was built
# against and the libslurm it runs with, and warns when the two differ
# (shown with a library preloaded that answers another API version).
source "$(dirname "$0")/lib.sh"
need cc build-essential

"$SWEEP" --version >out 2>err || fail "sweep --version failed: $(cat err)"
[[ ! -s err ]] || fail "sweep --version warns with the libslurm it was built for: $(cat err)"
[[ $(sed -n 1p out) == "sweep $SWEEP_VERSION" ]] || fail "line 1: $(cat out)"
[[ $(sed -n 2p out) == "built against: Slurm $SLURM_VERSION headers, $SLURM_SONAME" ]] || fail "line 2: $(cat out)"
api=${SLURM_SONAME##*.}
line=$(sed -n 3p out)
[[ $line =~ ^"running with:  libslurm API $api."[0-9]+.[0-9]+", "(/.*)$ ]] || fail "line 3: $line"
lib=${BASH_REMATCH[1]}
[[ -f $lib && $(basename "$lib") == "$SLURM_SONAME"* ]] || fail "running library '$lib'"
"$SWEEP" version | cmp -s - out || fail "sweep version differs from sweep --version"

log "another libslurm API at run time: a warning"
cat >shim.c <<'C'
long slurm_api_version(void);
long slurm_api_version(void) { return 39L << 16; }
C
cc -shared -fPIC -o shim.so shim.c
LD_PRELOAD=$WORK/shim.so ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0 "$SWEEP" --version >out 2>err ||
	fail "sweep --version failed with another libslurm: $(cat err)"
grep -qF "sweep: warning: built against $SLURM_SONAME but running with libslurm API 39 ($WORK/shim.so): rebuild sweep against this Slurm" err ||
	fail "no warning: $(cat err)"
grep -qF "running with:  libslurm API 39.0.0, $WORK/shim.so" out || fail "line 3 with the shim: $(cat out)"

log "usage errors"
code=0
"$SWEEP" version --bogus >out 2>err || code=$?
((code == 2)) || fail "version --bogus: exit $code"
grep -qF "sweep: error: unknown option '--bogus'" err || fail "version --bogus: $(cat err)"
"$SWEEP" version --help | grep '^usage: sweep version' >/dev/null || fail "version --help"
code=0
"$SWEEP" __keys extra >out 2>err || code=$?
((code == 2)) || fail "__keys extra: exit $code"
grep -qF "sweep: error: __keys takes no arguments" err || fail "__keys extra: $(cat err)"
[[ $("$SWEEP" __keys | head -n 1) == name ]] || fail "__keys: $("$SWEEP" __keys | head -n 3)"
log "ok"
