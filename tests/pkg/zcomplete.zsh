# zsh -f zcomplete.zsh FPATH_DIR OUT LINE...: types each LINE followed by Tab
# into an interactive zsh (zsh/zpty) whose completion system (compinit) has
# FPATH_DIR first on its fpath, and appends to OUT, per line, "== LINE", one
# line per compadd call with its matches joined by '|', and "<<done>>" when
# the completion has finished. compadd is wrapped only to record what the
# real completion functions add.
zmodload zsh/zpty
zmodload zsh/datetime
fdir=$1 out=$2
shift 2
: >$out
zpty z zsh -f -i
zpty -w z "PROMPT=''; fpath=(${(q)fdir} \$fpath); autoload -Uz compinit; compinit -u -D"
zpty -w z "zstyle ':completion:*' list-prompt ''; zstyle ':completion:*' menu no"
zpty -w z "compadd () { if [[ \${@[(I)-[ODA]]} -gt 0 ]]; then builtin compadd \"\$@\"; return; fi; local -a __m; builtin compadd -O __m \"\$@\"; print -r -- \"\${(j:|:)__m}\" >> ${(q)out}; builtin compadd \"\$@\" }"
zpty -w z "_test_done () { print -r -- '<<done>>' >> ${(q)out} }"
zpty -w z "_test_mark () { comppostfuncs+=(_test_done); return 1 }; zstyle ':completion:*' completer _test_mark _complete"
for line in "$@"; do
	print -r -- "== $line" >>$out
	zpty -w -n z "$line"$'\t'
	integer t0=$EPOCHSECONDS
	while [[ $(tail -n 1 $out) != '<<done>>' ]]; do
		if ((EPOCHSECONDS - t0 > 30)); then
			print -r -- "<<timeout>>" >>$out
			break
		fi
		while zpty -rt z chunk; do :; done
		sleep 0.05
	done
	zpty -w -n z $'\C-u'
done
zpty -d z
