#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# kiosk-connect (issue 8): a central (l2test on hci1) connecting to a --connectable beacon ends
# its advertising set (LE Advertising Set Terminated); after the disconnection beacon-tx
# re-enables it in the same process. Runs last among the kiosk scenarios (bluetoothd 5.66 has
# crashed after connect/disconnect sequences).
. "$(dirname "$0")/kiosk.inc"
k_setup bluetoothd
kiosk_start kiosk --beacon "$K_UUID:1:2" --connectable
k_heard 2
scan_stop hci1
run_bg central timeout 8 l2test -i hci1 -V le_public -J 4 -c "$K_ADDR"
wait_until 10 _log_has "$E2E_OUT/kiosk.log" 'a connection ended advertising set' || fail "no set-terminated note: $(tail -n 3 "$E2E_OUT/kiosk.log"; cat "$E2E_OUT/central.log")"
stop_bg central TERM
scan_start hci1 --mode extended --reenable 0.5
k_event_rearms kiosk "a connection ended" 2
