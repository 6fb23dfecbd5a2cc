#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# detach-then-stop (issue 4c): `start --detach` exits 0 leaving hci0 advertising (hci1 hears it);
# `stop` disables it; a second `stop` also exits 0.
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"
GOLDEN=0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5
need_beacon_tx

scan_start hci1
step "start --detach"
"$BEACON_TX" start --device hci0 --detach --config "$REPO/Config/kiosk.json" || fail "start --detach exited $?"
addr=$(bdaddr hci0)
expect_adv_data -s hci1 -a "$addr" "$GOLDEN"
expect_last_adv_enable hci0 enable
step "stop, twice"
"$BEACON_TX" stop --device hci0 || fail "stop exited $?"
expect_last_adv_enable hci0 disable
expect_hci_command hci0 0x203c ef
"$BEACON_TX" stop --device hci0 || fail "second stop exited $?"
step "start --detach --controller legacy, then stop"
"$BEACON_TX" start --device hci0 --detach --controller legacy --config "$REPO/Config/kiosk.json" || fail "legacy start --detach exited $?"
expect_last_adv_enable hci0 enable
"$BEACON_TX" stop --device hci0 || fail "stop after legacy exited $?"
expect_last_adv_enable hci0 disable
