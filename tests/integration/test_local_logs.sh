#!/bin/bash
# sweep logs with what a task wrote, on a machine without a scheduler (no
# Slurm needed):
#  - a log replaced by a link to /dev/zero, or by a FIFO, is refused at once
#    (the link once made logs run forever);
#  - a log with OSC 52, ESC [2J and OSC 8 shows them as cat -v does on a
#    terminal, as they are with --raw, and byte for byte when piped.
. "$(dirname "$0")/lib.sh"

trap cancel_sweeps EXIT
cat >escapes.yaml <<'EOF'
name: escapes
command: |
  printf 'clip \033]52;c;cm0gLXJmIH4=\a clear \033[2J link \033]8;;http://x\033\\here\033]8;;\033\\ del \177 tab\tend\n'
seeds: 3
slurm: {time: "5"}
EOF
submit_local escapes.yaml
done3() { "$SWEEP" status "$SWEEP_ID" | grep -q '^3/3 done'; }
wait_until 60 "the sweep to end" done3
out0=$(ls logs/escapes_*_0.out)
[ "$(wc -l <"$out0")" -ge 2 ] || fail "task 0 wrote no log: $(cat "$out0")"

# --- Piped: byte for byte -------------------------------------------------------
"$SWEEP" logs "$SWEEP_ID" 0 --out >piped.out || fail "logs failed"
tail -n +2 piped.out | cmp - "$out0" || fail "piped logs are not the log's bytes"

# --- A terminal: control characters made visible, unless --raw ----------------------
# script(1) gives sweep a terminal; the terminal writes \r\n for \n.
on_tty() { script -qec "$(printf '%q ' "$@")" /dev/null | tr -d '\r'; }
on_tty "$SWEEP" logs "$SWEEP_ID" 0 --out >tty.out
grep -q -F 'clip ^[]52;c;cm0gLXJmIH4=^G clear ^[[2J link ^[]8;;http://x^[\here^[]8;;^[\ del ^? tab'$'\t''end' tty.out ||
	fail "the terminal did not get cat -v's view: $(cat -v tty.out)"
! grep -q $'\033' tty.out || fail "an escape reached the terminal: $(cat -v tty.out)"
on_tty "$SWEEP" logs --raw "$SWEEP_ID" 0 --out >raw.out
grep -q -F $'clip \033]52;c;cm0gLXJmIH4=\a clear \033[2J' raw.out || fail "--raw changed the bytes: $(cat -v raw.out)"

# --- Links and FIFOs are refused ---------------------------------------------------
out1=$(ls logs/escapes_*_1.out)
out2=$(ls logs/escapes_*_2.out)
ln -sf /dev/zero "$out1"
rm -f "$out2"
mkfifo "$out2"
for i in 1 2; do
	set +e
	timeout 30 "$SWEEP" logs "$SWEEP_ID" "$i" --out >/dev/null 2>"refused$i.err"
	code=$?
	set -e
	[ "$code" = 1 ] || fail "logs of task $i exited $code, not 1: $(cat "refused$i.err")"
done
grep -q -F "error: refusing the log '$PWD/$out1': it is a symbolic link" refused1.err ||
	fail "the link was not refused: $(cat refused1.err)"
grep -q -F "error: refusing the log '$PWD/$out2': it is not a regular file" refused2.err ||
	fail "the FIFO was not refused: $(cat refused2.err)"
set +e
timeout 30 "$SWEEP" logs -f "$SWEEP_ID" 1 --out >/dev/null 2>refused-f.err
code=$?
set -e
[ "$code" = 1 ] || fail "logs -f of the link exited $code, not 1"
log "ok"
