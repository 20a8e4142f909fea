#!/bin/bash
# A stage someone else prepared, with the local runner (no cluster) and two
# real users. The stage's name is predictable (uid, sweep id, a hash of the
# sweep folder) in a folder all may write, so the attacker makes the
# victim's next stage first:
#  - a folder, mode 777, with a lock and `leases` and `data` links into the
#    victim's files: the victim's task refuses it, and sweep cancel refuses
#    to remove it, saying whose it is; every file of the victim's survives.
#  - a link in its place, to a folder of the victim's: the task refuses it
#    before it makes anything (no `leases` appears in the victim's folder),
#    and cancel removes nothing through it.
# And the victim's own stage, with nothing planted, is still used and
# removed by cancel.
source "$(dirname "$0")/lib.sh"
unset TMPDIR # the base is slurm.tmp_base (and /tmp, where there is none)

V=sweeptest_victim
A=sweeptest_attacker
for u in "$V" "$A"; do
	id "$u" >/dev/null 2>&1 || useradd -M -s /bin/bash "$u" 2>/dev/null ||
		id "$u" >/dev/null 2>&1 || fail "cannot create the user $u"
done
VUID=$(id -u "$V")

chmod 755 "$WORK"
BASE=$WORK/tmp # as /tmp: root's, sticky, writable by all
mkdir "$BASE"
chmod 1777 "$BASE"
for u in "$V" "$A"; do
	mkdir "$WORK/$u"
	chown "$u:" "$WORK/$u"
	chmod 700 "$WORK/$u"
done
VH=$WORK/$V
# The victim's files: the links point here.
runuser -u "$V" -- bash -c "set -e; umask 077; mkdir -p '$VH/precious/sub' '$VH/target' '$VH/src';
	echo secret >'$VH/precious/1.0.1'; echo secret >'$VH/precious/sub/f'; echo secret >'$VH/precious/lock';
	echo secret >'$VH/target/keep'; echo data >'$VH/src/data.txt'"
cat >"$VH/staged.yaml" <<EOF
name: staged
command: |
  ls "{stage}/src" >"\$SWEEP_TASK_DIR/seen"
  sleep 120
seeds: 1
stage: ['src']
slurm: {time: "5", tmp_base: '$BASE'}
EOF
chown "$V:" "$VH/staged.yaml"

# as USER sweep ARGS...: sweep as that user, in a state folder of its own.
as() {
	local u=$1
	shift
	runuser -u "$u" -- env -C "$WORK/$u" HOME="$WORK/$u" SWEEP_STATE_DIR="$WORK/$u/.sweep" \
		ASAN_OPTIONS="${ASAN_OPTIONS:-}" LSAN_OPTIONS="${LSAN_OPTIONS:-}" \
		UBSAN_OPTIONS="${UBSAN_OPTIONS:-}" "$SWEEP" "$@"
}
cleanup_users() {
	local id
	for id in $(as "$V" list 2>/dev/null | awk '$1 ~ /^[0-9]+$/ { print $1 }'); do
		as "$V" cancel "$id" >/dev/null 2>&1 || true
	done
}
trap cleanup_users EXIT

# The stage folder of the victim's sweep ID (its name as script_stage_name makes it).
stage_of() {
	/usr/bin/python3 - "$VUID" "$1" "$VH/.sweep/sweeps/$1" <<'PY'
import sys
h = 2166136261
for b in sys.argv[3].encode():
    h = ((h ^ b) * 16777619) & 0xFFFFFFFF
print(f"sweep-stage-{sys.argv[1]}-{sys.argv[2]}-{h:08x}")
PY
}
submit_victim() {
	local out
	out=$(as "$V" submit --local staged.yaml) || fail "the victim's submit failed: $out"
	printf '%s\n' "$out" >&2
	SWEEP_ID=$(printf '%s\n' "$out" | sed -n 's/^sweep \([0-9]*\) .*/\1/p' | head -1)
	[ -n "$SWEEP_ID" ] || fail "no sweep id in: $out"
}
ended() { [ "$(as "$V" status "$1" --json | /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["done"])')" = 1 ]; }
precious_intact() {
	local f
	for f in precious/1.0.1 precious/sub/f precious/lock target/keep; do
		[ "$(cat "$VH/$f" 2>/dev/null)" = secret ] || fail "the victim's file $f is gone or changed"
	done
}

