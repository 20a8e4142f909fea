#!/bin/bash
# A big sweep end to end on the local cluster, against the same tasks as a
# hand-written array, in one run (issue 26). Figures only: it passes or
# fails nothing, but it stops with an error when a step of the sweep does.
#
#   bench/big_sweep.sh TASKS [BUILD_DIR] [PACK] [QOS]     (default 2000 build 1, no QOS)
#
# The task is a program as users write it: `train.sh LR SEED` sleeps a
# second and prints its loss to stdout (no result file, no handler), read
# with `results: log:`; 10 seeds, TASKS/10 settings, in a folder whose name
# holds a space.
#
# 1. The hand-written array: the sbatch script a user writes, with the
#    same PACK tasks per array task (a bash loop) and the same QOS,
#    submitted in arrays of at most MaxArraySize, sbatch tried again every
#    10 s while a limit refuses it. Wall time from the first sbatch to the
#    last task's end.
# 2. The sweep: `sweep submit` (rolling where the limits ask for it, its
#    follow-up jobs submit the rest), polled with `sweep status` every 15 s
#    as a user would. Once 60% of the tasks have ended, while it runs:
#    one refresh of `status --tasks` against `sacct -j` of the same array
#    jobs, and the read RPCs slurmctld (sdiag) and slurmdbd (sacctmgr show
#    stats) answered per refresh over 60 s: nothing polling, `status --tasks
#    --watch=5`, and `squeue -r` + `sacct -j` every 5 s.
# 3. Once it ended: the time and peak memory of each read (status, status
#    --tasks, report, rightsize; first read and repeated) against `sacct -j`
#    and `sacct -X -j` of the same jobs, the state store's size, and that
#    report printed every setting with n = 10.
# slurmctld's job records are sampled every 10 s throughout (squeue -r -t all,
# each side's own), paused during the RPC windows.
#
# Limits for the bench only: BIG_MAX_ARRAY, BIG_MAX_JOBS, BIG_CPUS and
# BIG_MSG_TIMEOUT re-render the test cluster (tests/cluster/up with
# SWEEP_CLUSTER_*) for the run and restore the caller's configuration at the
# end. BIG_ORDER=sweep-first runs the sweep before the hand-written array.
# BIG_MD=FILE: the table also in Markdown, to FILE (BIG_CMD: the command
# line it names); bench/readme_tables puts it into README.md.
# BIG_MEASURE_AT: the percent of tasks ended at which the refresh and the
# daemons' load are measured while the sweep runs. Default 101: never. Those
# measurements load the sweep's side alone (the hand-written array's has
# none), so with them its wall time is no longer comparable; the table then
# says so. For the timed comparison, leave it off; for the in-run figures,
# run the bench again with BIG_MEASURE_AT=60. Each side is otherwise polled
# alike: `sweep status` every 15 s against `squeue` every 10 s.
# BIG_CAP_S: where a side cannot end in a session (50,000 tasks start at
# about 7 a second here, for each side), each side runs at most that many
# seconds and is then cancelled (sweep-first): the figures are then the
# tasks each side ended in the same first seconds (before the sweep's own
# measurements began, which take CPU), and the reads of the capped sweep.
# Tasks Slurm holds after a failed launch ("launch failed requeued held":
# under this load slurmctld can give up on slurmd's reply) are counted as
# held and not waited for, on either side. Run it alone on the cluster:
# other jobs change every figure.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/.." && pwd)
tasks=${1:-2000}
sweep=$(cd "${2:-$top/build}" && pwd)/sweep
pack=${3:-1}
qos=${4:-}
seeds=10
measure_at=${BIG_MEASURE_AT:-101}
cap=${BIG_CAP_S:-0}
((tasks % seeds == 0)) || { echo "TASKS must be a multiple of $seeds" >&2; exit 2; }
settings=$((tasks / seeds))

log() { printf '[%s] %s\n' "$(date +%T)" "$*" >&2; }

