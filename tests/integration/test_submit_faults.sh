#!/bin/bash
# Fault injection (issue 16): `submit` and `resubmit` killed with SIGKILL at
# every step (SWEEP_FAULT names the step: before and after each store write,
# before sbatch, after it answered) and while sbatch still runs (a slow
# stand-in on PATH that wraps the real sbatch). After each kill the next
# command recovers, and then: no job of the sweep runs unrecorded (no
# orphan), the sweep is in the store (none lost), and no sweep is marked
# failed while its job ran. A disk that fills while sbatch runs loses no job
# either: submit keeps room to record it (a small tmpfs as state folder).
. "$(dirname "$0")/lib.sh"
cluster_up
real_sbatch=$(command -v sbatch)
tag=f$$
mkdir -p slow
# Slow sbatch: says it started, waits, then submits (a slow slurmctld).
cat >slow/sbatch <<SH
#!/bin/bash
touch "\$SWEEP_TEST_MARK"
sleep 6
exec "$real_sbatch" "\$@"
SH
chmod +x slow/sbatch
trap 'for n in $(squeue -h -o %j | grep "^$tag" | sort -u); do scancel -n "$n"; done 2>/dev/null || true; mountpoint -q "$WORK/full" && umount "$WORK/full"' EXIT

# A sweep of one task; fail_once makes its first run fail (for resubmit).
write_sweep() { # FILE NAME FAIL_ONCE
	cat >"$1" <<YAML
name: $2
command: |
  if [ $3 = 1 ] && [ ! -e "\$SWEEP_TASK_DIR/ran" ]; then touch "\$SWEEP_TASK_DIR/ran"; exit 3; fi
  echo '{{"value": {seed}}}' > "\$SWEEP_RESULT"
seeds: 1
slurm:
  time: "5"
  mem: 50M
YAML
}

# Array job ids Slurm has for a job name, with their states: "ID STATE" lines.
slurm_jobs() {
	{
		squeue -h -r -n "$1" -o '%F %T' 2>/dev/null
		sacct -n -X -P --name="$1" -S now-2hours -o JobID,State 2>/dev/null |
			sed 's/_.*|/ /; s/|/ /'
	} | awk '{print $1, $2}' | sort -u
}

# check STATE_DIR NAME WHAT: the invariants, after recovery.
CHECKED=()
check() {
	local state=$1 name=$2 what=$3 status recorded id st
	CHECKED+=("$state|$name|$what")
	status=$(sqlite3 "$state/sweep.db" "SELECT status FROM sweeps WHERE name = '$name'" 2>/dev/null || true)
	recorded=" $(sqlite3 "$state/sweep.db" "SELECT a.job_id FROM arrays a JOIN sweeps s ON s.id = a.sweep_id WHERE s.name = '$name'" 2>/dev/null | tr '\n' ' ') "
	log "$what: status '${status:-none}', recorded [$recorded], slurm: $(slurm_jobs "$name" | tr '\n' ';')"
	while read -r id st; do
		[ -n "$id" ] || continue
		case $st in CANCELLED*) continue ;; esac
		[[ $recorded == *" $id "* ]] || fail "$what: job $id ($st) runs but is not recorded (orphan)"
		[ "$status" != 2 ] || fail "$what: sweep marked failed while its job $id ran ($st)"
	done < <(slurm_jobs "$name")
	if [ -n "$(slurm_jobs "$name")" ] && [ -z "$status" ]; then
		fail "$what: a job exists but the sweep is not in the store (lost)"
	fi
	return 0
}

# Recovery happens in the next command that opens the sweep.
recover() { "$SWEEP" status "$2" --state-dir "$1" >/dev/null 2>>"$WORK/recover.log" || true; }

submit_points=(submit-before-record submit-after-record submit-after-lock submit-before-sbatch
	after-sbatch submit-after-sbatch submit-after-add-array submit-before-finish
	submit-after-finish)
