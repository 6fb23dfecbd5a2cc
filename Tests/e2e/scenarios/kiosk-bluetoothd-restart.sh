#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# kiosk-bluetoothd-restart (issue 8): bluetoothd stopping powers every adapter off; starting it
# powers them on again; the same beacon-tx process re-arms.
. "$(dirname "$0")/kiosk.inc"
k_setup bluetoothd
kiosk_start kiosk "${K_TWO[@]}"
k_heard 1 2
bluetoothd_stop
wait_until 10 _log_has "$E2E_OUT/kiosk.log" 'hci0 down; waiting to re-arm' || fail "no waiting note: $(tail -n 3 "$E2E_OUT/kiosk.log")"
bluetoothd_start
# bluetoothd powered hci1 (the receiver) off and on too: its scan is gone
scan_stop hci1
scan_start hci1 --mode extended --reenable 0.5
k_event_rearms kiosk "hci0 up again" 1 2
