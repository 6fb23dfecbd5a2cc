#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# e2e-controllers: rootcanal legacy-only
# e2e-timeout: 240
# rc-types-legacy (issue 44): the six beacons of types.inc (iBeacon, AltBeacon, Eddystone-URL,
# Eddystone-UID, raw data, the UID's Eddystone-TLM) rotated on the one advertising instance of a
# controller without extended advertising (a Raspberry Pi's case); the receiver hears each payload
# exactly, the TLM's counts rising. Then the four identifying types and the TLM rotated: beacon-tx
# scan, beacontools, verify (_four).
. "$(dirname "$0")/rc.inc"
K_UUID=$RC_UUID
# shellcheck source=SCRIPTDIR/types.inc
. "$(dirname "$0")/types.inc"
rc_reset_hci0
# An earlier scenario of this controller group may have left a kernel instance: cleared, or the
# kernel's rotation of it writes parameters while ours advertise (refused: Command Disallowed), and
# verify counts that failure on the shared instance. --share never as well, so auto never shares.
btmgmt_cmd 0 clr-adv > /dev/null
_run rotation "0 1 2 3 4 5" "--clock" --config "$E2E_OUT/types.json" --rotation 300 --share never
_log_has "$E2E_OUT/rotation.log" "legacy commands, rotating every 300 ms" || fail "not rotating: $(head -n 3 "$E2E_OUT/rotation.log")"
_four four-rotation "--clock" --rotation 300 --share never
_log_has "$E2E_OUT/four-rotation.log" "legacy commands, rotating every 300 ms" || fail "not rotating: $(head -n 3 "$E2E_OUT/four-rotation.log")"
