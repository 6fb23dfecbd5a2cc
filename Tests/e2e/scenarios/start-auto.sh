#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# start-auto (issue 4a): `beacon-tx start` on hci0 with the default --controller auto picks
# extended advertising (btvirt supports it) and hci1 receives exactly the golden bytes.
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"
GOLDEN=0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5
need_beacon_tx

scan_start hci1
step "beacon-tx start (auto) on hci0, foreground"
run_bg adv "$BEACON_TX" start --device hci0 --uuid E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 --major 1 --minor 2
addr=$(bdaddr hci0)
expect_adv_data -s hci1 -a "$addr" "$GOLDEN"
expect_hci_command hci0 0x2036
expect_no_hci_command hci0 0x2006
stop_bg adv TERM
[ "$BG_RC" = 0 ] || fail "beacon-tx start exited $BG_RC after SIGTERM (want 0)"
cat "$E2E_OUT/adv.log"
