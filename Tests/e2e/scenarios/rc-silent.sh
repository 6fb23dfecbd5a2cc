#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# e2e-controllers: rootcanal flaky
# e2e-timeout: 240
# rc-silent (issue 40): a controller that stops answering for 5 s (a UART controller's "command tx
# timeout": room-assistant#1158, raspberrypi/linux#4601), played by tools/quirkproxy.py (SIGUSR2:
# every command dropped for 5 s) in front of RootCanal DEFAULT. Config/museum.json with --controller
# legacy rotates three beacons every 200 ms, so the silence meets a swap: it times out, the session
# retries every second, never exits, and once the controller answers again the same process re-arms
# and every beacon is heard again in turn (each at least once a second over 5 s).
. "$(dirname "$0")/rc.inc"
rc_museum_rotated rot
addr=$ADDR
_rearms() { local n=0 l; while IFS= read -r l; do [[ $l == *"re-armed"* ]] && n=$((n + 1)); done < "$E2E_OUT/rot.log"; echo "$n"; }
_rearms_above() { [ "$(_rearms)" -gt "$1" ]; }
for round in 1; do   # one round: CI time (two rounds passed alike)
  step "silent for 5 s"
  before=$(_rearms)
  ts=$EPOCHREALTIME
  pkill -USR2 -f quirkproxy.py
  _sleep 5
  # A swap dropped at the start of the silence times out after 2 s; the retries each second meet
  # the silence until it ends: the first one after it re-arms.
  wait_until 15 _rearms_above "$before" || fail "not re-armed after the silence: $(tail -n 5 "$E2E_OUT/rot.log")"
  tr=$EPOCHREALTIME
  awk -v a="$ts" -v b="$tr" 'BEGIN { printf "silence began to re-armed: %.1f s (the silence: 5 s)\n", b - a }'
  kiosk_expect_alive rot
  _sleep 1
  t0=$EPOCHREALTIME; _sleep 5; t1=$EPOCHREALTIME
  onair_log --since "$t0" --until "$t1" --addr "$addr" --dwell 200 | tee "$E2E_OUT/onair-$round.txt"
  for m in 1 2 3; do onair_rate "1.$m" "$E2E_OUT/onair-$round.txt"; at_least "$ONAIR_RATE" 1 "museum beacon 1.$m after silence $round"; done
done
grep -E 'timed out|timeout|re-arm' "$E2E_OUT/rot.log" | head -n 8
_log_has "$E2E_OUT/rot.log" "rotation step failed" || fail "no swap failed during the silence: did the silence meet a command?"
grep -c 'silent: command' "$E2E_OUT/../quirkproxy.log" | sed 's/^/commands dropped in the silences: /'
dmesg | grep -c 'tx timeout' | sed 's/^/kernel "tx timeout" lines: /' || true
stop_bg rot TERM
[ "$BG_RC" = 0 ] || fail "exit $BG_RC after SIGTERM"
scan_clear hci1
expect_no_adv_data -s hci1 -a "$addr" "$(ibeacon_data 1 1)"