# --- A folder made first, mode 777, with links into the victim's files ---------------
planted=$BASE/$(stage_of 1)
runuser -u "$A" -- bash -c "set -e; mkdir -m 777 '$planted'; : >'$planted/lock'; chmod 666 '$planted/lock';
	ln -s '$VH/precious' '$planted/leases'; ln -s '$VH/precious' '$planted/data'"
submit_victim
[ "$SWEEP_ID" = 1 ] || fail "expected sweep 1, got $SWEEP_ID"
wait_until 60 "the victim's task to end" ended 1
grep -q "refusing the folder '$planted': it belongs to someone else" "$VH"/logs/staged_*_0.err ||
	fail "the task did not refuse the planted stage: $(cat "$VH"/logs/staged_*_0.err)"
[ ! -e "$VH/.sweep/sweeps/1/tasks/0/0/seen" ] || fail "the task ran its command on the planted stage"
set +e
out=$(as "$V" cancel 1 2>&1)
code=$?
set -e
printf '%s\n' "$out" >&2
[ "$code" = 1 ] || fail "cancel exited $code, not 1, with a stage it may not remove"
grep -q "error: refusing the stage '$planted': it belongs to user '$A' (uid $(id -u "$A")), not to you" <<<"$out" ||
	fail "cancel did not say whose the stage is: $out"
precious_intact
[ -L "$planted/leases" ] && [ -e "$planted/lock" ] || fail "cancel removed the attacker's files"
rm -rf "$planted"
log "a planted folder was refused by the task and by cancel; the victim's files survived"

# --- A link in its place, to a folder of the victim's -----------------------------
planted=$BASE/$(stage_of 2)
runuser -u "$A" -- ln -s "$VH/target" "$planted"
submit_victim
[ "$SWEEP_ID" = 2 ] || fail "expected sweep 2, got $SWEEP_ID"
wait_until 60 "the victim's task to end" ended 2
grep -q "refusing the stage '$planted': it is a symbolic link" "$VH"/logs/staged_*_0.err ||
	fail "the task did not refuse the link: $(cat "$VH"/logs/staged_*_0.err)"
[ -z "$(ls -A "$VH/target" | grep -vx keep)" ] ||
	fail "the task made files through the link: $(ls -A "$VH/target")"
set +e
out=$(as "$V" cancel 2 2>&1)
code=$?
set -e
printf '%s\n' "$out" >&2
[ "$code" = 1 ] || fail "cancel exited $code, not 1, with a link for a stage"
grep -q "error: refusing the stage '$planted': it is a symbolic link (owned by user '$A'" <<<"$out" ||
	fail "cancel did not say the stage is a link: $out"
precious_intact
[ -L "$planted" ] || fail "cancel removed the planted link"
rm -f "$planted"
log "a planted link was refused by the task and by cancel; nothing was made through it"

# --- The victim's own stage is used and removed ------------------------------------
submit_victim
seen() { [ -e "$VH/.sweep/sweeps/$SWEEP_ID/tasks/0/0/seen" ]; }
wait_until 60 "the victim's task to stage" seen
[ "$(stat -c '%U %a' "$BASE/$(stage_of "$SWEEP_ID")")" = "$V 700" ] ||
	fail "the stage is not the victim's alone: $(stat -c '%U %a' "$BASE/$(stage_of "$SWEEP_ID")")"
as "$V" cancel "$SWEEP_ID" >&2 || fail "cancel of the victim's own sweep failed"
base_empty() { [ -z "$(ls -A "$BASE")" ]; }
wait_until 60 "the victim's own stage to go" base_empty
precious_intact
log "ok"
