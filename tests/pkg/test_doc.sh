#!/bin/bash
# The man pages document the code: every key the sweep file reader accepts
# (sweep __keys, the reader's own key table) has an entry in sweep-file(5)
# and in README.md's reference; every command of `sweep help` has a section
# in sweep(1), and every option its --help prints is in that section (or
# in OPTIONS COMMON TO COMMANDS) and in README.md; every exit status a
# --help names and every environment variable the code reads is in sweep(1). Both pages render with man -l
# without warnings. A key or option added later fails here until it is
# documented; the message says where to add it.
source "$(dirname "$0")/lib.sh"
need man man-db

DOC=$SWEEP_SOURCE_DIR/doc
README=$SWEEP_SOURCE_DIR/README.md
MAN_OUT=$SWEEP_BUILD_DIR/doc

# check_keys PAGE: prints one line per undocumented key; fails if any.
check_keys() {
	local page=$1 key leaf missing=0 ref
	ref=$(awk '/^## Sweep file reference/ { on = 1; next } /^## / { on = 0 } on' "$README")
	while read -r key; do
		if ! grep -qF -- "*$key*" <(grep -E '^\*' "$page"); then
			echo "sweep-file(5) lacks the key '$key': add to $(basename "$page") a line '*$key*' followed by a tab-indented description (and an example) in the section for its part of the file"
			missing=1
		fi
		leaf=${key##*.}
		# slurm.account may stand as `account` in a row of slurm keys; a
		# section (slurm) as its keys (`slurm.mem`).
		if ! grep -qF -e "\`$leaf\`" -e "\`$key\`" -e "\`$key." <<<"$ref"; then
			echo "README.md lacks the key '$key': add \`$key\` to the table under '## Sweep file reference'"
			missing=1
		fi
	done < <("$SWEEP" __keys)
	return $missing
}

# The option lines of `sweep WORDS... --help`: one long option a line.
options_of() {
	"$SWEEP" "$@" --help | awk '/^ +-/ { sub(/^ +/, ""); split($0, p, /  +/); n = split(p[1], o, /, /);
		for (i = 1; i <= n; i++) if (o[i] ~ /^--/) { sub(/[ =[].*/, "", o[i]); print o[i] } }'
}

# The indented words under "commands:" or "subcommands:".
commands_of() {
	"$SWEEP" "$@" | awk '/^(sub)?commands:/ { on = 1; next } /^$/ { on = 0 } on && /^  [a-z]/ { print $1 }'
}

# A section of a scdoc page: from the line "## NAME" (or "# NAME") to the next heading.
section_of() {
	awk -v h="$2" '$0 == h { on = 1; next } /^#/ { on = 0 } on' "$1"
}

# check_commands PAGE: prints one line per undocumented command or option.
check_commands() {
	local page=$1 cmd sub opt text common missing=0
	local -a sections=()
	common=$(section_of "$page" "# OPTIONS COMMON TO COMMANDS")
	for cmd in $(commands_of help); do
		if [[ $cmd != help && $("$SWEEP" "$cmd" --help) == *$'\nsubcommands:'* ]]; then
			for sub in $(commands_of "$cmd" --help); do
				sections+=("$cmd $sub")
			done
		else
			sections+=("$cmd")
		fi
	done
	for cmd in "${sections[@]}"; do
		if ! grep -qxF -- "## $cmd" "$page"; then
			echo "sweep(1) lacks the command 'sweep $cmd': add to $(basename "$page") a section '## $cmd' under '# COMMANDS' with its synopsis, what it does and its options"
			missing=1
			continue
		fi
		text=$(section_of "$page" "## $cmd")
		# shellcheck disable=SC2086 # "advise checkpoint" is two words
		for opt in $(options_of $cmd); do
			if ! grep -qE -- "^\*$opt\*|, \*$opt\*" <<<"$text$common"; then
				echo "sweep(1) lacks the option '$opt' of 'sweep $cmd' (in its --help): add to $(basename "$page"), section '## $cmd', a line '*$opt*' (with its value, e.g. '*$opt* _VALUE_') followed by a tab-indented description"
				missing=1
			fi
			if ! grep -qF -- "$opt" "$README"; then
				echo "README.md lacks the option '$opt' of 'sweep $cmd': add it to the '## Commands' table"
				missing=1
			fi
		done
	done
	return $missing
}

# check_exit_codes PAGE: every exit status a command's --help names is in
# EXIT STATUS, and the commands with one of their own (3...) are named there.
check_exit_codes() {
	local page=$1 cmd code text missing=0
	text=$(section_of "$page" "# EXIT STATUS")
	for cmd in $(commands_of help); do
		for code in $("$SWEEP" "$cmd" --help | awk '/^exit status:/ { on = 1 } on { print } /^$/ { on = 0 }' |
			tr '\n' ' ' | grep -oE '(: |, )[0-9]+ ' | tr -dc '0-9\n ' | sort -u); do
			if ! grep -qxF -- "*$code*" <<<"$text"; then
				echo "sweep(1) lacks the exit status $code (of 'sweep $cmd'): add to $(basename "$page"), section '# EXIT STATUS', a line '*$code*' followed by a tab-indented description"
				missing=1
			elif ((code > 2)) && ! grep -qF -- "*$cmd*" <<<"$text"; then
				echo "sweep(1) does not say when 'sweep $cmd' exits with $code: add '*$cmd*: ...' to the description of '*$code*' in section '# EXIT STATUS' of $(basename "$page")"
				missing=1
			fi
		done
	done
	return $missing
}

# check_environment PAGE: every getenv("NAME") of the code is in ENVIRONMENT.
check_environment() {
	local page=$1 name text missing=0
	text=$(section_of "$page" "# ENVIRONMENT")
	for name in $(grep -rhoE 'getenv\("[A-Za-z_0-9]+"\)' "$SWEEP_SOURCE_DIR"/orchestrator "$SWEEP_SOURCE_DIR"/aggregate | sed -E 's/getenv\("(.*)"\)/\1/' | sort -u); do
		if ! grep -qE -- "^\*$name\*" <<<"$text"; then
			echo "sweep(1) lacks the environment variable '$name' (read by the code): add to $(basename "$page"), section '# ENVIRONMENT', a line '*$name*' followed by a tab-indented description"
			missing=1
		fi
	done
	return $missing
}

log "keys, commands, options and environment are documented"
out=$(check_keys "$DOC/sweep-file.5.scd") || fail "undocumented keys:"$'\n'"$out"
out=$(check_commands "$DOC/sweep.1.scd") || fail "undocumented commands or options:"$'\n'"$out"
out=$(check_environment "$DOC/sweep.1.scd") || fail "undocumented environment:"$'\n'"$out"
out=$(check_exit_codes "$DOC/sweep.1.scd") || fail "undocumented exit status:"$'\n'"$out"

log "the checks fail on a page that lacks a key, an option, a command or a variable"
grep -vxF '*slurm.mem_per_cpu*' "$DOC/sweep-file.5.scd" >nokey.5.scd
if out=$(check_keys nokey.5.scd); then fail "a missing key passed"; fi
grep -qF "lacks the key 'slurm.mem_per_cpu': add to nokey.5.scd a line '*slurm.mem_per_cpu*'" <<<"$out" ||
	fail "unexpected message: $out"
awk '/^## report$/ { r = 1 } /^## cancel$/ { r = 0 } !(r && /^\*--csv\*$/)' "$DOC/sweep.1.scd" >noopt.1.scd
if out=$(check_commands noopt.1.scd); then fail "a missing option passed"; fi
grep -qF "lacks the option '--csv' of 'sweep report'" <<<"$out" || fail "unexpected message: $out"
grep -vxF '## advise checkpoint' "$DOC/sweep.1.scd" >nocmd.1.scd
if out=$(check_commands nocmd.1.scd); then fail "a missing command passed"; fi
grep -qF "lacks the command 'sweep advise checkpoint'" <<<"$out" || fail "unexpected message: $out"
grep -vxF '*SWEEP_STATE_DIR*' "$DOC/sweep.1.scd" >noenv.1.scd
if out=$(check_environment noenv.1.scd); then fail "a missing variable passed"; fi
grep -qF "lacks the environment variable 'SWEEP_STATE_DIR'" <<<"$out" || fail "unexpected message: $out"
sed 's/^\t\*rightsize\*: the data/\tthe data/' "$DOC/sweep.1.scd" >noexit.1.scd
if out=$(check_exit_codes noexit.1.scd); then fail "an exit status not said passed"; fi
grep -qF "does not say when 'sweep rightsize' exits with 3" <<<"$out" || fail "unexpected message: $out"

log "both pages are built and render with man -l without warnings"
for page in sweep.1 sweep-file.5; do
	[[ -s $MAN_OUT/$page.gz ]] ||
		fail "$MAN_OUT/$page.gz was not built: is scdoc installed? (apt-get install scdoc; tests/install-deps)"
	text=$(MANWIDTH=80 man --warnings -E UTF-8 -l "$MAN_OUT/$page.gz" 2>warnings) ||
		fail "man -l $page failed: $(cat warnings)"
	[[ ! -s warnings ]] || fail "man -l $page warns: $(cat warnings)"
	grep -q '^NAME' <<<"$text" || fail "$page renders without a NAME section"
done
text=$(MANWIDTH=80 man -l "$MAN_OUT/sweep-file.5.gz")
grep -qE '^ +slurm\.max_concurrent$' <<<"$text" || fail "sweep-file(5) does not show slurm.max_concurrent as an entry"
log "ok"
