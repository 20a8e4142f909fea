#!/bin/bash
# cmake --install into a prefix (with a space), then the Lmod module file:
# `module load sweep` puts the binary, both man pages and both completions
# on their paths (zsh's fpath in the loading shell) and keeps man's
# default path and zsh's own fpath; unload takes them off.
source "$(dirname "$0")/lib.sh"
need man man-db
need zsh zsh
LMOD_INIT=/usr/share/lmod/lmod/init/bash
BASH_COMPLETION=/usr/share/bash-completion/bash_completion
[[ -r $LMOD_INIT ]] || fail "no Lmod ($LMOD_INIT): apt-get install lmod (tests/install-deps installs it)"
[[ -r $BASH_COMPLETION ]] ||
	fail "no bash-completion ($BASH_COMPLETION): apt-get install bash-completion (tests/install-deps)"

prefix="$WORK/pre fix"
log "cmake --install --prefix '$prefix'"
cmake --install "$SWEEP_BUILD_DIR" --prefix "$prefix" >install.log 2>&1 || fail "install: $(cat install.log)"
module=$prefix/share/modulefiles/sweep/$SWEEP_VERSION.lua
for f in bin/sweep share/man/man1/sweep.1.gz share/man/man5/sweep-file.5.gz \
	share/bash-completion/completions/sweep share/zsh/site-functions/_sweep \
	share/sweep/templates/array.sbatch "share/modulefiles/sweep/$SWEEP_VERSION.lua"; do
	[[ -e $prefix/$f ]] || fail "not installed: $f"
done
grep -qF "local prefix = [==[$prefix]==]" "$module" || fail "module file prefix: $(grep prefix "$module")"

log "module load sweep"
cat >check.sh <<'CHECK'
set -euo pipefail
prefix=$1 lmod=$2 bc=$3
unset MANPATH XDG_DATA_DIRS FPATH
export PATH=/usr/local/bin:/usr/bin:/bin
source "$lmod"
module use "$prefix/share/modulefiles"
module load sweep
[[ $(command -v sweep) == "$prefix/bin/sweep" ]] || { echo "PATH: $(command -v sweep)"; exit 1; }
[[ $(man -w sweep) == "$prefix/share/man/man1/sweep.1.gz" ]] || { echo "man -w sweep: $(man -w sweep)"; exit 1; }
[[ $(man -w 5 sweep-file) == "$prefix/share/man/man5/sweep-file.5.gz" ]] || { echo "man -w sweep-file"; exit 1; }
manpath 2>/dev/null | tr : '\n' | grep -x /usr/share/man >/dev/null || { echo "man's default path is lost: MANPATH=$MANPATH, manpath $(manpath 2>&1)"; exit 1; }
source "$bc"
__load_completion sweep || { echo "bash-completion did not find sweep's (XDG_DATA_DIRS=$XDG_DATA_DIRS)"; exit 1; }
[[ $(complete -p sweep) == "complete -F _sweep sweep" ]] || { echo "complete -p: $(complete -p sweep)"; exit 1; }
module unload sweep
! command -v sweep >/dev/null || { echo "unload left sweep on PATH"; exit 1; }
echo ok
CHECK
out=$(bash check.sh "$prefix" "$LMOD_INIT" "$BASH_COMPLETION" 2>&1) || fail "module in bash: $out"

log "module load sweep in zsh, after compinit"
cat >check.zsh <<'CHECK'
prefix=$1
source /usr/share/lmod/lmod/init/zsh
autoload -Uz compinit
compinit -u -D
n=$#fpath
module use "$prefix/share/modulefiles"
module load sweep
[[ $_comps[sweep] == _sweep && $fpath[1] == "$prefix/share/zsh/site-functions" ]] ||
	{ print -r -- "after load: _comps[sweep]=$_comps[sweep] fpath=$fpath"; exit 1 }
(($#fpath == n + 1)) || { print -r -- "fpath lost entries: $fpath"; exit 1 }
module unload sweep
(($#fpath == n)) && [[ $fpath[1] != "$prefix"* ]] || { print -r -- "after unload: fpath=$fpath"; exit 1 }
print ok
CHECK
out=$(zsh -f check.zsh "$prefix" 2>&1) || fail "module in zsh: $out"
log "ok"
