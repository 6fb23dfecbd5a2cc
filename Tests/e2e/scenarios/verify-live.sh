#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# verify-live (issue 14): `btmon -w` captures a live `start --config` of two beacons on hci0 (heard on
# hci1) that SIGTERM stops; `verify CAPTURE --config` with the same config exits 0, shows both sets
# on air and stopped by beacon-tx's stop plan; `--json` parses and says the same.
. "$(dirname "$0")/verify.inc"
v_config "$E2E_OUT/kiosk.json" 1 2
scan_start hci1 --mode extended --reenable 0.5
v_btmon_start
kiosk_start kiosk --config "$E2E_OUT/kiosk.json"
addr=$(bdaddr hci0)
expect_adv_data -s hci1 -a "$addr" -t 10 "$(v_data 1)"
expect_adv_data -s hci1 -a "$addr" -t 10 "$(v_data 2)"
stop_bg kiosk
[ "$BG_RC" = 0 ] || fail "beacon-tx exited $BG_RC on SIGTERM"
v_btmon_stop

v_verify live --config "$E2E_OUT/kiosk.json"
[ "$V_RC" = 0 ] || fail "verify exited $V_RC: $(tail -n 1 "$E2E_OUT/live.out")"
v_has live "datalink: BlueZ monitor (2001)"
v_has live "controller: hci0 (index 0)"
v_has live "extended commands, set 239"
v_has live "extended commands, set 238"
v_has live "at the end: stopped by beacon-tx's stop plan"
v_has live "PASS: 2 beacon(s) configured as expected"

v_verify live-json --config "$E2E_OUT/kiosk.json" --json
[ "$V_RC" = 0 ] || fail "verify --json exited $V_RC"
"${E2E_PY[@]}" -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["passed"] is True and d["firstFailure"] is None, d
assert d["controller"] == "hci0" and d["datalink"] == 2001
assert [b["found"]["minor"] for b in d["beacons"]] == [1, 2], d["beacons"]
assert [b["advertisingHandle"] for b in d["beacons"]] == [239, 238]
for b in d["beacons"]:
    assert b["stoppedByStopPlan"] and b["failedCommands"] == [] and b["events"][0]["state"] == "on", b
print("json ok")
' "$E2E_OUT/live-json.out"
