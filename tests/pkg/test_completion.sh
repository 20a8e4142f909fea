#!/bin/bash
# Shell completion, run as the shells run it: the bash function with
# COMP_WORDS/COMP_CWORD set as bash sets them, and the zsh function through
# a real interactive zsh (zpty) with compinit. The state store holds two
# sweeps submitted with --local, whose tasks write different metrics.
source "$(dirname "$0")/lib.sh"
need zsh zsh
COMP=$SWEEP_SOURCE_DIR/dist/completion
BIN=$WORK/bin
mkdir -p "$BIN" proj/sub elsewhere
ln -s "$SWEEP" "$BIN/sweep"
export PATH=$BIN:$PATH
unset SWEEP_STATE_DIR
cd proj

cat >tiny.yaml <<'YAML'
name: tiny-a
command: |
  printf '{"loss": %s, "acc": 0.5}\n' {x} > "$SWEEP_RESULT"
seeds: 2
grid:
  x: [1, 2]
YAML
cat >'other file.yaml' <<'YAML'
name: tiny-b
command: |
  printf '{"bleu": %s}\n' {seed} > "$SWEEP_RESULT"
seeds: 2
YAML
touch notes.txt
log "two sweeps, run with --local"
sweep submit --local tiny.yaml >/dev/null
sweep submit --local 'other file.yaml' >/dev/null
wait_until 60 "tiny-a to complete" sweep report tiny-a >/dev/null 2>&1
wait_until 60 "tiny-b to complete" sweep report tiny-b >/dev/null 2>&1

log "the hidden helpers"
[[ $(sweep list --names | tr '\n' ' ') == "tiny-b tiny-a 2 1 " ]] || fail "list --names: $(sweep list --names)"
[[ $(sweep list --metrics tiny-a | tr '\n' ' ') == "acc loss " ]] || fail "list --metrics tiny-a"
[[ $(sweep list --metrics '' | tr '\n' ' ') == "bleu " ]] || fail "list --metrics '' (the most recent)"
if sweep list --metrics nosuch >out 2>err; then fail "list --metrics nosuch succeeded"; fi
grep -q "nosuch" err || fail "list --metrics nosuch: $(cat err)"
(cd ../elsewhere && sweep list --names 2>err) && fail "list --names without a store succeeded"
grep -qF "no state store in '.sweep'" ../elsewhere/err || fail "list --names without a store: $(cat ../elsewhere/err)"

# expect SHELL LINE WANT: completing LINE (at its end) gives exactly WANT,
# the matches sorted and joined by spaces.
failures=0
check() {
	local sh=$1 line=$2 want=$3 got=$4
	if [[ $got != "$want" ]]; then
		log "$sh: '$line' completes to '$got', want '$want'"
		failures=$((failures + 1))
	fi
}

