#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# e2e-controllers: rootcanal quirky
# e2e-timeout: 420
# rc-quirky (issue 40): field quirks played by tools/quirkproxy.py in front of RootCanal DEFAULT.
# - Command Disallowed (0x0C) to a disable of advertising that is not on (a BCM4345:
#   ruuvitag-listener PR #27, eclipse-kura #1748): `stop` with nothing on air exits 0, twice.
# - every completion 500 ms late (a busy UART controller): a kiosk of three beacons goes on air (one set each) and is heard.
# - a Hardware Error event (raspberrypi/linux#2832), once and then three times in a row: the kernel
#   resets the controller, the session re-arms by itself, every beacon is heard again, the same process.
# - SIGTERM under the slow controller: exit 0, nothing of ours heard after.
. "$(dirname "$0")/rc.inc"
btmgmt_cmd 0 clr-adv > /dev/null
onair_rx
addr=$(bdaddr hci0)
step "redundant disable: stop with nothing on air"
for i in 1 2; do
  rc=0
  "$BEACON_TX" stop --device hci0 > "$E2E_OUT/stop$i.out" 2>&1 || rc=$?
  cat "$E2E_OUT/stop$i.out"
  [ "$rc" = 0 ] || fail "stop with nothing on air exited $rc: $(cat "$E2E_OUT/stop$i.out")"
done
step "slow completions: a kiosk of three"
t0=$EPOCHREALTIME
kiosk_start k --beacon "$RC_UUID:1:1" --beacon "$RC_UUID:1:2" --beacon "$RC_UUID:1:3"
awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "start to press-Ctrl-C: %.2f s (each completion 0.5 s late)\n", b - a }'
for m in 1 2 3; do expect_adv_data -s hci1 -a "$addr" -t 15 "$(ibeacon_data 1 $m)"; done
pid=$KIOSK_PID
_rearms() { local n=0 l; while IFS= read -r l; do [[ $l == *"re-armed"* ]] && n=$((n + 1)); done < "$E2E_OUT/k.log"; echo "$n"; }
_rearms_above() { [ "$(_rearms)" -gt "$1" ]; }
for n in 1 3; do
  step "Hardware Error x$n"
  before=$(_rearms)
  scan_clear hci1
  for _ in $(seq "$n"); do pkill -USR1 -f quirkproxy.py; _sleep 0.3; done
  # The kernel resets hci0 (close, then its whole setup at 0.5 s a command); an error during that
  # setup can leave it down, which the session waits out like any power-off. Each error is one whole
  # close and setup (~20 s at 0.5 s a command): three take about a minute.
  if ! wait_until 120 _rearms_above "$before"; then
    hciconfig hci0 | grep -q DOWN || fail "not re-armed, and hci0 is not down: $(tail -n 4 "$E2E_OUT/k.log")"
    _log_has "$E2E_OUT/k.log" "hci0 down; waiting to re-arm" || fail "hci0 down and the session does not say it waits"
    echo "hci0 left down by the kernel after $n Hardware Error(s); brought up by hand"
    hciconfig hci0 up || true
    wait_until 45 _rearms_above "$before" || fail "not re-armed after hci0 came up: $(tail -n 4 "$E2E_OUT/k.log")"
  fi
  for m in 1 2 3; do expect_adv_data -s hci1 -a "$addr" -t 30 "$(ibeacon_data 1 $m)"; done
  kiosk_expect_alive k
done
[ "$KIOSK_PID" = "$pid" ] || fail "a different process"
echo "re-arms: $(_rearms)"
step "SIGTERM"
stop_bg k TERM
[ "$BG_RC" = 0 ] || fail "exit $BG_RC after SIGTERM"
scan_clear hci1
expect_no_adv_data -s hci1 -a "$addr" "$(ibeacon_data 1 1)"
