#!/bin/bash
# Issue 20.2: private state whatever the umask. Under umask 000 and 002, a
# sweep on Slurm and one with --local (with retries, so a follow-up script
# is written too) leave everything under the state folder owner-only:
# folders 0700, files 0600, scripts 0700, logs at most 0644. The setup and
# the command keep the caller's umask (what they write is theirs). A state
# folder that its group may write is refused with the fix; so is a task
# folder, whose result report then refuses to read.
. "$(dirname "$0")/lib.sh"
cluster_up

cleanup_private() {
	local dir id
	for dir in "$WORK"/*/.sweep; do
		[ -d "$dir" ] || continue
		chmod go-w "$dir" 2>/dev/null || true
		for id in $("$SWEEP" list --state-dir "$dir" 2>/dev/null | awk '$1 ~ /^[0-9]+$/ { print $1 }'); do
			"$SWEEP" cancel --state-dir "$dir" "$id" >/dev/null 2>&1 || true
		done
	done
	cleanup
}
trap cleanup_private EXIT

# The command notes its umask, and writes a file of its own next to its result.
cat >private.yaml <<'EOF'
name: private
setup: umask >"$SWEEP_TASK_DIR/own-setup-umask"
command: |
  umask >"$SWEEP_TASK_DIR/own-command-umask"
  touch "out of $SWEEP_TASK_INDEX.txt"
  echo '{{"value": {seed}}}' > "$SWEEP_RESULT"
seeds: 2
retries: 1
slurm:
  time: "5"
  mem: 50M
EOF

# One store per umask and backend, in folders with spaces in their names.
declare -A DIRS=()
for mask in 000 002; do
	for backend in slurm local; do
		dir="$WORK/umask $mask $backend"
		mkdir -p "$dir"
		cp private.yaml "$dir/"
		DIRS[$mask-$backend]=$dir
		if [ "$backend" = slurm ]; then
			(cd "$dir" && umask "$mask" && SWEEP_STATE_DIR=$dir/.sweep submit private.yaml)
		else
			(cd "$dir" && umask "$mask" &&
				SWEEP_STATE_DIR=$dir/.sweep "$SWEEP" submit --local private.yaml >&2) ||
				fail "sweep submit --local under umask $mask failed"
		fi
	done
done
# submit ran in subshells: collect the Slurm job ids from the stores.
JOBS=()
for key in 000-slurm 002-slurm; do
	while read -r id; do JOBS+=("$id"); done < <(cat "${DIRS[$key]}/.sweep/sweeps/1/array-jobs")
done
CLEANUP_JOBS+=("${JOBS[@]}")

results_in() { [ "$(find "$1/.sweep/sweeps/1/tasks" -name result.json 2>/dev/null | grep -c .)" -eq 2 ]; }
for key in "${!DIRS[@]}"; do
	wait_until 180 "the results of $key" results_in "${DIRS[$key]}"
done
wait_sweep 4 120
# The follow-up job (retries) writes its log into the sweep's folder.
followup_ran() { compgen -G "$1/.sweep/sweeps/1/followup-*.log" >/dev/null; }
for key in 000-slurm 002-slurm; do
	wait_until 120 "the follow-up job of $key" followup_ran "${DIRS[$key]}"
done
# status and report read every store (the follow-ups of retries come later).
for key in "${!DIRS[@]}"; do
	(cd "${DIRS[$key]}" && SWEEP_STATE_DIR=.sweep "$SWEEP" status >/dev/null) ||
		fail "sweep status in $key failed"
done

# check_modes KEY MASK: every entry under the state folder and the logs.
check_modes() {
	local dir=${DIRS[$1]} want=$2 bad
	bad=$(cd "$dir" && find .sweep logs -printf '%m %y %p\n' | awk '
		{ mode = $1; type = $2; $1 = ""; $2 = ""; path = substr($0, 3) }
		path ~ /^logs/ || path ~ /\.log$/ {
			# logs: at most 0644 (folders 0755)
			if ((type == "d" && mode !~ /^7[0-5][0-5]$/) || (type == "f" && mode !~ /^[0-6][0-4][0-4]$/))
				print "log " mode " " path
			next
		}
		path ~ /\/own-[^\/]*$/ { next }     # the setup'\''s and the command'\''s own files
		type == "d" && mode != "700" { print "folder " mode " " path; next }
		type == "f" && path ~ /\.sbatch$/ && mode != "700" { print "script " mode " " path; next }
		type == "f" && path !~ /\.sbatch$/ && mode != "600" { print "file " mode " " path }
	')
	[ -z "$bad" ] || fail "under umask $want with $1, not private: $bad"
	# The command and the setup ran with the caller's umask, as before.
	for t in 0 1; do
		[ "$(cat "$(task_dir_in "$t" "$dir/.sweep/sweeps/1")/own-command-umask")" = "0$want" ] ||
			fail "$1: the command ran with umask $(cat "$(task_dir_in "$t" "$dir/.sweep/sweeps/1")/own-command-umask"), not 0$want"
		[ "$(cat "$(task_dir_in "$t" "$dir/.sweep/sweeps/1")/own-setup-umask")" = "0$want" ] ||
			fail "$1: the setup ran with umask $(cat "$(task_dir_in "$t" "$dir/.sweep/sweeps/1")/own-setup-umask")"
	done
	[ "$(stat -c %a "$dir/out of 0.txt")" = "$(printf '%o' $((0666 & ~0$want)))" ] ||
		fail "$1: the command's own file has mode $(stat -c %a "$dir/out of 0.txt")"
}
for key in 000-slurm 000-local 002-slurm 002-local; do
	check_modes "$key" "${key%%-*}"
	log "$key: $(find "${DIRS[$key]}/.sweep" | grep -c .) entries under .sweep, all private"
done
# The script and the settings every task sources, by name.
for key in 000-slurm 000-local; do
	[ "$(stat -c %a "${DIRS[$key]}/.sweep/sweeps/1/private.sbatch")" = 700 ] || fail "$key: script mode"
	[ "$(stat -c %a "${DIRS[$key]}/.sweep/sweeps/1/settings")" = 700 ] || fail "$key: settings folder mode"
	[ "$(stat -c %a "${DIRS[$key]}/.sweep/sweeps/1/settings/0")" = 600 ] || fail "$key: settings mode"
	[ "$(stat -c %a "${DIRS[$key]}/.sweep/sweep.db")" = 600 ] || fail "$key: store mode"
done
# Slurm wrote its logs with a umask that lets no one else write them.
ls "${DIRS[000-slurm]}"/logs/*.out >/dev/null || fail "no Slurm logs"

# --- A state folder its group may write is refused, with the fix ------------
dir=${DIRS[000-local]}
chmod g+w "$dir/.sweep"
if (cd "$dir" && SWEEP_STATE_DIR=.sweep "$SWEEP" status >out 2>err); then
	fail "status used a state folder its group may write"
fi
grep -qF "refusing the state folder '.sweep': it is writable by its group" "$dir/err" ||
	fail "no refusal: $(cat "$dir/err")"
grep -qF "chmod go-w '.sweep'" "$dir/err" || fail "no fix in: $(cat "$dir/err")"
if (cd "$dir" && SWEEP_STATE_DIR=.sweep "$SWEEP" submit --local private.yaml >out 2>err); then
	fail "submit used a state folder its group may write"
fi
grep -qF "refusing the state folder" "$dir/err" || fail "submit: $(cat "$dir/err")"
chmod go-w "$dir/.sweep"

# --- A task folder others may write: its result is not read -----------------
chmod o+w "$dir/.sweep/sweeps/1/tasks/0/1"
(cd "$dir" && SWEEP_STATE_DIR=.sweep "$SWEEP" report --allow-incomplete >out 2>err) || true
grep -qF "refusing the task folder '$dir/.sweep/sweeps/1/tasks/0/1': it is writable by others" "$dir/out" "$dir/err" ||
	fail "report read a result from a task folder others may write: $(cat "$dir/out" "$dir/err")"
chmod o-w "$dir/.sweep/sweeps/1/tasks/0/1"
# Its group folder (tasks/0) guards every task folder in it.
chmod o+w "$dir/.sweep/sweeps/1/tasks/0"
(cd "$dir" && SWEEP_STATE_DIR=.sweep "$SWEEP" report --allow-incomplete >out 2>err) || true
grep -qF "refusing the task group folder '$dir/.sweep/sweeps/1/tasks/0': it is writable by others" "$dir/out" "$dir/err" ||
	fail "report read a result under a group folder others may write: $(cat "$dir/out" "$dir/err")"
chmod o-w "$dir/.sweep/sweeps/1/tasks/0"
log "refused a group-writable state folder and others-writable task and group folders"
