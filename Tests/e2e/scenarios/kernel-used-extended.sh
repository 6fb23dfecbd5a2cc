#!/bin/bash
# kernel-used-extended (issue 4d): after `btmgmt add-adv` made the kernel advertise with extended
# commands (a raw legacy 0x2006 now gets Command Disallowed), `beacon-tx start` still succeeds,
# with --controller auto and with --controller legacy (it switches family once), and hci1 hears it.
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
# Forced legacy: a spec controller refuses it (0x0c) and beacon-tx switches to extended once; btvirt
# instead accepts the legacy disable once the raw 0x2006 above was refused, so either outcome passes
# as long as the beacon is on air (checked above). Auto must have used extended commands.
grep -q '(extended commands' "$E2E_OUT/start-auto.log" || fail "auto did not use extended commands: $(cat "$E2E_OUT/start-auto.log")"
