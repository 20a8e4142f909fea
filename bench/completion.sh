#!/bin/bash
# What a Tab costs: `sweep list --names` (sweep names and ids for
# completion) and the bash completion of `sweep status <Tab>` on a store of
# SWEEPS sweeps, against a bare `sqlite3` query of the same names in the
# same run. No cluster needed (the first sweep runs with --local; the others
# are copies of its row).
#
#   bench/completion.sh [SWEEPS] [BUILD_DIR]     (default 2000 sweeps, build/)
#
# Prints the median wall time of 5 runs of each. Figures only: it passes or
# fails nothing. Target: well under 0.1 s, so Tab feels instant.
set -euo pipefail
n=${1:-2000}
top=$(cd "$(dirname "$0")/.." && pwd)
sweep=$(cd "${2:-$top/build}" && pwd)/sweep
work=$(mktemp -d /tmp/sweep-bench-XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"
export SWEEP_STATE_DIR=$work/.sweep
printf 'name: b\ncommand: "true"\n' >b.yaml
"$sweep" submit --local b.yaml >/dev/null
for _ in $(seq 100); do # its runner writes the store until the task is done
	"$sweep" report b >/dev/null 2>&1 && break
	sleep 0.2
done
sqlite3 .sweep/sweep.db "WITH RECURSIVE k(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM k WHERE i < $n)
	INSERT INTO sweeps (name, source, spec, dir, script, logs, backend, status, error, created_at,
	  submitted_at, ntasks, nsettings, nseeds, max_concurrent, params, seeds)
	SELECT 'sweep-' || (i % ($n / 4 + 1)), source, spec, dir, script, logs, backend, status, error,
	  created_at, submitted_at, ntasks, nsettings, nseeds, max_concurrent, params, seeds
	FROM sweeps, k WHERE sweeps.id = 1"

median() { # median COMMAND...: the median wall time of 5 runs, in seconds
	local TIMEFORMAT=%R
	for _ in 1 2 3 4 5; do
		{ time "$@" >/dev/null 2>&1; } 2>&1
	done | sort -n | sed -n 3p
}
complete_status() {
	bash -c 'source "$1"; compopt() { :; }; COMP_WORDS=(sweep status ""); COMP_CWORD=2; PATH=$2:$PATH _sweep' \
		_ "$top/dist/completion/sweep.bash" "$(dirname "$sweep")"
}
echo "$n sweeps, $(sqlite3 .sweep/sweep.db 'SELECT count(DISTINCT name) FROM sweeps') names; $sweep"
echo "sqlite3 SELECT name:              $(median sqlite3 .sweep/sweep.db 'SELECT name FROM sweeps ORDER BY id DESC') s"
echo "sweep list --names:               $(median "$sweep" list --names) s"
echo "bash: complete 'sweep status ':   $(median complete_status) s"
