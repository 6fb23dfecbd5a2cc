#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# e2e-controllers: rootcanal credit
# e2e-timeout: 300
# rc-credit-nop (issue 40): a controller that answers every command with Num_HCI_Command_Packets 0
# and gives the credit back only with a later event, here a NOP Command Complete (opcode 0x0000)
# 200 ms after each completion (Core Vol 4, Part E, §7.7.14), played by tools/quirkproxy.py in front
# of RootCanal DEFAULT from the proxy's SIGHUP on (the kernel's setup ran without it). beacon-tx
# waits for the credit before each command, never blames a command for it:
# - legacy rotation of two beacons every 500 ms keeps swapping under it (both heard in a window),
#   first: a controller that has used extended commands refuses legacy ones until a reset;
# - a kiosk of three extended sets comes on air, each beacon heard with its bytes;
# - SIGTERM exits 0 each time and nothing of ours is heard after.
. "$(dirname "$0")/rc.inc"
btmgmt_cmd 0 clr-adv > /dev/null
onair_rx
addr=$(bdaddr hci0)
RC_PROXY_LOG=$E2E_OUT/../quirkproxy.log
pkill -HUP -f quirkproxy.py
wait_until 5 _log_has "$RC_PROXY_LOG" "SIGHUP: credit-nop on" || fail "the proxy did not turn credit-nop on"
_nops() { local n=0 l; while IFS= read -r l; do [[ $l == *"with no credit, then a NOP"* ]] && n=$((n + 1)); done < "$RC_PROXY_LOG"; echo "$n"; }

step "legacy rotation every 500 ms"
n0=$(_nops)
kiosk_start r --beacon "$RC_UUID:2:1" --beacon "$RC_UUID:2:2" --controller legacy --rotation 500
_sleep 3
t1=$EPOCHREALTIME; _sleep 8; t2=$EPOCHREALTIME
onair_log --since "$t1" --until "$t2" | tee "$E2E_OUT/onair-rotation.txt"
for b in 2.1 2.2; do
  onair_rate "$b" "$E2E_OUT/onair-rotation.txt"
  echo "RATE beacon $b: $ONAIR_RATE reports/s"
  at_least "$ONAIR_RATE" 0.5 "beacon $b heard in the rotation under credit-nop"
done
n1=$(_nops)
echo "completions without a credit during the rotation window and before: $((n1 - n0))"
[ $((n1 - n0)) -ge 8 ] || fail "the rotation met $((n1 - n0)) completions without a credit"
_log_has "$E2E_OUT/r.log" "credit" && fail "beacon-tx blamed the missing credit: $(grep credit "$E2E_OUT/r.log" | head -n 2)"
kiosk_expect_alive r
stop_bg r TERM
[ "$BG_RC" = 0 ] || fail "exit $BG_RC after SIGTERM"
scan_clear hci1
expect_no_adv_data -s hci1 -a "$addr" "$(ibeacon_data 2 1)"
expect_no_adv_data -s hci1 -a "$addr" -t 1 "$(ibeacon_data 2 2)"
step "a kiosk of three sets, after a reset (HCIDEVRESET: the controller leaves legacy mode)"
n2=$(_nops)
t0=$EPOCHREALTIME
kiosk_start k --beacon "$RC_UUID:1:1" --beacon "$RC_UUID:1:2" --beacon "$RC_UUID:1:3" --controller extended --reset
awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "start to press-Ctrl-C: %.2f s (each credit back 0.2 s after its completion)\n", b - a }'
for m in 1 2 3; do expect_adv_data -s hci1 -a "$addr" -t 15 "$(ibeacon_data 1 $m)"; done
n3=$(_nops)
echo "completions without a credit during the start: $((n3 - n2))"
[ $((n3 - n2)) -ge 5 ] || fail "the start met $((n3 - n2)) completions without a credit; the quirk did not play"
kiosk_expect_alive k
stop_bg k TERM
[ "$BG_RC" = 0 ] || fail "exit $BG_RC after SIGTERM"

scan_clear hci1
expect_no_adv_data -s hci1 -a "$addr" "$(ibeacon_data 1 1)"
pkill -HUP -f quirkproxy.py
wait_until 5 _log_has "$RC_PROXY_LOG" "SIGHUP: credit-nop off" || fail "the proxy did not turn credit-nop off"
dmesg | grep -i 'hci0' | tail -n 5 | sed 's/^/KERNEL /' || true
