#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# verify-share-extended (issue 23): the sharing mode on an extended controller (btvirt, no
# bluetoothd, LE switched on through MGMT as bluetoothd would): `start --share always` makes two beacons kernel advertising instances, from which the
# kernel derives LE Set Extended Advertising commands on sets of the instances' numbers. Both are
# heard on hci1 with their exact bytes; a `btmon -w` capture from before the start to after SIGTERM
# passes `verify` (share mode: the MGMT commands against the share plan, the kernel's data ours byte
# for byte, Remove Advertising at the stop), and the same capture with a wrong minor fails.
. "$(dirname "$0")/verify.inc"
v_config "$E2E_OUT/kiosk.json" 1 2
echo "btmgmt le on: $(btmgmt_cmd 0 le on)"
scan_start hci1 --mode extended --reenable 0.5
v_btmon_start
kiosk_start kiosk --config "$E2E_OUT/kiosk.json" --share always --rotation 1000
grep 'as kernel advertising instances' "$E2E_OUT/kiosk.log" || fail "not shared: $(tail -n 3 "$E2E_OUT/kiosk.log")"
expect_adv_data -s hci1 -t 15 "$(v_data 1)"
expect_adv_data -s hci1 -t 15 "$(v_data 2)"
stop_bg kiosk
[ "$BG_RC" = 0 ] || fail "beacon-tx exited $BG_RC on SIGTERM"
grep 'removed our kernel advertising instances' "$E2E_OUT/kiosk.log" || fail "no clean stop: $(tail -n 3 "$E2E_OUT/kiosk.log")"
v_btmon_stop

v_verify share --config "$E2E_OUT/kiosk.json" --rotation 1000
[ "$V_RC" = 0 ] || fail "verify exited $V_RC: $(tail -n 1 "$E2E_OUT/share.out")"
v_has share "mode: shared through the kernel"
v_has share "written by the kernel on the set"
v_has share "at the end: removed by beacon-tx's stop plan"
v_has share "PASS: 2 beacon(s) shared through the kernel as planned"

v_verify share-minor --config "$E2E_OUT/kiosk.json" --rotation 1000 --beacon "$V_UUID:1:1" --beacon "$V_UUID:1:3"
[ "$V_RC" = 1 ] || fail "verify with minor 3 exited $V_RC"
_log_has "$E2E_OUT/share-minor.err" "iBeacon minor 3 ≠ 2 (config ≠ capture)" || fail "verify with minor 3: $(cat "$E2E_OUT/share-minor.err")"
