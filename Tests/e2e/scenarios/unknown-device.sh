#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# unknown-device (issue 4h): `--device hci9 --device-timeout 0` exits 69 at once with one line naming
# the devices that exist (without --device-timeout 0, start waits for hci9: start-waits-for-device).
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"
need_beacon_tx

rc=0
"$BEACON_TX" start --device hci9 --device-timeout 0 --config "$REPO/Config/kiosk.json" > "$E2E_OUT/out" 2> "$E2E_OUT/err" || rc=$?
cat "$E2E_OUT/err"
[ "$rc" = 69 ] || fail "exit $rc, want 69"
[ "$(cat "$E2E_OUT/err")" = "beacon-tx start: no such device hci9 (available: hci0, hci1)" ] || fail "message: $(cat "$E2E_OUT/err")"
[ ! -s "$E2E_OUT/out" ] || fail "stdout not empty"