# --- the cluster's limits, for this run only
raised=0
if [ -n "${BIG_MAX_ARRAY:-}${BIG_MAX_JOBS:-}${BIG_CPUS:-}${BIG_MSG_TIMEOUT:-}" ]; then
	raised=1
	log "setting the test cluster up for the bench: MaxArraySize ${BIG_MAX_ARRAY:-as is}, MaxJobCount ${BIG_MAX_JOBS:-as is}, CPUs ${BIG_CPUS:-as is}, MessageTimeout ${BIG_MSG_TIMEOUT:-as is}"
	env ${BIG_MAX_ARRAY:+SWEEP_CLUSTER_MAX_ARRAY=$BIG_MAX_ARRAY} ${BIG_MAX_JOBS:+SWEEP_CLUSTER_MAX_JOBS=$BIG_MAX_JOBS} \
		${BIG_CPUS:+SWEEP_CLUSTER_CPUS=$BIG_CPUS} ${BIG_MSG_TIMEOUT:+SWEEP_CLUSTER_MSG_TIMEOUT=$BIG_MSG_TIMEOUT} \
		"$top/tests/cluster/up" >/dev/null
fi
[ -z "${BIG_MD:-}" ] || BIG_MD=$(realpath -m -- "$BIG_MD")
work=$(mktemp -d "/tmp/sweep big XXXXXX")
# Job names of this run only (records of earlier runs stay MinJobAge in slurmctld).
tag=$(basename "$work" | tr -cd 'A-Za-z0-9' | tail -c 6)
poller=""
cleanup() {
	[ -z "$poller" ] || kill "$poller" 2>/dev/null || true
	"$sweep" cancel >/dev/null 2>&1 || true
	if ((raised)); then
		# The default MaxJobCount must hold the records left (MinJobAge).
		for ((i = 0; i < 80; i++)); do
			(($(squeue -h -t all 2>/dev/null | wc -l) < 9000)) && break
			((i)) || log "waiting for slurmctld to purge ended jobs' records before restoring"
			sleep 10
		done
		log "restoring the test cluster's configuration"
		"$top/tests/cluster/up" >/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT
cd "$work"
export SWEEP_STATE_DIR=$work/.sweep
held_of() { squeue -h -r -j "$1" -o %r 2>/dev/null | grep -c -i "held" || true; }
msg_timeout=$(scontrol show config | awk '$1 == "MessageTimeout" { print $3 }')
max_array=$(scontrol show config | awk '$1 == "MaxArraySize" { print $3 }')
max_jobs=$(scontrol show config | awk '$1 == "MaxJobCount" { print $3 }')
cpus=$(sinfo -h -o %c | head -1)
log "$tasks tasks ($settings settings x $seeds seeds), pack $pack${qos:+, QOS $qos}; cluster: MaxArraySize $max_array, MaxJobCount $max_jobs, $cpus CPUs, MessageTimeout $msg_timeout s"

cat >train.sh <<'SH'
#!/bin/bash
# train.sh LR SEED: a second of "training", then the loss on stdout.
sleep 1
awk -v lr="$1" -v s="$2" 'BEGIN { srand(s); l = log(lr) / log(10) + 3; printf "epoch 1 loss=%.6f\n", l * l + rand() }'
SH
seq "$settings" | awk '{ printf "%.6g\n", 10 ^ (-5 + 4 * ($1 - 1) / '"$settings"') }' >lrs.txt
lr_list=$(paste -sd, lrs.txt)

# --- job records in slurmctld, sampled every 10 s (paused while "paused"
# exists): those of the hand-written array while it runs, the sweep's (its
# arrays and follow-ups, named after it) while the sweep runs. Without -r:
# the tasks of an array that are still pending share one record.
sample_records() {
	local phase
	while :; do
		phase=$(cat phase)
		if [ ! -e paused ] && [ "$phase" != after ]; then
			squeue -h -t all -o %j 2>/dev/null |
				awk -v p="$phase" -v ref="ref-$tag" -v name="big-$tasks-$tag" '(p == "ref" && $1 == ref) || (p == "sweep" && index($1, name) == 1) { n++ } END { print n + 0 }' >>"records.$phase"
		fi
		sleep 10
	done
}
echo ref >phase
sample_records &
poller=$!
peak_of() { sort -n "records.$1" 2>/dev/null | tail -1; }

# last_end IDS: the latest End of the allocations of the array jobs IDS (comma separated).
last_end() { date -d "$(sacct -n -P -X -j "$1" -o End | grep -v Unknown | sort | tail -1)" +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", b - a }'; }
plus() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", a + b }'; }
# ended_by IDS EPOCH: the tasks of the array jobs IDS that ended COMPLETED by EPOCH (accounting's End).
ended_by() {
	sacct -n -P -X -j "$1" -s CD -o End 2>/dev/null | grep -v Unknown | date -f - +%s |
		awk -v e="$2" '$1 <= e { n++ } END { print n + 0 }'
}

# ------------------------------------------------------------ 1. the hand-written array
# Packed, each task's loss goes to a file of its own on both sides (they
# share one log), through the same awk as the sweep's command below.
ref_task='bash "'"$work"'/train.sh" "$(sed -n "$((i / '"$seeds"' + 1))p" lrs.txt)" $((i % '"$seeds"'))'
((pack == 1)) ||
	ref_task+=' | awk -F= '"'"'/loss=/ { print "{\"loss\": " $2 "}" }'"'"' >"'"$work"'/ref/task-$i.json"'
cat >ref.sh <<SH
#!/bin/bash
#SBATCH --job-name=ref-$tag
#SBATCH --output="$work/ref/%x_%A_%a.out"
#SBATCH --time=$((2 * pack))
#SBATCH --mem=50M
${qos:+#SBATCH --qos=$qos}
# ref.sh OFFSET: array task a runs tasks OFFSET + a*$pack ... of the sweep.
cd "$work"
for ((k = 0; k < $pack; k++)); do
	i=\$((\$1 + SLURM_ARRAY_TASK_ID * $pack + k))
	[ \$i -lt $tasks ] || break
	$ref_task
done
SH
run_ref() {
echo ref >phase
mkdir ref
narray=$(((tasks + pack - 1) / pack))
ref_ids=""
t0=$EPOCHREALTIME
for ((off = 0; off < narray; off += max_array)); do
	n=$((narray - off < max_array ? narray - off : max_array))
	until id=$(sbatch --parsable --array=0-$((n - 1)) ref.sh $((off * pack)) 2>sbatch.err); do
		grep -q -i "limit\|MaxSubmit\|QOS" sbatch.err || { cat sbatch.err >&2; exit 1; }
		sleep 10
	done
	ref_ids+=${ref_ids:+,}${id%%;*}
done
log "hand-written: $narray array tasks in $(tr , '\n' <<<"$ref_ids" | wc -l) array job(s) submitted"
ref_capped=0
while [ -n "$(squeue -h -r -j "$ref_ids" -o %r 2>/dev/null | grep -v -i held | head -1)" ]; do
	if ((cap && $(secs "$t0" "$EPOCHREALTIME") >= cap)); then
		ref_capped=1
		log "hand-written: capped at $cap s; cancelling the rest"
		scancel $ref_ids
		break
	fi
	sleep 10
done
ref_held=$(held_of "$ref_ids")
sleep 5
if ((cap)); then
	ref_at_meas=$(ended_by "$ref_ids" "$(plus "$t0" "$t_meas")")
	ref_at_cap=$(ended_by "$ref_ids" "$(plus "$t0" "$cap")")
fi
if ((ref_capped)); then ref_wall="- (capped)"; else ref_wall=$(secs "$t0" "$(last_end "$ref_ids")"); fi
if ((pack == 1)); then
	ref_done=$(grep -h -c '^epoch 1 loss=' ref/*.out | awk '{ n += $1 } END { print n }')
else
	ref_done=$(find ref -name 'task-*.json' -exec grep -l '"loss"' {} + | wc -l)
fi
ref_failed=$(sacct -n -P -X -j "$ref_ids" -o State | grep -c -v COMPLETED || true)
log "hand-written: $( ((ref_capped)) && echo "cancelled at the cap" || echo "ended in $ref_wall s"); $ref_done of $tasks losses printed; $ref_failed array tasks not COMPLETED, $ref_held held by Slurm"
ref_peak=$(peak_of ref)
[ "$ref_held" = 0 ] || scancel $ref_ids
}
# Its records stay in slurmctld MinJobAge after they end: the sweep's
# peak counts its own only, and its plan sees the room they leave.

# ------------------------------------------------------------ 2. the sweep
# Packed tasks share their array task's log, so there the metric goes
# through a result file (sweep refuses pack with results: log).
if ((pack == 1)); then
	command="command: bash '$work/train.sh' {lr} {seed}"
	results=$'results:\n  log:\n    loss: \'loss=([0-9.]+)\''
else
	command=$'command: |\n'"  bash '$work/train.sh' {lr} {seed} | awk -F= '/loss=/ {{ print \"{{\\\"loss\\\": \" \$2 \"}}\" }}' > \"\$SWEEP_RESULT\""
	results=""
fi
cat >sweep.yaml <<YAML
name: big-$tasks-$tag
$command
seeds: $seeds
grid:
  lr: [$lr_list]
$results
metrics:
  loss: min
pack: $pack
slurm:
  time: "2"
  mem: 50M
${qos:+  qos: $qos}
YAML
run_sweep() {
echo sweep >phase
t0=$EPOCHREALTIME
/usr/bin/time -f '%e %M' -o submit.time "$sweep" submit sweep.yaml >submit.out
id=$(sed -n 's/^sweep \([0-9]*\) .*/\1/p' submit.out | head -1)
log "sweep $id submitted in $(cut -d' ' -f1 submit.time) s ($(grep -c '^array job' submit.out) array job(s) now)"
grep -i 'rolling\|chunk\|follow-up' submit.out | head -3 >&2 || true

# done_count: the tasks that ended, from `sweep status` (a user's poll: job
# records only, as `sacct -X`).
done_count() {
	/usr/bin/time -f '%e %M' -a -o polls.time "$sweep" status "$id" >status.txt 2>/dev/null || true
	sed -n 's|^\([0-9]*\)/[0-9]* done.*|\1|p' status.txt | tail -1 | grep . || echo 0
}
# queries_of ARGS...: "N queries": the slurmdbd queries one run of sweep ARGS sent.
queries_of() { echo "$(sweep_queries "$sweep" "$@") queries"; }
# array_ids: the sweep's array jobs so far, from its state store.
array_ids() { sqlite3 "$SWEEP_STATE_DIR/sweep.db" "select group_concat(job_id) from arrays where sweep_id = $id"; }

measured=0
sweep_held=0
while :; do
	d=$(done_count)
	((d >= tasks)) && break
	# Only tasks Slurm holds left, and no follow-up to come: they are lost.
	jobs=$(array_ids)
	sweep_held=$(held_of "$jobs")
	if ((sweep_held > 0 && d + sweep_held >= tasks)); then
		log "sweep: $sweep_held tasks held by Slurm after a failed launch; not waiting for them"
		"$sweep" status "$id" | head -20 >&2 || true
		break
	fi
	if ((cap && $(secs "$t0" "$EPOCHREALTIME") >= cap)); then
		sweep_capped=1
		log "sweep: $d of $tasks ended, capped at $cap s; cancelling the rest"
		"$sweep" cancel "$id" >/dev/null
		break
	fi
	if ((!measured && d >= tasks * measure_at / 100)); then
		measured=1
		t_meas=$(secs "$t0" "$EPOCHREALTIME")
		jobs=$(array_ids)
		touch paused
		log "sweep: $d of $tasks ended; measuring a refresh and the daemons' load while it runs"
		"$sweep" status "$id" --tasks >/dev/null 2>&1 || true
		read -r t_sacct_run m_sacct_run < <(timed_rss 3 sacct -n -P -j "$jobs" -o JobID,State,ExitCode,Elapsed,MaxRSS,TotalCPU,Start,End,ReqMem,Timelimit)
		read -r t_refresh m_refresh < <(timed_rss 3 "$sweep" status "$id" --tasks)
		q_refresh=$(queries_of status "$id" --tasks)
		d_at=$(done_count)
		poll() { while :; do squeue -h -r -j "$jobs" >/dev/null; sacct -n -P -j "$jobs" -o JobID,State,MaxRSS >/dev/null; sleep 5; done; }
		load=$(rpc_window "nothing polling (the reference)" 60 5
			rpc_window "sweep status --tasks --watch=5" 60 5 "$sweep" status "$id" --tasks --watch=5
			rpc_window "squeue -r -j + sacct -j every 5 s" 60 5 poll)
		rm -f paused
		log "sweep: measured at $d_at of $tasks ended"
	fi
	sleep 15
done
sleep 5
jobs=$(array_ids)
if ((sweep_capped)); then sweep_wall="- (capped)"; else sweep_wall=$(secs "$t0" "$(last_end "$jobs")"); fi
if ((cap)); then
	t_meas=${t_meas:-$cap}
	sweep_at_meas=$(ended_by "$jobs" "$(plus "$t0" "$t_meas")")
	sweep_at_cap=$(ended_by "$jobs" "$(plus "$t0" "$cap")")
fi
sweep_peak=$(peak_of sweep)
narrays=$(tr , '\n' <<<"$jobs" | wc -l)
log "sweep: ended in $sweep_wall s, $narrays array jobs"
}

# ------------------------------------------------------------ 3. reads of the ended sweep
read_sweep() {
echo after >phase
# Accounting may record the last tasks' statistics a moment late: report
# until it accepts the sweep (bounded).
start=$SECONDS
until "$sweep" report "$id" >report.txt 2>report.err || ((sweep_held || sweep_capped)); do
	((SECONDS - start < 300)) || { cat report.err >&2; exit 1; }
	sleep 10
done
"$sweep" report "$id" --json >report.json 2>/dev/null || true
rows=$(/usr/bin/python3 -c '
import json, sys
r = json.load(open("report.json"))
rows = r.get("settings") or r.get("rows") or []
print(sum(1 for s in rows if s.get("n") == int(sys.argv[1]) or any(isinstance(m, dict) and m.get("n") == int(sys.argv[1]) for m in (s.get("metrics") or {}).values())))' "$seeds" 2>/dev/null || echo "?")
read -r t_sacct m_sacct < <(timed_rss 3 sacct -n -P -j "$jobs" -o JobID,State,ExitCode,Elapsed,MaxRSS,TotalCPU,Start,End,ReqMem,Timelimit)
read -r t_sacctx m_sacctx < <(timed_rss 3 sacct -n -P -X -j "$jobs" -o JobID,State,ExitCode,Elapsed,Start,End,ReqMem,Timelimit)
read -r t_st_ref m_st_ref < <(timed_rss 1 "$sweep" status "$id" --refresh)
read -r t_stt_ref m_stt_ref < <(timed_rss 1 "$sweep" status "$id" --tasks --refresh)
read -r t_rep_ref m_rep_ref < <(timed_rss 1 "$sweep" report "$id" --refresh)
read -r t_st m_st < <(timed_rss 3 "$sweep" status "$id")
read -r t_stt m_stt < <(timed_rss 3 "$sweep" status "$id" --tasks)
read -r t_rep m_rep < <(timed_rss 3 "$sweep" report "$id")
read -r t_rs m_rs < <(timed_rss 3 "$sweep" rightsize "$id")
q_rep=$(queries_of report "$id")
read -r t_poll_max m_poll_max < <(sort -g -k1 polls.time | grep -v '^Command' | tail -1)
store_db=$(du -b "$SWEEP_STATE_DIR/sweep.db" | cut -f1)
store_all=$(du -sb "$SWEEP_STATE_DIR" | cut -f1)
logs=$(find "$work" \( -name '*.out' -o -name '*.err' \) ! -path "$work/ref/*" -print0 | du -cb --files0-from=- | tail -1 | cut -f1)
}

mb() { awk -v k="$1" 'BEGIN { printf "%.1f MB", k / 1024 }'; }
mib() { awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }'; }
# row FIGURE SWEEP REFERENCE: one line of the table, and with BIG_MD=FILE
# the same row in Markdown (bench/readme_tables puts FILE into README.md).
row() {
	printf '%-58s %-28s %s\n' "$1" "$2" "$3"
	[ -z "${BIG_MD:-}" ] || printf '| %s | %s | %s |\n' "$1" "$2" "$3" >>"$BIG_MD"
}
# print_table: every figure so far ("-" where the reference has not run yet).
print_table() {
echo
echo "== $tasks tasks ($settings settings x $seeds seeds), pack $pack${qos:+, QOS $qos}; MaxArraySize $max_array, MaxJobCount $max_jobs, $cpus CPUs, MessageTimeout $msg_timeout s =="
if [ -n "${BIG_MD:-}" ]; then
	{
		echo "$tasks tasks ($settings settings x $seeds seeds), pack $pack${qos:+, QOS $qos}; MaxArraySize $max_array, MaxJobCount $max_jobs, $cpus CPUs, MessageTimeout $msg_timeout s; run of $(date -u '+%F %H:%M') UTC, \`${BIG_CMD:-bench/big_sweep.sh $tasks}\`:"
		echo
		echo "| figure | sweep | reference (same run) |"
		echo "| --- | --- | --- |"
	} >"$BIG_MD"
fi
if ((cap)); then
	row "tasks ended in the first $t_meas s (before measuring)" "$sweep_at_meas ($(ratio "$sweep_at_meas" "$t_meas")/s)" "hand-written array: $ref_at_meas ($(ratio "$ref_at_meas" "$t_meas")/s; sweep $(ratio "$sweep_at_meas" "$ref_at_meas")x)"
	row "tasks ended in the cap of $cap s (then cancelled)" "$sweep_at_cap" "hand-written array: $ref_at_cap"
else
	row "wall time, submit to the last task's end" "$sweep_wall s" "hand-written array: $ref_wall s ($(ratio "$sweep_wall" "$ref_wall")x$( ((!measured)) || echo "; not alike: the sweep's includes the measurements at $measure_at%"))"
fi
row "array jobs" "$narrays" "hand-written: $(tr , '\n' <<<"$ref_ids" | grep -c . || true)"
row "slurmctld job records at peak (its own; sampled 10 s)" "$sweep_peak" "hand-written: $ref_peak"
row "tasks that printed their loss / reported" "$rows of $settings settings with n = $seeds; $sweep_held held" "hand-written: $ref_done of $tasks losses in the logs, $ref_failed array tasks not COMPLETED, $ref_held held"
row "submit" "$(cut -d' ' -f1 submit.time) s, $(mb "$(cut -d' ' -f2 submit.time)")" ""
row "status while it ran (slowest of the 15 s polls)" "$t_poll_max s, $(mb "$m_poll_max")" ""
if ((measured)); then
	row "one refresh of status --tasks at $d_at of $tasks ended" "$t_refresh s, $(mb "$m_refresh") ($q_refresh)" "sacct -j: $t_sacct_run s, $(mb "$m_sacct_run") ($(ratio "$t_refresh" "$t_sacct_run")x; target 0.2x)"
fi
row "first read: status --refresh" "$t_st_ref s, $(mb "$m_st_ref")" "sacct -X -j: $t_sacctx s, $(mb "$m_sacctx") ($(ratio "$t_st_ref" "$t_sacctx")x)"
row "first read: status --tasks --refresh" "$t_stt_ref s, $(mb "$m_stt_ref")" "sacct -j: $t_sacct s, $(mb "$m_sacct") ($(ratio "$t_stt_ref" "$t_sacct")x)"
row "first read: report --refresh" "$t_rep_ref s, $(mb "$m_rep_ref")" "sacct -j: ($(ratio "$t_rep_ref" "$t_sacct")x)"
row "repeated: status" "$t_st s, $(mb "$m_st")" "sacct -j: $(ratio "$t_st" "$t_sacct")x"
row "repeated: status --tasks" "$t_stt s, $(mb "$m_stt")" "sacct -j: $(ratio "$t_stt" "$t_sacct")x"
row "repeated: report ($q_rep)" "$t_rep s, $(mb "$m_rep")" "sacct -j: $(ratio "$t_rep" "$t_sacct")x"
row "rightsize" "$t_rs s, $(mb "$m_rs")" "sacct -j: $(ratio "$t_rs" "$t_sacct")x"
row "state store: sweep.db / the whole state folder" "$(mib "$store_db") / $(mib "$store_all")" "the sweep's logs: $(mib "$logs")"
if ((measured)); then
	echo
	echo "read RPCs per 5 s refresh over 60 s while the sweep ran (target: at most 1 slurmctld RPC and 1 slurmdbd query):"
	echo "$load"
fi
echo
echo "report's first lines:"
head -5 report.txt
}

# The hand-written array's figures, "-" until it ran.
ref_wall=- ref_ids="" ref_peak=- ref_done=- ref_failed=- ref_held=- ref_at_meas=- ref_at_cap=-
sweep_capped=0 sweep_at_cap=- sweep_at_meas=- t_meas=""
if [ "${BIG_ORDER:-}" = sweep-first ] || ((cap)); then
	run_sweep
	read_sweep
	print_table
	run_ref
	echo after >phase
else
	run_ref
	run_sweep
	read_sweep
fi
print_table
