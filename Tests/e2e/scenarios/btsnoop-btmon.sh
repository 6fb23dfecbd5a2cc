#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# btsnoop-btmon (issue 2): `btmon -r` decodes a `--format btsnoop` dry-run capture: it shows the
# LE Set Advertising Data command (legacy) / LE Set Extended Advertising Data (extended), the
# iBeacon, and the synthetic Command Completes with Success; dates start at 2000-01-01.
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"
need_beacon_tx

for family in legacy extended; do
  "$BEACON_TX" start --config "$REPO/Config/kiosk.json" --dry-run --format btsnoop --controller "$family" \
    --output "$E2E_OUT/plan-$family.btsnoop" || fail "dry run ($family) exited $?"
  btmon -T -r "$E2E_OUT/plan-$family.btsnoop" > "$E2E_OUT/btmon-$family.txt" 2>&1 || fail "btmon -r ($family) exited $?"
  cat "$E2E_OUT/btmon-$family.txt"
  grep -q 'Type: iBeacon' "$E2E_OUT/btmon-$family.txt" || fail "btmon shows no iBeacon ($family)"
  want=5; [ "$family" = extended ] && want=6   # start (4) + stop (legacy: disable; extended: disable, remove set)
  [ "$(grep -c 'Status: Success (0x00)' "$E2E_OUT/btmon-$family.txt")" = "$want" ] || fail "not $want successful Command Completes ($family)"
  grep -q '2000-01-01 00:00:00.000000' "$E2E_OUT/btmon-$family.txt" || fail "the capture does not start at 2000-01-01 ($family)"
done
grep -q 'LE Set Advertising Data (0x08|0x0008)' "$E2E_OUT/btmon-legacy.txt" || fail "no LE Set Advertising Data (legacy)"
grep -q 'LE Set Extended Advertising Data (0x08|0x0037)' "$E2E_OUT/btmon-extended.txt" || fail "no LE Set Extended Advertising Data"
