#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# kiosk-clr-adv (issue 8): `btmgmt clr-adv` removes the kernel's instances with "Disable all sets"
# and LE Clear Advertising Sets, which deletes our set too; beacon-tx puts it back. (Without an
# instance clr-adv sends nothing, so one is added first: bluetoothd's handle 0, instance 1 and our
# set 239 fill btvirt's three sets.)
. "$(dirname "$0")/kiosk.inc"
k_setup bluetoothd
kiosk_start kiosk --beacon "$K_UUID:1:1"
k_heard 1
out=$(btmgmt_cmd 0 add-adv -d 020106 1)
echo "btmgmt add-adv: $out"
[[ $out == *"Instance added: 1"* ]] || fail "btmgmt add-adv did not add instance 1: $out"
btmgmt_cmd 0 clr-adv
expect_hci_command hci0 0x203d
k_event_rearms kiosk "another program" 1
