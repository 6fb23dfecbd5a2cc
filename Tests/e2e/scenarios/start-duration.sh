#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# start-duration (issue 13): `start --duration 3` advertises, then stops cleanly and exits 0; the
# receiver on hci1 hears the beacon before and nothing afterwards.
. "$(dirname "$0")/kiosk.inc"
k_setup
kiosk_start timed --beacon "$K_UUID:1:2" --duration 3
k_heard 2
wait_bg timed 15
cat "$E2E_OUT/timed.log"
[ "$BG_RC" = 0 ] || fail "exit $BG_RC after --duration 3, want 0"
grep -q 'schedule done: advertising stopped on hci0' "$E2E_OUT/timed.log" || fail "no stop note"
scan_clear hci1
expect_no_adv_data -s hci1 -t 3 "$(k_data 2)"
