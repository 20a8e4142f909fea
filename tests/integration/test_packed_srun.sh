#!/bin/bash
# Packed tasks where the submitting sweep binary is not on the node (here:
# removed before the array job starts): each task runs as a job step of its
# own (srun, named sweep-<index>), the array task's log says why, and the
# steps read as before.
. "$(dirname "$0")/lib.sh"
cluster_up
cp "$SWEEP" "$PWD/sweep copy"
cat >srun.yaml <<'YAML'
name: packed_srun
command: |
  echo '{{"loss": '{seed}'}}' > "$SWEEP_RESULT"
seeds: 4
pack: 2
slurm:
  time: "1"
  mem: 100M
  extra: ["--hold"]
YAML
out=$("$PWD/sweep copy" submit srun.yaml) || fail "submit failed: $out"
printf '%s\n' "$out" >&2
SWEEP_ID=$(sed -n 's/^sweep \([0-9]*\) .*/\1/p' <<<"$out")
mapfile -t JOBS < <(sed -n 's/^array job \([0-9]*\):.*/\1/p' <<<"$out")
CLEANUP_JOBS+=("${JOBS[@]}")
grep -q "sweep_bin='$PWD/sweep copy'" "$(sweep_dir)/packed_srun.sbatch" || fail "the script does not name the submitting binary"
rm -f "$PWD/sweep copy"
scontrol release "${JOBS[0]}" || fail "cannot release ${JOBS[0]}"
wait_sweep 2 300
grep -rq "one job step each: the sweep binary '$PWD/sweep copy' is not executable" logs ||
	fail "the array task's log does not say why each task is a job step"
steps=$(sacct -n -P -j "${JOBS[0]}" -o JobName,State | grep '^sweep-' | sort)
printf '%s\n' "$steps" >&2
[ "$(grep -c '|COMPLETED$' <<<"$steps")" -eq 4 ] || fail "expected 4 completed steps sweep-N: $steps"
[ ! -e "$(sweep_dir)/packs" ] || fail "packs/ was made though no task was recorded there"
wait_until 60 "report to accept the sweep" "$SWEEP" report
log "ok"
