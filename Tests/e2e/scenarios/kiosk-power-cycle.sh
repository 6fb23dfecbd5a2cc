#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# kiosk-power-cycle (issue 8): `bluetoothctl power off` is respected (nothing on air, no HCIDEVUP
# from beacon-tx), `power on` re-arms in the same process.
. "$(dirname "$0")/kiosk.inc"
k_setup bluetoothd
kiosk_start kiosk "${K_TWO[@]}"
k_heard 1 2
bluetoothctl power off
wait_until 10 _log_has "$E2E_OUT/kiosk.log" 'hci0 down; waiting to re-arm' || fail "no waiting note: $(tail -n 3 "$E2E_OUT/kiosk.log")"
kiosk_expect_alive kiosk
scan_clear hci1
expect_no_adv_data -s hci1 -t 2 "$(k_data 1)"
bluetoothctl power on
k_event_rearms kiosk "hci0 up again" 1 2
