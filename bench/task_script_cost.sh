#!/bin/bash
# The CPU a task's script costs, beside a hand-written array script doing
# the same job (issue 36.1). Figures only: it passes or fails nothing.
#
#   bench/task_script_cost.sh [BUILD_DIR] [RUNS] [SIZES]   (default build, 200, "2000 100000")
#
# For each size (tasks = settings x 10 seeds), sweep writes its script and
# settings (`sweep submit --local`, cancelled at once: the figures come from
# the tasks this bench runs itself). Then RUNS tasks spread over the sweep
# are run one after another the way Slurm starts them (bash SCRIPT OFFSET,
# SLURM_ARRAY_TASK_ID and SLURM_JOB_ID set, SWEEP_UMASK as sweep passes it,
# in the submit folder, a path with a space), and the same tasks by:
# - the command alone: `./train.sh LR SEED` started from a loop;
# - the hand-written array of bench/big_sweep.sh: `cd`, the setting's line
#   picked with sed, then the command;
# - a hand-written array with no process but the command: the values in a
#   bash array written into the script.
# train.sh is `#!/bin/true`: the command costs an exec and nothing more, so
# what is left is the script's own cost. The figure is user + system CPU
# of the script and every process it starts, per task (getrusage of the
# children), and its wall time; "own" subtracts the command alone.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
sweep=$(cd "${1:-$top/build}" && pwd)/sweep
runs=${2:-200}
sizes=${3:-2000 100000}
seeds=10

work=$(mktemp -d "/tmp/sweep cost XXXXXX")
trap 'rm -rf "$work"' EXIT
export SWEEP_STATE_DIR=$work/.sweep

# cost CMD...: "CPU_MS WALL_MS": per task, over the RUNS tasks, of CMD run
# with the task's array index in SLURM_ARRAY_TASK_ID (a fresh bash runs the
# loop; its children's rusage is the figure).
cost() {
	local t
	t=$( { /usr/bin/time -f '%U %S %e' bash -c '
		n=$1 runs=$2; shift 2
		for ((k = 0; k < runs; k++)); do
			i=$(( k * n / runs ))
			SLURM_ARRAY_TASK_ID=$i SLURM_JOB_ID=$((1000 + i)) SLURM_ARRAY_JOB_ID=999 "$@" >/dev/null 2>&1 || exit 1
		done' cost "$tasks" "$runs" "$@" 2>&1 >/dev/null; } | tail -1)
	awk -v r="$runs" -v t="$t" 'BEGIN { split(t, a, " "); printf "%.2f %.2f\n", (a[1] + a[2]) * 1000 / r, a[3] * 1000 / r }'
}

printf '%-10s %-44s %14s %14s %12s\n' tasks "way (per task)" "CPU ms" "own CPU ms" "wall ms"
for tasks in $sizes; do
	settings=$((tasks / seeds))
	dir="$work/n $tasks"
	mkdir -p "$dir"
	cd "$dir"
	printf '#!/bin/true\n' >train.sh
	chmod +x train.sh
	seq "$settings" | awk '{ printf "%.6g\n", 10 ^ (-5 + 4 * ($1 - 1) / '"$settings"') }' >lrs.txt
	cat >sweep.yaml <<YAML
name: cost-$tasks
command: ./train.sh {lr} {seed}
seeds: $seeds
grid:
  lr: [$(paste -sd, lrs.txt)]
slurm:
  time: "2"
  mem: 50M
  max_concurrent: 1
YAML
	"$sweep" submit --local sweep.yaml >submit.out
	"$sweep" cancel >/dev/null 2>&1 || true
	script=$(sed -n 's/^script: *//p' submit.out)
	# The hand-written arrays, as a user writes them.
	cat >ref-sed.sh <<SH
#!/bin/bash
cd "$dir"
i=\$SLURM_ARRAY_TASK_ID
./train.sh "\$(sed -n "\$((i / $seeds + 1))p" lrs.txt)" \$((i % $seeds))
SH
	{
		echo '#!/bin/bash'
		printf 'cd %q\n' "$dir"
		echo "lrs=($(paste -sd' ' lrs.txt))"
		echo 'i=$SLURM_ARRAY_TASK_ID'
		echo "./train.sh \"\${lrs[i / $seeds]}\" \$((i % $seeds))"
	} >ref-array.sh
	read -r c_alone w_alone < <(cost ./train.sh 0.001 3)
	read -r c_sed w_sed < <(cost bash ref-sed.sh)
	read -r c_arr w_arr < <(cost bash ref-array.sh)
	read -r c_sweep w_sweep < <(SWEEP_UMASK=0022 cost bash "$script" 0)
	own() { awk -v a="$1" -v b="$c_alone" 'BEGIN { printf "%.2f", a - b }'; }
	printf '%-10s %-44s %14s %14s %12s\n' "$tasks" "the command alone (exec of train.sh)" "$c_alone" - "$w_alone"
	printf '%-10s %-44s %14s %14s %12s\n' "$tasks" "hand-written array, sed (big_sweep.sh's)" "$c_sed" "$(own "$c_sed")" "$w_sed"
	printf '%-10s %-44s %14s %14s %12s\n' "$tasks" "hand-written array, values in bash arrays" "$c_arr" "$(own "$c_arr")" "$w_arr"
	printf '%-10s %-44s %14s %14s %12s\n' "$tasks" "sweep's task script ($(wc -c <"$script") bytes)" "$c_sweep" "$(own "$c_sweep")" "$w_sweep"
	printf '%-10s %-44s %14s\n' "$tasks" "sweep / hand-written (sed)" "$(awk -v a="$c_sweep" -v b="$c_sed" 'BEGIN { printf "%.2fx", a / b }')"
	cd "$work"
done
