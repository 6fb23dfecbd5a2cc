#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# start-legacy (issue 4a): `beacon-tx start --controller legacy` on hci0 sends legacy commands
# only and hci1 receives exactly the golden bytes.
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"
GOLDEN=0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5
need_beacon_tx

scan_start hci1
step "beacon-tx start --controller legacy on hci0"
run_bg adv "$BEACON_TX" start --device hci0 --controller legacy --uuid E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 --major 1 --minor 2
addr=$(bdaddr hci0)
expect_adv_data -s hci1 -a "$addr" "$GOLDEN"
expect_hci_command hci0 0x2006 a000a0000300000000000000000700
expect_hci_command hci0 0x2008 1e${GOLDEN}00
expect_no_hci_command hci0 0x2036
stop_bg adv TERM
[ "$BG_RC" = 0 ] || fail "beacon-tx start exited $BG_RC after SIGTERM (want 0)"