n=0
for point in "${submit_points[@]}"; do
	n=$((n + 1))
	name=$tag-s$n state=$WORK/s$n/.sweep
	mkdir -p "$WORK/s$n"
	write_sweep "$WORK/s$n/sweep.yaml" "$name" 0
	set +e
	(cd "$WORK/s$n" && SWEEP_FAULT=$point "$SWEEP" submit sweep.yaml --state-dir "$state" >/dev/null 2>&1)
	rc=$?
	set -e
	[ $rc -eq 137 ] || fail "$point: submit was not killed (exit $rc)"
	recover "$state" "$name"
	check "$state" "$name" "submit killed at $point"
done

# Killed while sbatch runs: recovery must wait for sbatch, then adopt its job.
name=$tag-slow state=$WORK/slow/.sweep
mkdir -p "$WORK/slow"
write_sweep "$WORK/slow/sweep.yaml" "$name" 0
rm -f "$WORK/mark"
(cd "$WORK/slow" && SWEEP_TEST_MARK=$WORK/mark PATH=$WORK/slow:$PATH exec "$SWEEP" submit sweep.yaml --state-dir "$state" >/dev/null 2>&1) &
pid=$!
wait_until 60 "the slow sbatch to start" test -e "$WORK/mark"
kill -9 $pid
wait $pid 2>/dev/null || true
recover "$state" "$name"
st=$(sqlite3 "$state/sweep.db" "SELECT status FROM sweeps WHERE name = '$name'")
[ "$st" = 0 ] || fail "while sbatch still ran, recovery concluded (status $st) instead of waiting"
adopted() { recover "$state" "$name"; [ "$(sqlite3 "$state/sweep.db" "SELECT count(*) FROM arrays")" = 1 ]; }
wait_until 60 "the slow sbatch's job to be adopted" adopted
check "$state" "$name" "submit killed while sbatch ran"
[ "$(sqlite3 "$state/sweep.db" "SELECT status FROM sweeps")" = 1 ] || fail "slow: not submitted"

# A sweep marked failed adopts a job that appears later under its name and script.
name=$tag-late state=$WORK/late/.sweep
mkdir -p "$WORK/late"
write_sweep "$WORK/late/sweep.yaml" "$name" 0
set +e
(cd "$WORK/late" && SWEEP_FAULT=submit-before-sbatch "$SWEEP" submit sweep.yaml --state-dir "$state" >/dev/null 2>&1)
set -e
recover "$state" "$name"
[ "$(sqlite3 "$state/sweep.db" "SELECT status FROM sweeps")" = 2 ] || fail "late: not marked failed"
script=$(sqlite3 "$state/sweep.db" "SELECT script FROM sweeps")
(cd "$WORK/late" && "$real_sbatch" --parsable --array=0-0 "$script" 0 >/dev/null)
recover "$state" "$name"
[ "$(sqlite3 "$state/sweep.db" "SELECT status FROM sweeps")" = 1 ] || fail "late: the job that appeared was not adopted"
check "$state" "$name" "a failed sweep whose job appeared later"

# resubmit: one sweep per point, each with a task that fails its first run.
resubmit_points=(resubmit-before-sbatch after-sbatch resubmit-after-sbatch
	resubmit-after-add-array resubmit-before-finish resubmit-after-finish slow)
n=0
for point in "${resubmit_points[@]}"; do
	n=$((n + 1))
	mkdir -p "$WORK/r$n"
	write_sweep "$WORK/r$n/sweep.yaml" "$tag-r$n" 1
	(cd "$WORK/r$n" && "$SWEEP" submit sweep.yaml --state-dir "$WORK/r$n/.sweep" >/dev/null)
