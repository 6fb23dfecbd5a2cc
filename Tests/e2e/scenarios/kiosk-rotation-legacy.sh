#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# kiosk-rotation-legacy (issue 8): three beacons with --controller legacy share one advertising
# instance whose data is replaced every 200 ms while advertising stays enabled; each is heard.
. "$(dirname "$0")/kiosk.inc"
k_setup
scan_stop hci1
scan_start hci1 --mode legacy --reenable 0.5
hci_mark rotation-start
kiosk_start kiosk "${K_THREE[@]}" --controller legacy --rotation 200
grep -q 'rotating every 200 ms' "$E2E_OUT/kiosk.log" || fail "not rotating: $(cat "$E2E_OUT/kiosk.log")"
k_heard 1 2 3
stop_bg kiosk TERM
[ "$BG_RC" = 0 ] || fail "exit $BG_RC after SIGTERM"
# the swaps are data commands only: one enable, one disable (the stop)
n=0; while IFS= read -r l; do [[ $l == *" cmd 0x200a 01 "* ]] && n=$((n + 1)); done < <(hci_log --since rotation-start hci0)
[ "$n" = 1 ] || fail "advertising was enabled $n times, want 1 (rotation must not disable)"
d=0; while IFS= read -r l; do [[ $l == *" cmd 0x2008 "* ]] && d=$((d + 1)); done < <(hci_log --since rotation-start hci0)
[ "$d" -ge 6 ] || fail "only $d data commands: no rotation"
echo "data swaps: $d"
