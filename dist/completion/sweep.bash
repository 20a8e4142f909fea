# bash completion for sweep(1). Installed as
# share/bash-completion/completions/sweep (bash-completion loads it when Tab
# is first pressed after `sweep`); plain bash is enough to `source` it.
#
# Commands and options are read from the binary itself (`sweep help`,
# `sweep CMD --help`), so they always match the sweep being completed.
# Sweep names and ids come from `sweep list --names`, metric names for
# --metric from `sweep list --metrics SWEEP` (the numeric keys of the
# sweep's first result files); both are one query on the state store.

# COMPREPLY: the lines of stdin that start with $1, each quoted for the
# command line. Not compgen -W, which expands every word it is given: a
# metric that a task named $(cmd) would run cmd on Tab.
_sweep_words()
{
	local word
	COMPREPLY=()
	while IFS= read -r word; do
		[[ $word == "$1"* ]] && COMPREPLY+=("$(printf '%q' "$word")")
	done
}

# The option lines of a command's --help (on stdin) as "OPTION ARG" (ARG:
# the value's name, "=NAME" when the value is optional, "" for none).
_sweep_options()
{
	awk '
		/^ +-/ {
			sub(/^ +/, "")
			n = split($0, part, /  +/)
			m = split(part[1], opt, /, /)
			for (i = 1; i <= m; i++) {
				if (opt[i] !~ /^--[a-z]/)
					continue
				name = opt[i]; arg = ""
				if (match(name, /\[=[A-Za-z]+\]/)) {
					arg = substr(name, RSTART + 1, RLENGTH - 2)
					name = substr(name, 1, RSTART - 1)
				} else if (match(name, / /)) {
					arg = substr(name, RSTART + 1)
					name = substr(name, 1, RSTART - 1)
				}
				print name, arg
			}
		}'
}

# The commands (or an advise subcommand list): the indented words under
# "commands:" or "subcommands:" of the help.
_sweep_commands()
{
	"$@" 2>/dev/null | awk '/^(sub)?commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } /^$/ { on = 0 }'
}

_sweep()
{
	local bin=${COMP_WORDS[0]} cur prev optword help=""
	local -a words=() state=() cmd=() positional=() specs=()
	local i w cword=0 spec name arg want=""

	[[ $bin == "~/"* ]] && bin=$HOME/${bin#"~/"}
	# Rejoin "--opt=value", which COMP_WORDBREAKS splits at '='.
	for ((i = 0; i < ${#COMP_WORDS[@]}; i++)); do
		w=${COMP_WORDS[i]}
		if [[ $w == "=" && ${#words[@]} -gt 0 && ${words[-1]} == --* ]]; then
			words[-1]+="="
			((i == COMP_CWORD)) && cword=$((${#words[@]} - 1))
			if ((i + 1 < ${#COMP_WORDS[@]})) && ((i + 1 <= COMP_CWORD)); then
				i=$((i + 1))
				words[-1]+=${COMP_WORDS[i]}
				((i == COMP_CWORD)) && cword=$((${#words[@]} - 1))
			fi
			continue
		fi
		words+=("$w")
		((i == COMP_CWORD)) && cword=$((${#words[@]} - 1))
	done
	((cword == 0)) && cword=$((${#words[@]} - 1))
	cur=${words[cword]}
	prev=""
	((cword > 0)) && prev=${words[cword - 1]}
	COMPREPLY=()

	# The command, an advise subcommand, the options with their values,
	# and the other words (the SWEEP, the sweep file).
	for ((i = 1; i < cword; i++)); do
		w=${words[i]}
		if ((${#cmd[@]} == 0)); then
			[[ $w == -* ]] || cmd=("$w")
			continue
		fi
		if [[ ${cmd[0]} == advise && ${#cmd[@]} == 1 && $w != -* ]]; then
			cmd+=("$w")
			continue
		fi
		case $w in
		--state-dir=*) state=(--state-dir "${w#*=}") ;;
		--state-dir) ((i + 1 < cword)) && state=(--state-dir "${words[i + 1]}") ;;
		esac
		if [[ $w == --*=* ]]; then
			continue
		elif [[ $w == -* ]]; then
			if [[ -z $help ]]; then
				help=$("$bin" "${cmd[@]}" --help 2>/dev/null)
				mapfile -t specs < <(_sweep_options <<<"$help")
			fi
			for spec in "${specs[@]}"; do
				name=${spec%% *}
				arg=${spec#* }
				if [[ $name == "$w" && -n $arg && $arg != '='* ]]; then
					i=$((i + 1))
					break
				fi
			done
		else
			positional+=("$w")
		fi
	done

	if ((${#cmd[@]} == 0)); then
		if [[ $cur == -* ]]; then
			mapfile -t COMPREPLY < <(compgen -W "--help --version" -- "$cur")
		else
			mapfile -t COMPREPLY < <(compgen -W "$(_sweep_commands "$bin" help)" -- "$cur")
		fi
		return 0
	fi
	if [[ ${cmd[0]} == advise && ${#cmd[@]} == 1 && $cur != -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_sweep_commands "$bin" advise --help)" -- "$cur")
		return 0
	fi
	if [[ -z $help ]]; then
		help=$("$bin" "${cmd[@]}" --help 2>/dev/null)
		mapfile -t specs < <(_sweep_options <<<"$help")
	fi

	# The value of an option: "--opt VALUE" or "--opt=VALUE".
	optword=""
	if [[ $cur == --*=* ]]; then
		optword=${cur%%=*}
		cur=${cur#*=}
	elif [[ $prev == --* && $prev != *=* ]]; then
		for spec in "${specs[@]}"; do
			name=${spec%% *}
			arg=${spec#* }
			[[ $name == "$prev" && -n $arg && $arg != '='* ]] && optword=$prev
		done
	fi
	if [[ -n $optword ]]; then
		for spec in "${specs[@]}"; do
			[[ ${spec%% *} == "$optword" ]] && want=${spec#* }
		done
		want=${want#=}
		case $want in
		DIR)
			compopt -o filenames 2>/dev/null
			mapfile -t COMPREPLY < <(compgen -d -- "$cur")
			;;
		FILE)
			compopt -o filenames 2>/dev/null
			mapfile -t COMPREPLY < <(compgen -f -- "$cur")
			;;
		SWEEP)
			_sweep_words "$cur" < <("$bin" list --names "${state[@]}" 2>/dev/null)
			;;
		NAME)
			[[ $optword == --metric ]] &&
				_sweep_words "$cur" < <("$bin" list --metrics "${positional[0]:-}" "${state[@]}" 2>/dev/null)
			;;
		esac
		return 0
	fi

	if [[ $cur == -* ]]; then
		local -a names=()
		for spec in "${specs[@]}"; do
			names+=("${spec%% *}")
		done
		mapfile -t COMPREPLY < <(compgen -W "${names[*]}" -- "$cur")
		return 0
	fi
	((${#positional[@]})) && return 0
	# The word after the options: what the usage line asks for.
	case ${help%%$'\n'*} in
	*.yaml*)
		compopt -o filenames 2>/dev/null
		mapfile -t COMPREPLY < <(
			compgen -d -- "$cur"
			compgen -G "${cur}*.yaml"
			compgen -G "${cur}*.yml"
		)
		;;
	*"[SWEEP]"*)
		mapfile -t COMPREPLY < <(compgen -W "$("$bin" list --names "${state[@]}" 2>/dev/null)" -- "$cur")
		;;
	esac
	return 0
}
complete -F _sweep sweep
