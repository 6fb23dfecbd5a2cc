#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# doctor-firmware (issue 40): doctor reads the kernel's own log (/dev/kmsg) for the firmware-load
# failures of Realtek, Intel and Broadcom drivers. The lines are written into the guest kernel's log
# through /dev/kmsg as the drivers print them (btvirt needs no firmware): a Realtek failure on hci0
# is FAIL firmware naming the file and firmware-realtek (exit 1); btrtl's later version line (the
# package installed, the adapter replugged) clears it; a Broadcom listing on hci1 only warns and
# names bluez-firmware. A user without CAP_SYSLOG is told the log could not be read where
# kernel.dmesg_restrict is 1 (Debian's default).
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"
need_beacon_tx

doctor() { # doctor OUT ARGS...: doctor's text into $E2E_OUT/OUT, its exit status echoed
  local out=$1 rc=0
  shift
  "$BEACON_TX" doctor "$@" > "$E2E_OUT/$out" 2>&1 || rc=$?
  cat "$E2E_OUT/$out" >&2
  echo "$rc"
}

[ "$(doctor before.txt --device hci0)" = 0 ] || fail "doctor exited non-zero before any firmware line"
grep -q '^OK    firmware  *-  *the kernel log has no Bluetooth firmware-load failure$' "$E2E_OUT/before.txt" || fail "no OK firmware on a clean log"

echo '<3>Bluetooth: hci0: RTL: firmware file rtl_bt/rtl8761bu_fw.bin not found' > /dev/kmsg
rc=$(doctor realtek.txt --device hci0)
[ "$rc" = 1 ] || fail "doctor exited $rc with a Realtek firmware failure, want 1"
grep -q "^FAIL  firmware  *hci0  Realtek controller's firmware could not be loaded: its driver stops without it" "$E2E_OUT/realtek.txt" || fail "no FAIL firmware hci0"
grep -q 'not found: rtl_bt/rtl8761bu_fw.bin;' "$E2E_OUT/realtek.txt" || fail "the file is not named"
grep -q 'remedy: install firmware-realtek ' "$E2E_OUT/realtek.txt" || fail "firmware-realtek is not named"
rc=$(doctor other-device.txt --device hci1)
[ "$rc" = 0 ] || fail "doctor --device hci1 exited $rc: hci0's failure is not hci1's"

echo '<6>Bluetooth: hci0: RTL: fw version 0xdfc6d922' > /dev/kmsg
[ "$(doctor cleared.txt --device hci0)" = 0 ] || fail "a later firmware load did not clear the failure"
grep -q '^OK    firmware ' "$E2E_OUT/cleared.txt" || fail "no OK firmware after the later load"

{
  echo '<3>Bluetooth: hci1: BCM: firmware Patch file not found, tried:'
  echo "<3>Bluetooth: hci1: BCM: 'brcm/BCM4345C0.raspberrypi,4-model-b.hcd'"
  echo "<3>Bluetooth: hci1: BCM: 'brcm/BCM4345C0.hcd'"
} > /dev/kmsg
[ "$(doctor broadcom.txt --device hci1)" = 0 ] || fail "a Broadcom failure is a warning (exit 0)"
grep -q "^WARN  firmware  *hci1  Broadcom controller's firmware could not be loaded: it runs the older code in its ROM" "$E2E_OUT/broadcom.txt" || fail "no WARN firmware hci1"
grep -q "not found: brcm/BCM4345C0.raspberrypi,4-model-b.hcd, brcm/BCM4345C0.hcd;" "$E2E_OUT/broadcom.txt" || fail "the files btbcm tried are not listed"
grep -q 'remedy: install bluez-firmware ' "$E2E_OUT/broadcom.txt" || fail "bluez-firmware is not named"
echo "<6>Bluetooth: hci1: BCM4345C0 'brcm/BCM4345C0.hcd' Patch" > /dev/kmsg   # leave the log clean for the scenarios after this one
grep -q '^OK    firmware ' <("$BEACON_TX" doctor 2>&1) || fail "the Broadcom failure was not cleared by its later Patch line"

if [ "$(cat /proc/sys/kernel/dmesg_restrict)" = 1 ]; then
  rc=$(setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all "$BEACON_TX" doctor --device hci0 > "$E2E_OUT/nobody.txt" 2>&1; echo $?)
  cat "$E2E_OUT/nobody.txt"
  [ "$rc" = 0 ] || fail "doctor as nobody exited $rc"
  grep -q '^WARN  firmware  *-  *the kernel log could not be read: firmware-load failures not looked for$' "$E2E_OUT/nobody.txt" || fail "nobody is not told the log was unreadable"
else
  echo "kernel.dmesg_restrict is 0 here: the unreadable-log case is the unit tests' (FirmwareLogTests)"
fi
