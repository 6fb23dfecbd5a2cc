#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# e2e-controllers: zephyr legacy
# kiosk-rotation-legacy: Config/museum.json on Zephyr's legacy build (auto: legacy commands, one
# advertising instance): the three beacons rotate on it every 200 ms (data swaps only: advertising
# is enabled once), each heard at the receiver at least once a second, the shop as often as the
# entrance (one shared interval: 0.75-1.33 of its rate), the receiver-measured median dwell 170-260 ms
# and every beacon's largest gap below three cycles (1.8 s). SIGTERM: exit 0, nothing on air.
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"
MUSEUM=$REPO/Config/museum.json
onair_rx
hci_mark rotation-start
kiosk_start rot --config "$MUSEUM"
cat "$E2E_OUT/rot.log"
_log_has "$E2E_OUT/rot.log" "rotating every 200 ms" || fail "not rotating: $(cat "$E2E_OUT/rot.log")"
_sleep 1
t0=$EPOCHREALTIME; _sleep 10; t1=$EPOCHREALTIME
onair_log --since "$t0" --until "$t1" --dwell 200 | tee "$E2E_OUT/onair-rot.txt"
onair_rate 1.1 "$E2E_OUT/onair-rot.txt"; r1=$ONAIR_RATE
onair_rate 1.2 "$E2E_OUT/onair-rot.txt"; r2=$ONAIR_RATE
onair_rate 1.3 "$E2E_OUT/onair-rot.txt"; r3=$ONAIR_RATE
at_least "$r1" 1 "museum-entrance rotated"
at_least "$r2" 1 "museum-hall rotated"
at_least "$r3" 1 "museum-shop rotated"
between "$(awk -v a="$r3" -v b="$r1" 'BEGIN { print a / b }')" 0.75 1.33 "museum-shop / museum-entrance rotated (one shared interval)"
onair_expect_rotation "$E2E_OUT/onair-rot.txt"
stop_bg rot TERM
[ "$BG_RC" = 0 ] || fail "exit $BG_RC after SIGTERM"
z_after_stop "$(ibeacon_data 1 1)" "$(ibeacon_data 1 2)" "$(ibeacon_data 1 3 c2)"
# the swaps are data commands only: one enable, one disable (the stop)
log=$(hci_log --since rotation-start hci0)
enables=$(grep -c ' cmd 0x200a 01 ' <<< "$log" || true)
swaps=$(grep -c ' cmd 0x2008 ' <<< "$log" || true)
echo "advertising enabled $enables time(s), $swaps data commands"
[ "$enables" = 1 ] || fail "advertising was enabled $enables times, want 1 (a rotation swaps data only)"
[ "$swaps" -ge 40 ] || fail "only $swaps data commands in 11 s of a 200 ms rotation"
