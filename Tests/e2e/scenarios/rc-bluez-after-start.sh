#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# e2e-controllers: rootcanal legacy-only
# rc-bluez-after-start (issue 23, items 1 and 3): on a single-instance controller that bluetoothd
# manages, a kernel instance added while beacon-tx runs (`btmgmt add-adv`) takes the instance once;
# beacon-tx takes it back (one re-arm), says once whose advertising it displaces (log and STATUS),
# and the receiver hears our beacon, not the kernel's. After SIGTERM the receiver hears none of our
# beacons from any address (no ghost) and the kernel's instance again: the stop wrote back the
# kernel's own address, parameters, data and enable, as the kernel had last written them.
. "$(dirname "$0")/rc.inc"
rc_bluez
onair_rx
kiosk_start k --uuid "$RC_UUID" --major 1 --minor 2
rc_kernel_adv 1
kiosk_rearmed k "another program"
_sleep 1.5
t1=$EPOCHREALTIME; _sleep 4; t2=$EPOCHREALTIME
_log_has "$E2E_OUT/k.log" "has one advertising instance and another owner" || fail "no displacement note: $(tail -n 3 "$E2E_OUT/k.log")"
rc_heard during "$t1" "$t2"
at_least "$(rc_per 1.2)" 3 "our beacon while beacon-tx owns the instance"
[ "$(rc_per k1)" = 0 ] || echo "note: kernel instance 1 heard while beacon-tx ran ($(rc_per k1)/s)"
n=0; while IFS= read -r l; do [[ $l == *"re-armed"* ]] && n=$((n + 1)); done < "$E2E_OUT/k.log"
echo "re-arms: $n"
stop_bg k TERM; t3=$EPOCHREALTIME
[ "$BG_RC" = 0 ] || fail "exit $BG_RC after SIGTERM"
cat "$E2E_OUT/k.log"
_log_has "$E2E_OUT/k.log" "handed back as its other owner last wrote it" || fail "no hand-back note"
_sleep 5; t4=$EPOCHREALTIME
rc_after_stop "$t3" "$t4" 1.2
at_least "$ONAIR_RATE" 2 "kernel instance 1 after the stop"
