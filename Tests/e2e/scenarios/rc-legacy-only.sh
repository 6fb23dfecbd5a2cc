#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# e2e-controllers: rootcanal legacy-only
# rc-legacy-only (issue 20): a controller without extended advertising (RootCanal DEFAULT with
# le_extended_advertising: false, like a Raspberry Pi's): `devices --json` says so, `start` (auto)
# uses legacy commands and is heard, museum.json rotates on the one instance (each beacon heard,
# the shop at the shared interval), and `verify` passes on the live capture of the rotation.
. "$(dirname "$0")/rc.inc"
. "$(dirname "$0")/verify.inc"
onair_rx
addr=$(bdaddr hci0)
"$BEACON_TX" devices --json > "$E2E_OUT/devices.json" || fail "devices exited $?"
"${E2E_PY[@]}" -c '
import json, sys
d = json.load(open(sys.argv[1]))
h = [x for x in (d if isinstance(d, list) else d.get("devices", [])) if x.get("name") == "hci0"][0]
c = h.get("controller") or h
assert c.get("extendedAdvertising") is False, h
print("hci0: extendedAdvertising false")
' "$E2E_OUT/devices.json" || fail "devices --json does not say hci0 has no extended advertising: $(head -c 600 "$E2E_OUT/devices.json")"
"$BEACON_TX" start --device hci0 --uuid "$RC_UUID" --major 1 --minor 2 --duration 2 > "$E2E_OUT/auto.log" 2>&1 || fail "auto exited $?"
cat "$E2E_OUT/auto.log"
_log_has "$E2E_OUT/auto.log" "(legacy commands" || fail "auto did not use legacy commands"
expect_adv_data -s hci1 -a "$addr" "$(ibeacon_data 1 2)"

v_btmon_start
kiosk_start rot --config "$REPO/Config/museum.json"
_sleep 1
t0=$EPOCHREALTIME; _sleep 6; t1=$EPOCHREALTIME
stop_bg rot TERM
[ "$BG_RC" = 0 ] || fail "exit $BG_RC after SIGTERM"
v_btmon_stop
cat "$E2E_OUT/rot.log"
_log_has "$E2E_OUT/rot.log" "(legacy commands, rotating every 200 ms" || fail "museum.json did not rotate on legacy commands"
onair_log --since "$t0" --until "$t1" --addr "$addr" --dwell 200 | tee "$E2E_OUT/onair-rot.txt"
for m in 1 2 3; do onair_rate "1.$m" "$E2E_OUT/onair-rot.txt"; at_least "$ONAIR_RATE" 1 "beacon 1.$m rotated"; done
v_verify live --config "$REPO/Config/museum.json"
[ "$V_RC" = 0 ] || fail "verify of the rotation exited $V_RC: $(tail -n 1 "$E2E_OUT/live.err")"
v_has live "PASS: 3 beacon(s) configured as expected"
