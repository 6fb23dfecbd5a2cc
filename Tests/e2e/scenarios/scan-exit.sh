#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# scan-exit (issue 5d): `exit` follows --exit-timeout after the advertiser stops, and not while it
# is on air (checked against the scan's own JSON times). btvirt forwards advertising only when it is enabled, so hci0 re-enables its legacy
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
# Timings from the scan's own JSON times (the guest's wall clock, as $EPOCHREALTIME), not from when a
# slow grep under TCG happens to look.
wait_until 10 _has_line "$E2E_OUT/scan.log" '{"event":"exit"' || fail "no exit within 10 s of the last advertisement"
[ "$(grep -c '{"event":"enter"' "$E2E_OUT/scan.log")" = 1 ] || fail "not exactly one enter: the region was left while advertising"
[ "$(grep -c '{"event":"exit"' "$E2E_OUT/scan.log")" = 1 ] || fail "not exactly one exit"
exit_time=$(sed -n 's/^{"event":"exit","time":\([0-9.]*\).*/\1/p' "$E2E_OUT/scan.log")
last_seen=$(sed -n 's/^{"event":"range",.*"lastSeen":\([0-9.]*\).*/\1/p' "$E2E_OUT/scan.log" | tail -n 1)
[ -n "$exit_time" ] && [ -n "$last_seen" ] || fail "no exit time or no range line: $(tail -n 3 "$E2E_OUT/scan.log")"
echo "last advertisement enabled at $last, last range lastSeen $last_seen, exit at $exit_time (exit timeout 3 s)"
# Not while on air: the exit comes after the advertiser stopped.
awk "BEGIN{exit !($exit_time > $last)}" || fail "exit at $exit_time while the beacon was still advertising (until $last)"
# The timing it names: --exit-timeout after the last report. The last report is less than 1 s (the
# ranging throttle) after the last range line's lastSeen; 0.5 s slack for the wait's wake-up.
awk "BEGIN{d = $exit_time - $last_seen; exit !(d >= 2.99 && d <= 4.5)}" \
  || fail "exit $(awk "BEGIN{print $exit_time - $last_seen}") s after the last sighting, not 3-4.5 s"
awk "BEGIN{exit !($exit_time - $last <= 6)}" || fail "exit more than 6 s after advertising stopped"
stop_bg scan TERM
[ "$BG_RC" = 0 ] || fail "scan exited $BG_RC"
cat "$E2E_OUT/scan.log"
