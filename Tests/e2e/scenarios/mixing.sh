#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# mixing: regression check of the bed's controller model. Once the kernel has
# advertised through mgmt (btmgmt add-adv, which BlueZ does with LE extended
# advertising commands on this controller), a raw legacy LE Set Advertising
# Parameters (0x2006) must be refused with Command Disallowed (0x0c): a
# controller does not mix legacy and extended advertising.
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"

step "hci0 through mgmt: le on, power on, add-adv"
for c in "le on" "power on" "add-adv -d 0201060303aafe 1"; do
  # shellcheck disable=SC2086  # $c is the command's words
  out=$(btmgmt_cmd 0 $c)
  echo "btmgmt $c: $out"
done
grep -q '^Instance added: 1' <<< "$out" || fail "btmgmt add-adv did not add instance 1: $out"
expect_hci_command hci0 0x2036     # the kernel used LE Set Extended Advertising Parameters

step "raw legacy LE Set Advertising Parameters on hci0"
expect_status 0x0c hci0 0x08 0x0006 a0 00 a0 00 03 00 00 00 00 00 00 00 00 07 00
hci_log hci0 | grep -E ' 0x20(06|08|0a|36|37|39) '
