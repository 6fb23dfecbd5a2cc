#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# sigterm-stops (issue 4b): SIGTERM to a foreground `beacon-tx start` (legacy and extended) makes
# the last advertising-enable command on hci0 a disable, and the exit code is 0.
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"
need_beacon_tx

for family in extended legacy; do
  step "start --controller $family, then SIGTERM"
  run_bg "adv-$family" "$BEACON_TX" start --device hci0 --controller "$family" --config "$REPO/Config/kiosk.json"
  wait_until 10 _has_line "$E2E_OUT/adv-$family.log" 'beacon-tx: press Ctrl-C' ||
    fail "beacon-tx start --controller $family did not start: $(tail -n 3 "$E2E_OUT/adv-$family.log")"
  expect_last_adv_enable hci0 enable
  stop_bg "adv-$family" TERM
  cat "$E2E_OUT/adv-$family.log"
  [ "$BG_RC" = 0 ] || fail "exit code $BG_RC after SIGTERM ($family), want 0"
  expect_last_adv_enable hci0 disable
  grep -q 'advertising stopped on hci0' "$E2E_OUT/adv-$family.log" || fail "no stop note ($family)"
done
# the extended run also removed its set
expect_hci_command hci0 0x203c ef
