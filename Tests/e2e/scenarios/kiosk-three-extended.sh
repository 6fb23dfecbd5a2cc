#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# kiosk-three-extended (issue 8): three beacons on an extended controller get
# three advertising sets (239, 238, 237: clear of the kernel's handle 0 and instances 1...) and
# are all heard on hci1 at once; SIGTERM disables and removes the three sets.
. "$(dirname "$0")/kiosk.inc"
k_setup
kiosk_start kiosk "${K_THREE[@]}"
grep -q 'extended commands, sets 239, 238, 237' "$E2E_OUT/kiosk.log" || fail "not three sets: $(cat "$E2E_OUT/kiosk.log")"
k_heard 1 2 3
expect_hci_command hci0 0x2039 0103ef000000ee000000ed000000
stop_bg kiosk TERM
[ "$BG_RC" = 0 ] || fail "exit $BG_RC after SIGTERM"
for h in ef ee ed; do expect_hci_command hci0 0x203c "$h"; done
