#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# scan-sees-start (issue 5b): `beacon-tx start` on hci0 (auto, then legacy) is seen by
# `beacon-tx scan` on hci1; scanning is off again after the scan's SIGTERM.
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"
need_beacon_tx

for family in auto legacy; do
  step "scan on hci1, start --controller $family on hci0"
  run_bg "scan-$family" "$BEACON_TX" scan --device hci1 --json --region E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:2
  wait_until 10 _has_line "$E2E_OUT/scan-$family.log" 'beacon-tx: scanning on hci1' || fail "scan did not start"
  "$BEACON_TX" start --device hci0 --controller "$family" --detach --config "$REPO/Config/kiosk.json" || fail "start exited $?"
  wait_until 10 _has_line "$E2E_OUT/scan-$family.log" '{"event":"range"' || fail "scan ($family) saw no beacon: $(tail -n 3 "$E2E_OUT/scan-$family.log")"
  grep -q '{"event":"enter".*"region":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:2"' "$E2E_OUT/scan-$family.log" || fail "no enter event ($family)"
  stop_bg "scan-$family" TERM
  [ "$BG_RC" = 0 ] || fail "scan exited $BG_RC"
  "$BEACON_TX" stop --device hci0 || fail "stop exited $?"
done
hci_log hci1 | grep -E ' 0x20(0c|42) ' | tail -n 1 | grep -qE ' 0x20(0c|42) 00' || fail "the last scan enable on hci1 is not a disable"
