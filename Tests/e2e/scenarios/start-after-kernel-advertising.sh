#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# start-after-kernel-advertising (issue 4d): after `btmgmt add-adv` made the kernel advertise (a raw
# legacy 0x2006 now gets Command Disallowed), `beacon-tx start --controller legacy` and
# `--controller auto` each put the iBeacon on air (hci1 hears the golden data), and auto uses
# extended commands. It does not prove a family switch: btvirt does not refuse beacon-tx's forced
# legacy start (its legacy disable turns the kernel's set off first), so the switch itself is proven
# against the scripted controller (ConversationTests, LiveTests.autoSwitchesOnceWhenTheControllerIsInTheOtherMode; a forced family does not switch: LiveTests.forcedLegacyMeetingCommandDisallowedIsAnErrorNotASwitch).
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"
GOLDEN=0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5
need_beacon_tx

step "kernel advertising on hci0 through mgmt"
for c in "le on" "power on" "add-adv -d 0201060303aafe 1"; do
  # shellcheck disable=SC2086
  out=$(btmgmt_cmd 0 $c); echo "btmgmt $c: $out"
done
expect_status 0x0c hci0 0x08 0x0006 a0 00 a0 00 03 00 00 00 00 00 00 00 00 07 00

addr=$(bdaddr hci0)
for family in legacy auto; do
  step "start --controller $family --detach"
  scan_start hci1
  "$BEACON_TX" start --device hci0 --controller "$family" --detach --config "$REPO/Config/kiosk.json" \
    > "$E2E_OUT/start-$family.log" 2>&1 || fail "start --controller $family exited $?: $(tail -n 2 "$E2E_OUT/start-$family.log")"
  cat "$E2E_OUT/start-$family.log"
  expect_adv_data -s hci1 -a "$addr" "$GOLDEN"
  scan_stop hci1
  "$BEACON_TX" stop --device hci0 || fail "stop exited $?"
done
grep -qE '\((legacy|extended) commands' "$E2E_OUT/start-legacy.log" || fail "no family in the legacy start's note"
grep -q '(extended commands' "$E2E_OUT/start-auto.log" || fail "auto did not use extended commands: $(cat "$E2E_OUT/start-auto.log")"
