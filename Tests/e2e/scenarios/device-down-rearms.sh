#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# device-down-rearms (issue 8): a foreground `beacon-tx start` respects its controller going down
# (`hciconfig hci0 down`: it waits, says so, and does not bring it up), and re-arms in the same
# process when the controller comes up again.
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"
need_beacon_tx
GOLDEN=0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5

scan_start hci1 --mode extended --reenable 0.5
kiosk_start adv --config "$REPO/Config/kiosk.json"
expect_adv_data -s hci1 "$GOLDEN"
hciconfig hci0 down
wait_until 10 _log_has "$E2E_OUT/adv.log" 'hci0 down; waiting to re-arm' || fail "no waiting note: $(tail -n 3 "$E2E_OUT/adv.log")"
_sleep 2
kiosk_expect_alive adv
[[ $(hciconfig hci0) == *DOWN* ]] || fail "beacon-tx brought hci0 up by itself"
hciconfig hci0 up
kiosk_rearmed adv "hci0 up again"
scan_clear hci1
expect_adv_data -s hci1 -t 10 "$GOLDEN"
kiosk_expect_alive adv
stop_bg adv TERM
[ "$BG_RC" = 0 ] || fail "exit $BG_RC after SIGTERM"
