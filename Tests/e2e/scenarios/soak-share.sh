#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# e2e-controllers: rootcanal legacy-proxy
# e2e-timeout: 480
# soak-share (issues 40, item 4, and 45): the sharing mode on a Raspberry Pi's kind of controller
# (RootCanal legacy-only behind the quirk proxy, for its Hardware Error and 5 s of silence),
# bluetoothd managing it with a kernel instance, museum.json's three beacons made kernel instances
# by `--share auto`, WATCHDOG_USEC as the units'. The fault kinds below (raw HCI's less another
# program's HCI Reset and advertising disable, which the kernel cannot see in this mode) hit it in a
# seeded random order (soak.inc); after each, every beacon of the config in force must be heard
# again, and tools/soak-report.py checks the whole run.
. "$(dirname "$0")/rc.inc"
. "$(dirname "$0")/soak.inc"
SOAK_KINDS=(devreset hciconfig-reset power-btmgmt power-bluetoothctl rfkill bluetoothd-kill advertising-off
  clr-adv kernel-instance down-up reload sigstop hardware-error silence)
SOAK_WINDOW_S=6   # the kernel's rotation: our three instances 1 s each, instance 1 2 s
rc_bluez
onair_rx
rc_kernel_adv 1
soak_run share --share auto
grep -q 'as kernel advertising instances' "$E2E_OUT/k.log" || fail "not shared: $(head -n 5 "$E2E_OUT/k.log")"
