#!/bin/bash
# scan-exit (issue 5d): `exit` follows --exit-timeout after the advertiser stops, and not while it
# is on air. btvirt forwards advertising only when it is enabled, so hci0 re-enables its legacy
# advertising every second for 6 s (longer than the 3 s exit timeout): a new report each time keeps
# the region entered; after the last one, exit must come within the timeout (+ slack).
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"
need_beacon_tx

run_bg scan "$BEACON_TX" scan --device hci1 --json --exit-timeout 3 --region E2C56DB5-DFFB-48D2-B060-D0F5A71096E0
wait_until 10 _has_line "$E2E_OUT/scan.log" 'beacon-tx: scanning on hci1' || fail "scan did not start"
expect_status 0x00 hci0 0x08 0x0006 a0 00 a0 00 03 00 00 00 00 00 00 00 00 07 00
expect_status 0x00 hci0 0x08 0x0008 1e 02 01 06 1a ff 4c 00 02 15 e2 c5 6d b5 df fb 48 d2 b0 60 d0 f5 a7 10 96 e0 00 01 00 02 c5 00
start=$EPOCHREALTIME
while awk "BEGIN{exit !($EPOCHREALTIME - $start < 6)}"; do
  expect_status 0x00 hci0 0x08 0x000a 01 > /dev/null
  _sleep 0.5
  expect_status 0x00 hci0 0x08 0x000a 00 > /dev/null
  _sleep 0.3
done
last=$EPOCHREALTIME
grep -q '{"event":"enter"' "$E2E_OUT/scan.log" || fail "no enter while advertising: $(tail -n 3 "$E2E_OUT/scan.log")"
if grep -q '{"event":"exit"' "$E2E_OUT/scan.log"; then fail "exit while the beacon was still advertising"; fi
wait_until 10 _has_line "$E2E_OUT/scan.log" '{"event":"exit"' || fail "no exit within 10 s of the last advertisement"
took=$(awk "BEGIN{print $EPOCHREALTIME - $last}")
echo "exit ${took}s after the last advertisement (exit timeout 3 s)"
[ "$(grep -c '{"event":"enter"' "$E2E_OUT/scan.log")" = 1 ] || fail "more than one enter: the region was left while advertising"
stop_bg scan TERM
[ "$BG_RC" = 0 ] || fail "scan exited $BG_RC"
cat "$E2E_OUT/scan.log"
