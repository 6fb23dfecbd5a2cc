#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# e2e-controllers: rootcanal legacy-only
# rc-bluez-bed (issue 23): the bed for single-instance controllers: bluetoothd manages the
# legacy-only RootCanal hci0, and the kernel rotates its own MGMT instances (`btmgmt add-adv`) on
# the one legacy instance; the independent receiver on hci1 hears both, each for ~2 s in turn.
. "$(dirname "$0")/rc.inc"
rc_bluez
btmgmt_cmd 0 advinfo | tee "$E2E_OUT/advinfo.txt"
onair_rx
rc_kernel_adv 1
rc_kernel_adv 2
_sleep 1
t0=$EPOCHREALTIME; _sleep 8; t1=$EPOCHREALTIME
rc_heard kernel "$t0" "$t1"
for n in 1 2; do at_least "$(rc_per "k$n")" 1 "kernel instance $n heard"; done

