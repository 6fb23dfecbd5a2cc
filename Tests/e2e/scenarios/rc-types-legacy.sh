#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# e2e-controllers: rootcanal legacy-only
# rc-types-legacy (issue 44): the five beacons of types.inc (iBeacon, AltBeacon, Eddystone-URL,
# Eddystone-UID, raw data) rotated on the one advertising instance of a controller without
# extended advertising (a Raspberry Pi's case); the receiver hears each payload exactly.
. "$(dirname "$0")/rc.inc"
K_UUID=$RC_UUID
# shellcheck source=SCRIPTDIR/types.inc
. "$(dirname "$0")/types.inc"
rc_reset_hci0
# --share never: an earlier scenario of this controller group may have left a kernel instance
_run rotation "0 1 2 3 4" "--clock" --config "$E2E_OUT/types.json" --rotation 300 --share never
_log_has "$E2E_OUT/rotation.log" "legacy commands, rotating every 300 ms" || fail "not rotating: $(head -n 3 "$E2E_OUT/rotation.log")"
