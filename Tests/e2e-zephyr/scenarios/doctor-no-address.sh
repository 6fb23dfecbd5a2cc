#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# e2e-controllers: zephyr legacy
# doctor-no-address: hci0 down and address-less, as Zephyr's hci_uart comes on a box where nobody
# gave it a static address (`btmgmt power off`, `btmgmt static-addr 00:00:00:00:00:00`): the kernel
# cannot bring it up (`hciconfig hci0 up`: Cannot assign requested address); `doctor --device hci0`
# names the remedy, `btmgmt ... static-addr`. What `start` says then is kept (start.txt, not asserted).
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"
zb_power 0 off || fail "btmgmt power off failed"
zb_address 0 00:00:00:00:00:00 || fail "btmgmt static-addr 00:00:00:00:00:00 failed"
if hciconfig hci0 up 2> "$E2E_OUT/up.err"; then fail "hciconfig hci0 up succeeded without any address"; fi
cat "$E2E_OUT/up.err"
grep -q 'Cannot assign requested address' "$E2E_OUT/up.err" || fail "hciconfig hci0 up: $(cat "$E2E_OUT/up.err")"
drc=0
"$BEACON_TX" doctor --device hci0 > "$E2E_OUT/doctor.txt" 2>&1 || drc=$?
cat "$E2E_OUT/doctor.txt"
echo "doctor exit $drc"
rc=0
"$BEACON_TX" start --device hci0 "${Z_GOLDEN_ARGS[@]}" --device-timeout 0 --duration 2 > "$E2E_OUT/start.txt" 2>&1 || rc=$?
echo "start exit $rc:"; cat "$E2E_OUT/start.txt"
grep -q 'btmgmt.*static-addr' "$E2E_OUT/doctor.txt" ||
  fail "doctor names no 'btmgmt ... static-addr' remedy for the address-less hci0 (doctor exit $drc; its power line: $(grep -E -m 1 '^[A-Z]+ +power +hci0 ' "$E2E_OUT/doctor.txt" | tr -s ' '); start exit $rc: $(tail -n 1 "$E2E_OUT/start.txt"))"
