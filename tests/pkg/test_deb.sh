#!/bin/bash
# The Debian package: `cpack -G DEB` on the build folder gives
# sweep_<version>_<arch>.deb whose Depends: (from dpkg-shlibdeps) names the
# packages of the shared libraries the binary links, libslurm's with its
# exact soname, and which holds the binary, both man pages (they render),
# both completions, the template and the module file for /usr.
source "$(dirname "$0")/lib.sh"
need cpack cmake
need dpkg-deb dpkg
need dpkg-shlibdeps dpkg-dev
need file file
need man man-db

log "cpack -G DEB"
cpack --config "$SWEEP_BUILD_DIR/CPackConfig.cmake" -G DEB -B "$WORK/out" >cpack.log 2>&1 ||
	fail "cpack failed: $(tail -20 cpack.log)"
deb=$WORK/out/sweep_${SWEEP_VERSION}_$(dpkg --print-architecture).deb
[[ -f $deb ]] || fail "no $deb: $(ls "$WORK/out")"

log "control: Package, Version, Depends"
dpkg-deb -I "$deb" >info
[[ $(dpkg-deb -f "$deb" Package) == sweep ]] || fail "Package: $(cat info)"
[[ $(dpkg-deb -f "$deb" Version) == "$SWEEP_VERSION" ]] || fail "Version: $(cat info)"
depends=$(dpkg-deb -f "$deb" Depends)
log "Depends: $depends"
# The package of each library the binary links, found as dpkg knows it.
for lib in "$SLURM_SONAME" libyaml-0.so libsqlite3.so libjansson.so libc.so; do
	file=$(ldd "$SWEEP" | awk -v l="$lib" 'index($1, l) == 1 && !n++ { print $3 }')
	[[ -n $file ]] || fail "the binary does not link $lib: $(ldd "$SWEEP")"
	pkg=$(dpkg -S "*/$(basename "$file")" | awk -F: 'NR == 1 { print $1 }')
	[[ -n $pkg ]] || fail "no package holds $file"
	grep -qE "(^|, )$pkg( |,|$)" <<<"$depends" || fail "Depends: lacks $pkg (for $file): $depends"
done
soname_number=${SLURM_SONAME##*.}
grep -qE "(^|, )libslurm$soname_number " <<<"$depends" ||
	fail "Depends: does not name libslurm$soname_number ($SLURM_SONAME): $depends"

log "contents"
dpkg-deb -c "$deb" | awk '{ print $6 }' | grep -v '/$' | sort >contents
cat >want <<WANT
./usr/bin/sweep
./usr/share/bash-completion/completions/sweep
./usr/share/man/man1/sweep.1.gz
./usr/share/man/man5/sweep-file.5.gz
./usr/share/modulefiles/sweep/$SWEEP_VERSION.lua
./usr/share/sweep/templates/array.sbatch
./usr/share/zsh/vendor-completions/_sweep
WANT
diff -u want contents >diff || fail "contents differ: $(cat diff)"

log "what is inside works"
dpkg-deb -x "$deb" root
for page in man1/sweep.1.gz man5/sweep-file.5.gz; do
	MANWIDTH=80 man -l "root/usr/share/man/$page" 2>err | grep '^NAME' >/dev/null || fail "man -l $page: $(cat err)"
done
grep -qF 'local prefix = [==[/usr]==]' "root/usr/share/modulefiles/sweep/$SWEEP_VERSION.lua" ||
	fail "the module file is not for /usr: $(cat "root/usr/share/modulefiles/sweep/$SWEEP_VERSION.lua")"
root/usr/bin/sweep --version >version || fail "the packaged binary does not run"
grep -qF "built against: Slurm $SLURM_VERSION headers, $SLURM_SONAME" version ||
	fail "packaged sweep --version: $(cat version)"
cmp -s root/usr/share/sweep/templates/array.sbatch "$SWEEP_SOURCE_DIR/templates/array.sbatch" ||
	fail "the packaged template differs from templates/array.sbatch"
log "ok"
