#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# kiosk-devreset (issue 8): HCIDEVRESET (what --reset and other tools send) resets the controller;
# the same beacon-tx process puts its beacons back on air.
. "$(dirname "$0")/kiosk.inc"
k_setup bluetoothd
kiosk_start kiosk "${K_TWO[@]}"
k_heard 1 2
hci_devreset hci0
k_event_rearms kiosk "another program reset hci0 (HCI Reset)" 1 2
