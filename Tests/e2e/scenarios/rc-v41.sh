#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# e2e-controllers: rootcanal v41
# rc-v41 (issue 20): a Core 4.1 controller (RootCanal, legacy-only, behind tools/quirkproxy.py, which
# reports HCI 4.1 and answers 0x12 to a non-connectable legacy interval below 100 ms as 4.x
# controllers do). `start --interval 50` is refused before anything is sent, naming the version and
# the floor, exit 78; the controller's own 0x12 is shown with a raw command; 100 ms is accepted and
# heard; 50 ms connectable is accepted.
. "$(dirname "$0")/rc.inc"
onair_rx
addr=$(bdaddr hci0)
G=(--uuid "$RC_UUID" --major 1 --minor 2)
expect_status 0x12 hci0 0x08 0x0006 50 00 50 00 03 00 00 00 00 00 00 00 00 07 00
hci_mark fifty
rc=0; "$BEACON_TX" start --device hci0 "${G[@]}" --interval 50 > "$E2E_OUT/fifty.log" 2>&1 || rc=$?
cat "$E2E_OUT/fifty.log"
[ "$rc" = 78 ] || fail "50 ms on HCI 4.1 exited $rc, want 78"
_log_has "$E2E_OUT/fifty.log" "interval 50.000 msec (0x0050) is below 100.000 msec (0x00a0), the floor for non-connectable legacy advertising before Bluetooth 5.0, and hci0 is Bluetooth 4.1: nothing was sent" ||
  fail "not the floor message"
sent=$(rc_sent fifty)
[ -z "$sent" ] || fail "advertising commands were sent: $sent"
"$BEACON_TX" start --device hci0 "${G[@]}" --interval 100 --duration 2 > "$E2E_OUT/hundred.log" 2>&1 || fail "100 ms exited $?"
expect_adv_data -s hci1 -a "$addr" "$(ibeacon_data 1 2)"
"$BEACON_TX" start --device hci0 "${G[@]}" --interval 50 --connectable --duration 2 > "$E2E_OUT/connectable.log" 2>&1 ||
  fail "50 ms connectable exited $?: $(tail -n 2 "$E2E_OUT/connectable.log")"
