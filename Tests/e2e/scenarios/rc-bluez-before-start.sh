#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# e2e-controllers: rootcanal legacy-only
# e2e-timeout: 240
# rc-bluez-before-start (issue 23, items 1 and 3): a kernel instance (`btmgmt add-adv`) on air
# before beacon-tx starts on the single-instance controller: beacon-tx says at start whose
# advertising it displaces (MGMT Read Advertising Features), the receiver hears our beacon and not
# the kernel's while it runs, and after SIGTERM none of ours from any address (no ghost) and the
# kernel's instance again (its data was written before beacon-tx started, so the stop hands the
# instance back through the kernel: MGMT Set Advertising on and off makes it write its instance anew).
. "$(dirname "$0")/rc.inc"
rc_bluez
onair_rx
rc_kernel_adv 1
_sleep 1
t0=$EPOCHREALTIME; _sleep 3; t1=$EPOCHREALTIME
rc_heard before "$t0" "$t1"
at_least "$(rc_per k1)" 2 "kernel instance 1 before beacon-tx"
kiosk_start k --uuid "$RC_UUID" --major 1 --minor 2 --share never   # own the instance (the default, auto, would share it)
_log_has "$E2E_OUT/k.log" "has one advertising instance and the kernel's advertising instance 1 uses it too" ||
  fail "no displacement note at start: $(head -n 5 "$E2E_OUT/k.log")"
_sleep 1
t1=$EPOCHREALTIME; _sleep 4; t2=$EPOCHREALTIME
rc_heard during "$t1" "$t2"
at_least "$(rc_per 1.2)" 3 "our beacon while beacon-tx runs"
[ "$(rc_per k1)" = 0 ] || echo "note: kernel instance 1 heard while beacon-tx ran ($(rc_per k1)/s)"
stop_bg k TERM; t3=$EPOCHREALTIME
[ "$BG_RC" = 0 ] || fail "exit $BG_RC after SIGTERM"
cat "$E2E_OUT/k.log"
_sleep 5; t4=$EPOCHREALTIME
rc_after_stop "$t3" "$t4" 1.2
at_least "$ONAIR_RATE" 2 "kernel instance 1 after the stop"
