#!/bin/bash
# scan-exit (issue 5d): after the advertiser stops, `exit` follows the --exit-timeout.
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"
need_beacon_tx

run_bg scan "$BEACON_TX" scan --device hci1 --json --exit-timeout 3 --region E2C56DB5-DFFB-48D2-B060-D0F5A71096E0
wait_until 10 _has_line "$E2E_OUT/scan.log" 'beacon-tx: scanning on hci1' || fail "scan did not start"
"$BEACON_TX" start --device hci0 --detach --config "$REPO/Config/kiosk.json" || fail "start exited $?"
wait_until 10 _has_line "$E2E_OUT/scan.log" '{"event":"enter"' || fail "no enter: $(tail -n 3 "$E2E_OUT/scan.log")"
"$BEACON_TX" stop --device hci0 || fail "stop exited $?"
stopped=$EPOCHREALTIME
wait_until 15 _has_line "$E2E_OUT/scan.log" '{"event":"exit"' || fail "no exit within 15 s: $(tail -n 3 "$E2E_OUT/scan.log")"
took=$(awk "BEGIN{print $EPOCHREALTIME - $stopped}")
echo "exit after ${took}s (exit timeout 3 s)"
awk "BEGIN{exit !($took >= 1.5)}" || fail "exit came too early (${took}s)"
stop_bg scan TERM
[ "$BG_RC" = 0 ] || fail "scan exited $BG_RC"
cat "$E2E_OUT/scan.log"
