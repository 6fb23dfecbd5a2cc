#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# scan-calibrate (issue 13): `scan --calibrate` on hci1 hears the beacon `start` puts on hci0, but
# btvirt reports every RSSI as 127 (not available): exit 69 with that explanation, no statistics,
# and scanning is off again on hci1.
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"
need_beacon_tx

step "start one beacon on hci0"
"$BEACON_TX" start --device hci0 --detach --config "$REPO/Config/kiosk.json" || fail "start exited $?"

step "scan --calibrate on hci1 for 3 s"
rc=0
"$BEACON_TX" scan --calibrate --device hci1 --region E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:2 --duration 3 \
  >"$E2E_OUT/calibrate.out" 2>"$E2E_OUT/calibrate.err" || rc=$?
[ "$rc" = 69 ] || fail "scan --calibrate exited $rc, expected 69: $(cat "$E2E_OUT/calibrate.err")"
[ ! -s "$E2E_OUT/calibrate.out" ] || fail "statistics printed without an RSSI: $(cat "$E2E_OUT/calibrate.out")"
grep -qE '^beacon-tx scan: hci1 heard E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:2 [0-9]+ time\(s\) but reported its RSSI as not available \(127\) every time: .*btvirt always report 127' \
  "$E2E_OUT/calibrate.err" || fail "no 'not available' explanation: $(cat "$E2E_OUT/calibrate.err")"

"$BEACON_TX" stop --device hci0 || fail "stop exited $?"
hci_log hci1 | grep -E ' 0x20(0c|42) ' | tail -n 1 | grep -qE ' 0x20(0c|42) 00' || fail "the last scan enable on hci1 is not a disable"
