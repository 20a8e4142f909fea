#!/bin/bash
# Finished records kept in the state store: a finished sweep read once is
# read again with no slurmdbd query, and with slurmdbd stopped status and
# report still answer from the store and say so; the kept records are the
# ones a fresh query returns, field by field. A sweep with a running task,
# or --refresh, still needs slurmdbd: a clear error within 10 s.
# Stops slurmdbd: run it only through itest-excl (RUN_SERIAL in ctest).
. "$(dirname "$0")/lib.sh"
cluster_up
CLUSTER=$SWEEP_SOURCE_DIR/tests/cluster
restore() { "$CLUSTER/daemon" start slurmdbd >/dev/null 2>&1 || true; }
trap 'restore; cleanup' EXIT

# queries CMD...: runs sweep with SWEEP_DEBUG_QUERIES=1, stdout to out.txt,
# stderr to err.txt; prints the number of accounting queries it sent.
queries() {
	SWEEP_DEBUG_QUERIES=1 "$SWEEP" "$@" >out.txt 2>err.txt || fail "sweep $* failed: $(cat err.txt)"
	sed -n 's/^sweep: accounting queries: \([0-9]*\) .*/\1/p' err.txt | tail -1
}

kept_fully() { [ "$(queries status --tasks "$FINISHED")" = 0 ] && grep -q "from the state store" err.txt; }

submit "$DATA/sweeps/tiny.yaml"
FINISHED=$SWEEP_ID
wait_sweep 2 120
# A first read asks once; the next ones once the last step statistics are in: none.
[ "$(queries status --tasks --refresh "$FINISHED")" = 1 ] || fail "a first read: $(cat err.txt)"
# Trivial tasks leave no MaxRSS: their records are kept once they have
# settled (ACCT_CACHE_STATS_SETTLE_S, 2 minutes after the end).
wait_until 180 "the finished sweep to be kept" kept_fully
grep -q 'COMPLETED 2' out.txt || fail "status from the store: $(cat out.txt)"
[ "$(queries report "$FINISHED")" = 0 ] || fail "report of a kept sweep asked slurmdbd: $(cat err.txt)"
[ "$(queries status --json "$FINISHED")" = 0 ] || fail "status --json of a kept sweep asked slurmdbd"

# Field by field: the kept records and a fresh query's, without steps and with
# them (last: a read without steps keeps the records without MaxRSS again).
for flags in "" "--tasks"; do
	rm -f kept.tsv fresh.tsv
	# shellcheck disable=SC2086
	SWEEP_DEBUG_RECORDS=$WORK/kept.tsv "$SWEEP" status $flags "$FINISHED" >/dev/null 2>err.txt
	# shellcheck disable=SC2086
	SWEEP_DEBUG_RECORDS=$WORK/fresh.tsv "$SWEEP" status $flags --refresh "$FINISHED" >/dev/null
	[ -s kept.tsv ] || fail "no records dumped"
	if [ -n "$flags" ]; then
		diff <(sort kept.tsv) <(sort fresh.tsv) >&2 || fail "kept records differ from a fresh query"
	else
		# Without steps a fresh query has no MaxRSS; kept ones may: compare all but it.
		diff <(cut -f1-12,14-17 kept.tsv | sort) <(cut -f1-12,14-17 fresh.tsv | sort) >&2 ||
			fail "kept records differ from a fresh query (without steps)"
	fi
done
log "kept records match a fresh query field by field"

# A sweep with a task that runs until cancelled.
cat >running.yaml <<'YAML'
name: kept-running
command: sleep 600
slurm:
  time: "15"
  mem: 50M
YAML
submit running.yaml
RUNNING=$SWEEP_ID
running() { "$SWEEP" status "$RUNNING" 2>/dev/null | grep -q 'RUNNING 1'; }
wait_until 120 "the task to run" running

# expect_fast_error WHAT COMMAND...: fails within 10 s, exit 1, naming slurmdbd
expect_fast_error() {
	local what=$1 start rc
	shift
	start=$SECONDS
	set +e
	"$@" >out.txt 2>err.txt
	rc=$?
	set -e
	cat err.txt >&2
	[ $rc -eq 1 ] || fail "$what: exit $rc, expected 1"
	((SECONDS - start <= 10)) || fail "$what: took $((SECONDS - start)) s"
	grep -q "slurmdbd" err.txt || fail "$what: the error does not name slurmdbd"
	log "$what: clear error in $((SECONDS - start)) s"
}

before=$(sqlite3 .sweep/sweep.db .dump | md5sum)
"$CLUSTER/daemon" stop slurmdbd
start=$SECONDS
"$SWEEP" status "$FINISHED" >out.txt 2>err.txt || fail "status of a finished sweep needs no slurmdbd: $(cat err.txt)"
grep -q 'COMPLETED 2' out.txt || fail "status from the store: $(cat out.txt)"
grep -q 'records from the state store (all tasks finished; --refresh to re-read)' err.txt ||
	fail "status does not say it answered from the store: $(cat err.txt)"
"$SWEEP" report "$FINISHED" >out.txt 2>err.txt || fail "report of a finished sweep needs no slurmdbd: $(cat err.txt)"
grep -q 'from the state store' err.txt || fail "report does not say it answered from the store"
grep -q 'value' out.txt || fail "report from the store: $(cat out.txt)"
"$SWEEP" rightsize "$FINISHED" >/dev/null 2>err.txt || [ $? -eq 3 ] || fail "rightsize from the store: $(cat err.txt)"
((SECONDS - start <= 10)) || fail "answers from the store took $((SECONDS - start)) s"
log "finished sweep answered from the store with slurmdbd stopped"

expect_fast_error "slurmdbd down, a task running (status)" "$SWEEP" status "$RUNNING"
expect_fast_error "slurmdbd down, a task running (report)" "$SWEEP" report "$RUNNING"
expect_fast_error "slurmdbd down, --refresh" "$SWEEP" status --refresh "$FINISHED"
[ "$(sqlite3 .sweep/sweep.db .dump | md5sum)" = "$before" ] || fail "the state store changed"
"$CLUSTER/daemon" start slurmdbd
log "ok"
