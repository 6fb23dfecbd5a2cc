#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# peer: the bed itself works. hci0 advertises the golden iBeacon (UUID
# E2C56DB5-DFFB-48D2-B060-D0F5A71096E0, major 1, minor 2, measured power -59) with
# plain legacy `hcitool cmd` commands; the independent scanner on hci1 must receive
# exactly those advertising data bytes from hci0's address.
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"

GOLDEN=0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5

step "scanner on hci1 (before hci0 advertises: btvirt forwards on enable)"
scan_start hci1

step "hci0: legacy advertising parameters, data, enable"
expect_status 0x00 hci0 0x08 0x0006 a0 00 a0 00 03 00 00 00 00 00 00 00 00 07 00
expect_status 0x00 hci0 0x08 0x0008 1e 02 01 06 1a ff 4c 00 02 15 e2 c5 6d b5 df fb 48 d2 b0 60 d0 f5 a7 10 96 e0 00 01 00 02 c5 00
expect_status 0x00 hci0 0x08 0x000a 01

step "hci1 hears the golden bytes from hci0"
addr=$(bdaddr hci0)   # (not inside the arguments: set -e ignores failures there)
expect_adv_data -s hci1 -a "$addr" "$GOLDEN"
expect_last_adv_enable hci0 enable
scan_reports hci1
