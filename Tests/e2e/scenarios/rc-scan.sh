#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# e2e-controllers: rootcanal default
# rc-scan (issue 20): `beacon-tx scan` on hci1 (a RootCanal controller) ranges the beacon that
# `beacon-tx start` puts on air on hci0: an enter event, then range updates about once a second
# (the ranger throttles), and scanning is off again after SIGTERM.
. "$(dirname "$0")/rc.inc"
run_bg scan "$BEACON_TX" scan --device hci1 --json --region "$RC_UUID:1:2"
wait_until 15 _has_line "$E2E_OUT/scan.log" 'beacon-tx: scanning on hci1' || fail "scan did not start: $(tail -n 3 "$E2E_OUT/scan.log")"
"$BEACON_TX" start --device hci0 --uuid "$RC_UUID" --major 1 --minor 2 --duration 5 > "$E2E_OUT/start.log" 2>&1 || fail "start exited $?"
stop_bg scan TERM
[ "$BG_RC" = 0 ] || fail "scan exited $BG_RC"
grep -q '{"event":"enter".*"region":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:2"' "$E2E_OUT/scan.log" || fail "no enter event: $(tail -n 3 "$E2E_OUT/scan.log")"
n=$(grep -c '{"event":"range"' "$E2E_OUT/scan.log" || true)
echo "range updates in ~5 s: $n"
[ "$n" -ge 3 ] || fail "only $n range updates in 5 s on air"
hci_log hci1 | grep -E ' 0x20(0c|42) ' | tail -n 1 | grep -qE ' 0x20(0c|42) 00' || fail "the last scan enable on hci1 is not a disable"
