#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# doctor-down (issue 32): with hci0 down and no bluetoothd, doctor warns (exit 0: start brings it up
# itself) with WARN power naming what it read (MGMT Read Controller Information: no Powered) and WARN
# adapter (its capabilities need it up; doctor does not bring it up: hci0 stays down); with hci0 up
# again every adapter finding of hci0 is OK and the adapter line has the HCI version and sets.
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"
need_beacon_tx

hciconfig hci0 down
rc=0
"$BEACON_TX" doctor --device hci0 > "$E2E_OUT/doctor.txt" 2>&1 || rc=$?
cat "$E2E_OUT/doctor.txt"
[ "$rc" = 0 ] || fail "doctor exited $rc, want 0 (down is a warning)"
grep -q '^WARN  power  *hci0  down (nobody powered it; no bluetoothd runs): start brings it up itself (HCIDEVUP)$' "$E2E_OUT/doctor.txt" || fail "no WARN power"
grep -q 'MGMT Read Controller Information: current settings lack Powered' "$E2E_OUT/doctor.txt" || fail "MGMT settings not read"
grep -q '^WARN  adapter  *hci0  .*: down, its capabilities were not read$' "$E2E_OUT/doctor.txt" || fail "no WARN adapter"
hciconfig hci0 | grep -q DOWN || fail "doctor brought hci0 up"

hciconfig hci0 up
"$BEACON_TX" doctor --device hci0 > "$E2E_OUT/doctor-up.txt" 2>&1 || fail "doctor exited $? with hci0 up"
cat "$E2E_OUT/doctor-up.txt"
grep -q '^OK    power  *hci0  up and powered$' "$E2E_OUT/doctor-up.txt" || fail "no OK power"
grep -Eq '^OK    adapter  *hci0  Virtual, ([0-9A-F]{2}:){5}[0-9A-F]{2}, HCI 5\.[0-9], LE yes, legacy adv yes, extended adv ' "$E2E_OUT/doctor-up.txt" || fail "no OK adapter line"
