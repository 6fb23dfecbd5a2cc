#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# kiosk-advertise-on (issue 8): `bluetoothctl advertise on` (the kernel's instance 1) alongside our
# set: both are heard, and beacon-tx does not re-arm (nothing of ours was touched). btvirt has three
# sets: bluetoothd's handle 0, instance 1 and our 239.
. "$(dirname "$0")/kiosk.inc"
_bluez_adv_seen() {
  local l
  while IFS= read -r l; do [[ $l == report\ *" addr=$K_ADDR "* && $l != *4c000215* ]] && return 0; done < "$E2E_OUT/scan-hci1.txt"
  return 1
}
k_setup bluetoothd
kiosk_start kiosk --beacon "$K_UUID:1:1"
k_heard 1
# bluetoothctl keeps its advertisement registered only while it runs
run_bg bluetoothctl bash -c '{ echo "advertise on"; sleep 60; } | bluetoothctl'
wait_until 15 _log_has "$E2E_OUT/bluetoothctl.log" 'Advertising object registered' ||
  fail "bluetoothctl advertise on failed: $(tail -n 3 "$E2E_OUT/bluetoothctl.log")"
scan_clear hci1
k_heard 1
wait_until 10 _bluez_adv_seen || fail "bluetoothd's advertisement not heard: $(scan_reports hci1 | head -n 3)"
_log_has "$E2E_OUT/kiosk.log" 're-armed' && fail "re-armed without cause: $(cat "$E2E_OUT/kiosk.log")"
kiosk_expect_alive kiosk
