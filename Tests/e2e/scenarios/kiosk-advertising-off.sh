#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# kiosk-advertising-off (issue 8): `btmgmt advertising off` makes the kernel send "Disable all
# sets"; beacon-tx sees the command and re-arms.
. "$(dirname "$0")/kiosk.inc"
k_setup bluetoothd
kiosk_start kiosk "${K_TWO[@]}"
k_heard 1 2
btmgmt_cmd 0 advertising on > /dev/null || true
btmgmt_cmd 0 advertising off
k_event_rearms kiosk "another program disabled all advertising sets" 1 2
