#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# down-device (issue 4f): with hci0 down, `beacon-tx start` brings it up (with a note) and advertises.
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"
GOLDEN=0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5
need_beacon_tx

step "hciconfig hci0 down"
hciconfig hci0 down
hciconfig hci0 | grep -q DOWN || fail "hci0 did not go down"
scan_start hci1
"$BEACON_TX" start --device hci0 --detach --config "$REPO/Config/kiosk.json" > "$E2E_OUT/start.log" 2>&1 ||
  fail "start exited $?: $(tail -n 2 "$E2E_OUT/start.log")"
cat "$E2E_OUT/start.log"
grep -q 'hci0 is down; bringing it up (HCIDEVUP)' "$E2E_OUT/start.log" || fail "no bring-up note"
hciconfig hci0 | grep -q 'UP RUNNING' || fail "hci0 is not up"
addr=$(bdaddr hci0)
expect_adv_data -s hci1 -a "$addr" "$GOLDEN"
