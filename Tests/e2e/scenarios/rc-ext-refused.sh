#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# e2e-controllers: rootcanal ext-refused
# rc-ext-refused (issue 40): a controller that lists extended advertising in its LE features and
# Supported_Commands but answers Unknown HCI Command (0x01) to the advertising set commands, as a
# Raspberry Pi 4's does (citruz/beacontools#63; an RTL8761B: bluez/bluetooth-next PR #133). Quirk
# played by tools/quirkproxy.py in front of RootCanal DEFAULT. `start` (auto) tries extended, falls
# back to legacy once and says so, is heard; after another program's HCI Reset it re-arms with legacy
# commands at once (no second extended try, no second note); SIGTERM ends it with exit 0. Before the
# fix, start exited 69 with "LE Set Extended Advertising Enable (0x2039) failed: Unknown HCI Command (0x01)".
. "$(dirname "$0")/rc.inc"
btmgmt_cmd 0 clr-adv > /dev/null
onair_rx
addr=$(bdaddr hci0)
"$BEACON_TX" devices --json > "$E2E_OUT/devices.json" || fail "devices exited $?"
"${E2E_PY[@]}" -c '
import json, sys
h = [x for x in json.load(open(sys.argv[1])) if x.get("name") == "hci0"][0]
assert h.get("extendedAdvertising") is True, h
print("hci0 claims extended advertising:", h.get("extendedAdvertising"))
' "$E2E_OUT/devices.json" || fail "hci0 does not claim extended advertising: $(head -c 600 "$E2E_OUT/devices.json")"
kiosk_start k --uuid "$RC_UUID" --major 1 --minor 2
expect_adv_data -s hci1 -a "$addr" -t 10 "$(ibeacon_data 1 2)"
cat "$E2E_OUT/k.log"
_log_has "$E2E_OUT/k.log" "Unknown HCI Command (0x01); the controller lists extended advertising but does not implement it: using legacy advertising commands for the rest of this run" \
  || fail "no note of the fallback: $(tr '\n' ' ' < "$E2E_OUT/k.log")"
_log_has "$E2E_OUT/k.log" "(legacy commands" || fail "not on air with legacy commands"
step "another program's HCI Reset: re-armed with legacy commands"
scan_clear hci1 2> /dev/null || true
hcitool -i hci0 cmd 0x03 0x0003 > /dev/null 2>&1 || true
wait_until 10 _log_has "$E2E_OUT/k.log" "re-armed" || fail "not re-armed after the reset: $(tail -n 3 "$E2E_OUT/k.log")"
expect_adv_data -s hci1 -a "$addr" -t 10 "$(ibeacon_data 1 2)"
n=$(grep -c "does not implement it" "$E2E_OUT/k.log" || true)
[ "$n" = 1 ] || fail "the fallback was noted $n times (a re-arm tried extended again)"
stop_bg k TERM
[ "$BG_RC" = 0 ] || fail "exit $BG_RC after SIGTERM"
