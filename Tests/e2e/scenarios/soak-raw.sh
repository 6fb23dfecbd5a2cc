#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# e2e-controllers: rootcanal flaky
# e2e-timeout: 480
# soak-raw (issue 40, item 4): raw HCI on an extended controller (RootCanal DEFAULT behind the quirk
# proxy: every fourth data write while on is refused, Hardware Error and 5 s of silence on a
# signal), bluetoothd managing it with a kernel instance, museum.json's three beacons on their own
# sets, WATCHDOG_USEC as the units'. Every fault kind below hits it in a seeded random order
# (soak.inc: SOAK_MINUTES, SOAK_SEED; `make soak` runs it long); after each, every beacon of the
# config in force must be heard again, and tools/soak-report.py checks the whole run.
. "$(dirname "$0")/rc.inc"
. "$(dirname "$0")/soak.inc"
SOAK_KINDS=(devreset hciconfig-reset hci-reset-cmd foreign-disable power-btmgmt power-bluetoothctl rfkill
  bluetoothd-kill advertising-off clr-adv kernel-instance down-up reload sigstop hardware-error silence)
SOAK_WINDOW_S=2
rc_bluez
onair_rx
rc_kernel_adv 1
soak_run raw --share never
grep -q 'on air' "$E2E_OUT/k.log" || fail "never on air: $(head -n 5 "$E2E_OUT/k.log")"