# bash: COMP_WORDS as bash splits the line (COMP_WORDBREAKS splits at '=').
# shellcheck disable=SC1091
source "$COMP/sweep.bash"
bash_complete() {
	local line=$1
	read -ra COMP_WORDS <<<"${line//=/ = }"
	[[ $line == *" " || $line == *"=" ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE=$line
	COMP_POINT=${#line}
	COMPREPLY=()
	_sweep
	printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//'
}
commands="advise cancel confirm gpus help list logs report resubmit rightsize status submit version"
status_opts="--help --json --refresh --state-dir --tasks --watch"
declare -A want=(
	["sweep "]=$commands
	["sweep st"]="status"
	["sweep --"]="--help --version"
	["sweep status "]="1 2 tiny-a tiny-b"
	["sweep status t"]="tiny-a tiny-b"
	["sweep status --"]=$status_opts
	["sweep status --json tiny-a "]=""
	["sweep report --metric "]="bleu"
	["sweep report tiny-a --metric "]="acc loss"
	["sweep report --metric l"]=""
	["sweep report tiny-a --metric l"]="loss"
	["sweep report --metric="]="bleu"
	["sweep submit "]="logs other file.yaml sub tiny.yaml"
	["sweep submit t"]="tiny.yaml"
	["sweep advise "]="checkpoint"
	["sweep advise checkpoint --from "]="1 2 tiny-a tiny-b"
	["sweep advise checkpoint --mtbf 8h --co"]="--cost"
	["sweep rightsize --headroom "]=""
	["sweep report --plot no"]="notes.txt"
	["sweep cancel --state-dir "]="logs sub"
	["sweep status --state-dir ../proj/.sweep t"]="tiny-a tiny-b"
)
# bash offers hidden folders too (readline's match-hidden-files), zsh not.
declare -A want_bash=(
	["sweep submit "]=".sweep logs other file.yaml sub tiny.yaml"
	["sweep cancel --state-dir "]=".sweep logs sub"
)
log "bash"
compopt() { :; } # a builtin only while bash completes
for line in "${!want[@]}"; do
	check bash "$line" "${want_bash[$line]-${want[$line]}}" "$(bash_complete "$line")"
done
cd ../elsewhere
check bash "sweep status (no store)" "" "$(bash_complete "sweep status ")"
check bash "sweep status --state-dir ../proj/.sweep " "1 2 tiny-a tiny-b" \
	"$(bash_complete "sweep status --state-dir ../proj/.sweep ")"
check bash "sweep status --state-dir=../proj/.sweep " "1 2 tiny-a tiny-b" \
	"$(bash_complete "sweep status --state-dir=../proj/.sweep ")"
cd ../proj

log "zsh"
lines=("${!want[@]}")
zsh -f "$SWEEP_SOURCE_DIR/tests/pkg/zcomplete.zsh" "$COMP" "$WORK/zsh.out" "${lines[@]}"
for line in "${lines[@]}"; do
	got=$(awk -v l="== $line" '$0 == l { on = 1; next } /^== / { on = 0 } on && !/^<</' "$WORK/zsh.out" |
		tr '|' '\n' | sed 's/\\ / /g' | { grep -v '^$' || true; } | sort -u | tr '\n' ' ' | sed 's/ $//')
	w=${want[$line]}
	# zsh lists folders among files with their slash, and commands with
	# the advise subcommands through _describe: compare the words.
	got=${got//sub\//sub}
	check zsh "$line" "$w" "$got"
done
grep -q '<<timeout>>' "$WORK/zsh.out" && fail "zsh completion timed out: $(cat "$WORK/zsh.out")"

# Metric names are what a task chose: bash offers them quoted, runs none of
# them (compgen -W would expand "$(touch pwned)"), and list --metrics shows
# control bytes escaped, one name a line.
log "metric names from a task"
mkdir -p ../hostile
cd ../hostile
cat >hostile.yaml <<'YAML'
name: hostile
command: |
  printf '\173"$(touch pwned)": 1, "a b": 2, "esc\\u001b[31m": 3, "two\\nlines": 4\175\n' > "$SWEEP_RESULT"
YAML
sweep submit --local hostile.yaml >/dev/null
wait_until 60 "hostile to complete" sweep report hostile >/dev/null 2>&1
sweep list --metrics hostile >metrics.out
printf '%s\n' '$(touch pwned)' 'a b' 'esc\x1b[31m' 'two\nlines' | cmp -s - metrics.out ||
	fail "list --metrics hostile: $(od -c metrics.out)"
got=$(bash_complete "sweep report --metric ")
[[ -e pwned ]] && fail "completing --metric ran a metric's name"
check bash "sweep report --metric (hostile names)" \
	"$(printf '%s\n' '\$\(touch\ pwned\)' 'a\ b' 'esc\\x1b\[31m' 'two\\nlines' | sort | tr '\n' ' ' | sed 's/ $//')" "$got"
check bash "sweep report --metric a" 'a\ b' "$(bash_complete "sweep report --metric a")"
cd ../proj
((failures == 0)) || fail "$failures completions differ"
log "ok"