done
first_failed() { # the first run's FAILED record has reached accounting
	sacct -n -X -P --name="$1" -S now-2hours -o State 2>/dev/null | grep -q FAILED
}
n=0
for point in "${resubmit_points[@]}"; do
	n=$((n + 1))
	name=$tag-r$n state=$WORK/r$n/.sweep
	wait_until 180 "the first run of $name to fail" first_failed "$name"
	set +e
	if [ "$point" = slow ]; then
		rm -f "$WORK/mark"
		(cd "$WORK/r$n" && SWEEP_TEST_MARK=$WORK/mark PATH=$WORK/slow:$PATH exec "$SWEEP" resubmit --state-dir "$state" >/dev/null 2>&1) &
		pid=$!
		wait_until 60 "the slow sbatch to start" test -e "$WORK/mark"
		kill -9 $pid
		wait $pid 2>/dev/null
		rc=137
		recover "$state" "$name"
		sleep 8 # the stand-in sleeps 6 s before it submits: wait past it
	else
		(cd "$WORK/r$n" && SWEEP_FAULT=$point "$SWEEP" resubmit --state-dir "$state" >/dev/null 2>&1)
		rc=$?
	fi
	set -e
	[ $rc -eq 137 ] || fail "$point: resubmit was not killed (exit $rc)"
	recover "$state" "$name"
	check "$state" "$name" "resubmit killed at $point"
	# What was adopted is recorded as the second attempt with the task's own --array.
	if [ "$(sqlite3 "$state/sweep.db" "SELECT count(*) FROM arrays")" = 2 ]; then
		[ "$(sqlite3 "$state/sweep.db" "SELECT max(attempt) FROM arrays")" = 2 ] ||
			fail "$point: the adopted array is not attempt 2: $(sqlite3 "$state/sweep.db" "SELECT * FROM arrays")"
	fi
done

# Disk full while sbatch runs: submit still records the job (its reserve),
# or cancels it; never a running job with a sweep left 'submitting'.
mkdir -p "$WORK/full" "$WORK/fill"
mount -t tmpfs -o size=8m tmpfs "$WORK/full"
name=$tag-full state=$WORK/full/.sweep
write_sweep "$WORK/fill/sweep.yaml" "$name" 0
cat >"$WORK/fill/sbatch" <<SH
#!/bin/bash
dd if=/dev/zero of="$WORK/full/filler" bs=64k 2>/dev/null
exec "$real_sbatch" "\$@"
SH
chmod +x "$WORK/fill/sbatch"
set +e
(cd "$WORK/fill" && PATH=$WORK/fill:$PATH "$SWEEP" submit sweep.yaml --state-dir "$state" >full.out 2>full.err)
rc=$?
set -e
cat "$WORK/fill/full.err" >&2
df -h "$WORK/full" >&2
recover "$state" "$name"
check "$state" "$name" "disk full while sbatch ran (exit $rc)"
[ $rc -eq 0 ] || grep -q 'cancelled' "$WORK/fill/full.err" || fail "disk full: failed without cancelling"
# Full before submit: refused before sbatch, nothing submitted.
name2=$tag-full2
write_sweep "$WORK/fill/sweep2.yaml" "$name2" 0
set +e
(cd "$WORK/fill" && "$SWEEP" submit sweep2.yaml --state-dir "$state" >full2.out 2>full2.err)
rc=$?
set -e
cat "$WORK/fill/full2.err" >&2
[ $rc -ne 0 ] || fail "submit on a full disk succeeded"
[ -z "$(slurm_jobs "$name2")" ] || fail "submit on a full disk submitted a job"
umount "$WORK/full"

# Once accounting has every job of these names, check everything again: a
# job that ended before its record reached slurmdbd was invisible above.
in_accounting() {
	local state=$1 name=$2 id
	for id in $(sqlite3 "$state/sweep.db" "SELECT job_id FROM arrays" 2>/dev/null); do
		sacct -n -X -P -j "$id" -o JobID 2>/dev/null | grep -q . || return 1
	done
}
for entry in "${CHECKED[@]}"; do
	IFS='|' read -r state name what <<<"$entry"
	[ -e "$state/sweep.db" ] || continue
	wait_until 90 "accounting for $name" in_accounting "$state" "$name"
	check "$state" "$name" "$what (again, with accounting)"
done
cat "$WORK/recover.log" >&2
log "ok"
