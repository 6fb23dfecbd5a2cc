#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# device-by-address (issue 40, item 5): the config names its controller by BD_ADDR, not hciN. Here
# it names hci1's address (the receiver scans on hci0): start (without --device) advertises on hci1
# and is heard from hci1's address; `status --device ADDRESS` and `doctor --device ADDRESS` find it;
# `stop --device ADDRESS` stops it (exit 0), and nothing is heard after.
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"
GOLDEN=0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5
need_beacon_tx
_not_running() { ! bg_running "$1"; }

a1=$(bdaddr hci1)
lower=$(tr 'A-F' 'a-f' <<< "$a1")
cat > "$E2E_OUT/by-address.json" <<JSON
{"device": "$lower", "beacons": [{"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": 2}]}
JSON
scan_start hci0
run_bg k "$BEACON_TX" start --config "$E2E_OUT/by-address.json"
wait_until 15 _has_line "$E2E_OUT/k.log" 'beacon-tx: press Ctrl-C' || fail "start did not start: $(tail -n 3 "$E2E_OUT/k.log")"
cat "$E2E_OUT/k.log"
_log_has "$E2E_OUT/k.log" "on hci1 (" || fail "not on hci1: $(tr '\n' ' ' < "$E2E_OUT/k.log")"
expect_adv_data -s hci0 -a "$a1" "$GOLDEN"

step "status and doctor by address"
"$BEACON_TX" status --device "$lower" | tee "$E2E_OUT/status.txt"
grep -q "^hci1: on air since .*(controller $a1): " "$E2E_OUT/status.txt" || fail "status --device $lower: $(cat "$E2E_OUT/status.txt")"
"$BEACON_TX" doctor --device "$a1" > "$E2E_OUT/doctor.txt" || true
grep -q "adapter  *hci1 " "$E2E_OUT/doctor.txt" || fail "doctor --device $a1 did not look at hci1: $(head -n 8 "$E2E_OUT/doctor.txt")"
grep -q "adapter  *hci0 " "$E2E_OUT/doctor.txt" && fail "doctor --device $a1 looked at hci0 too"

step "stop by address"
rc=0
"$BEACON_TX" stop --device "$a1" > "$E2E_OUT/stop.out" 2>&1 || rc=$?
cat "$E2E_OUT/stop.out"
[ "$rc" = 0 ] || fail "stop --device $a1 exited $rc"
wait_until 10 _not_running k || fail "the session still runs after stop"
scan_clear hci0
expect_no_adv_data -s hci0 -a "$a1" "$GOLDEN"
