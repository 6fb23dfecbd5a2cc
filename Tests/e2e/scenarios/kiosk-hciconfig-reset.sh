#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# kiosk-hciconfig-reset (issue 8): `hciconfig hci0 reset` (down, up, HCI Reset) is survived.
. "$(dirname "$0")/kiosk.inc"
k_setup bluetoothd
kiosk_start kiosk "${K_TWO[@]}"
k_heard 1 2
hciconfig hci0 reset
k_event_rearms kiosk "" 1 2
