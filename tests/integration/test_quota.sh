#!/bin/bash
# The checkpoint space pre-flight at submit, with the real statvfs of a
# small tmpfs (20 MiB) mounted here (this kernel has no quota support, so
# the quota sources are unit-tested with recorded answers: test_diskquota):
#  - checkpoint.dir on the tmpfs (with placeholders, a folder that does not
#    exist yet): 3 tasks at once x 4M x 2 kept fits, --dry-run shows the
#    check and says why the quota is unknown; the sweep really runs and its
#    tasks write their checkpoints there;
#  - 3 x 4M x 3 kept x 2 seeds (6 at once) does not fit: --dry-run and
#    submit refuse with the figures, and nothing is submitted;
#  - slurm.max_concurrent bounds the tasks at once (2 x 4M x 2 fits again);
#  - checkpoint.dir under {stage} is not checked at submit (node-local).
. "$(dirname "$0")/lib.sh"
cluster_up

MNT="$WORK/small disk"
mkdir -p "$MNT"
mount -t tmpfs -o size=20m sweep-test-quota "$MNT" || fail "cannot mount a tmpfs (root needed)"
trap 'cleanup; umount "$MNT" 2>/dev/null || umount -l "$MNT"' EXIT

cat >ckpt.py <<'PY'
import os, sys
d = os.environ["SWEEP_CHECKPOINT_DIR"]
os.makedirs(d, exist_ok=True)
for i in range(2):
    with open(os.path.join(d, f"ckpt{i}.pt"), "wb") as f:
        f.write(b"\0" * 1024 * 1024)
print("loss:", 0.5)
PY

write_sweep() { # NAME SEEDS KEEP [SLURM-EXTRA]
	cat >"$1.yaml" <<YAML
name: $1
command: python3 ckpt.py {lr}
seeds: $2
grid: {lr: [0.1, 0.01, 0.001]}
checkpoint: {size: 4M, keep: $3, dir: '$MNT/runs/lr{lr}/{seed}'}
slurm: {time: "2", signal: USR1@10, mem: 50M${4:-}}
YAML
}

# fits: 3 settings x 1 seed = 3 at once x 4M x 1 kept = 12M in 20M
write_sweep fits 1 1
out=$("$SWEEP" submit --dry-run fits.yaml) || fail "dry run of a sweep that fits failed"
grep -qF "# checkpoint space: up to 12M (3 tasks at once x 4M x 1 kept) in '$MNT' (tmpfs 'sweep-test-quota' on '$MNT')" <<<"$out" ||
	fail "dry run does not show the check: $out"
grep -qE '^#   free space: (19|20)M$' <<<"$out" || fail "no free space figure: $out"
grep -qF "#   quota unknown: sweep reads the quotas of ext4, XFS and Lustre, and '$MNT' is tmpfs" <<<"$out" ||
	fail "the unknown quota is not said: $out"
grep -qE '^#   fits: (19|20)M left by free space$' <<<"$out" || fail "no verdict: $out"
submit fits.yaml
wait_sweep 3 180
completed_once 3
for lr in 0.1 0.01 0.001; do
	compgen -G "$MNT/runs/lr$lr/*/ckpt1.pt" >/dev/null || fail "no checkpoint of lr $lr on the tmpfs"
done
rm -rf "${MNT:?}/runs"

# refused: 2 seeds x 3 settings = 6 at once x 4M x 3 kept = 72M in 20M
write_sweep big 2 3
before=$(sqlite3 "$SWEEP_STATE_DIR/sweep.db" 'select count(*) from sweeps')
for mode in --dry-run ""; do
	if out=$("$SWEEP" submit $mode big.yaml 2>&1); then
		fail "submit $mode of 72M of checkpoints into 20M passed: $out"
	fi
	grep -qE "error: checkpoints need up to 72M \(6 tasks at once x 4M x 3 kept\) in '$MNT', which has (19|20)M free; lower 'checkpoint.keep' or 'slurm.max_concurrent', or free space$" <<<"$out" ||
		fail "submit $mode did not refuse with the figures: $out"
done
grep -qE '^#   does not fit: (19|20)M left by free space$' < <("$SWEEP" submit --dry-run big.yaml 2>/dev/null) ||
	fail "the dry run does not show the refused check"
after=$(sqlite3 "$SWEEP_STATE_DIR/sweep.db" 'select count(*) from sweeps')
[ "$before" = "$after" ] || fail "a refused submit recorded a sweep ($before -> $after)"

# the throttle: 2 at once x 4M x 2 kept = 16M fits
write_sweep throttled 2 2 ", max_concurrent: 2"
out=$("$SWEEP" submit --dry-run throttled.yaml) || fail "the throttled sweep was refused"
grep -qF "# checkpoint space: up to 16M (2 tasks at once x 4M x 2 kept)" <<<"$out" || fail "throttle not counted: $out"

# node-local checkpoints: not checked at submit
mkdir -p data
sed -i "s|dir: '$MNT/runs|dir: '{stage}/runs|" big.yaml
echo "stage: [data]" >>big.yaml
out=$("$SWEEP" submit --dry-run big.yaml) || fail "checkpoints under {stage} were refused at submit"
grep -qF "# checkpoint space: not checked: 'checkpoint.dir' '{stage}/runs/lr{lr}/{seed}' is on each node's local disk ({stage})" <<<"$out" ||
	fail "the unchecked {stage} is not said: $out"
log "ok"
