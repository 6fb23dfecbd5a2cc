#!/bin/bash
# kiosk-clr-adv (issue 8): `btmgmt clr-adv` disables all sets and clears them (LE Clear
# Advertising Sets): our sets are deleted, and beacon-tx puts them back.
. "$(dirname "$0")/kiosk.inc"
k_setup bluetoothd
kiosk_start kiosk "${K_TWO[@]}"
k_heard 1 2
btmgmt_cmd 0 clr-adv
k_event_rearms kiosk "another program" 1 2
