#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# e2e-controllers: rootcanal few-sets
# rc-few-sets (issue 20): RootCanal's LAIRD_BL654 preset has 4 advertising sets. A 6-beacon kiosk
# with --controller extended falls back as Docs/service.md's Kiosk section says: LE Read Number of Supported
# Advertising Sets (4) < 6, so the six rotate on one set (with the cycle warning: 6 x 200 ms); the
# receiver hears all six; 4 beacons get 4 sets.
. "$(dirname "$0")/rc.inc"
onair_rx
addr=$(bdaddr hci0)
SIX=(); for m in 1 2 3 4 5 6; do SIX+=(--beacon "$RC_UUID:1:$m"); done
kiosk_start six "${SIX[@]}" --controller extended
cat "$E2E_OUT/six.log"
_log_has "$E2E_OUT/six.log" "(extended commands, rotating every 200 ms on set 239, each beacon every 1200 ms" || fail "six beacons did not rotate on one set"
_log_has "$E2E_OUT/six.log" "rotation cycle 1200 ms (6 beacons x 200 ms) is longer than iOS's 1 s ranging period" || fail "no cycle warning"
_sleep 1
t0=$EPOCHREALTIME; _sleep 6; t1=$EPOCHREALTIME
stop_bg six TERM
[ "$BG_RC" = 0 ] || fail "exit $BG_RC after SIGTERM"
onair_log --since "$t0" --until "$t1" --addr "$addr" --dwell 200 | tee "$E2E_OUT/onair-six.txt"
for m in 1 2 3 4 5 6; do onair_rate "1.$m" "$E2E_OUT/onair-six.txt"; at_least "$ONAIR_RATE" 0.3 "beacon 1.$m of six"; done
expect_hci_command hci0 0x203b
rc_reset_hci0
"$BEACON_TX" start --device hci0 "${SIX[@]:0:8}" --controller extended --duration 2 > "$E2E_OUT/four.log" 2>&1 || fail "four beacons exited $?"
_log_has "$E2E_OUT/four.log" "sets 239, 238, 237, 236" || fail "four beacons did not get four sets: $(cat "$E2E_OUT/four.log")"
