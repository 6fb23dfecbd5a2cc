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
z_rx
hci_mark rotation-start
kiosk_start rot --config "$MUSEUM"
cat "$E2E_OUT/rot.log"
_log_has "$E2E_OUT/rot.log" "rotating every 200 ms" || fail "not rotating: $(cat "$E2E_OUT/rot.log")"
_sleep 1
t0=$EPOCHREALTIME; _sleep 10; t1=$EPOCHREALTIME
z_onair --since "$t0" --until "$t1" --dwell 200 | tee "$E2E_OUT/onair-rot.txt"
z_rate 1.1 --since "$t0" --until "$t1"; r1=$Z_RATE
z_rate 1.2 --since "$t0" --until "$t1"; r2=$Z_RATE
z_rate 1.3 --since "$t0" --until "$t1"; r3=$Z_RATE
z_at_least "$r1" 1 "museum-entrance rotated"
z_at_least "$r2" 1 "museum-hall rotated"
z_at_least "$r3" 1 "museum-shop rotated"
z_between "$(awk -v a="$r3" -v b="$r1" 'BEGIN { print a / b }')" 0.75 1.33 "museum-shop / museum-entrance rotated (one shared interval)"
while read -r l; do
  [[ $l == beacon* ]] || continue
  g=${l#* max_gap_s=}; g=${g%% *}
  z_at_least 1.8 "$g" "largest gap of ${l%% addr=*} (three cycles of 600 ms)"
done < "$E2E_OUT/onair-rot.txt"
d=$(sed -n 's/^dwell .*median_ms=\([0-9.]*\).*/\1/p' "$E2E_OUT/onair-rot.txt")
z_between "$d" 170 260 "median dwell measured at the receiver"
stop_bg rot TERM
[ "$BG_RC" = 0 ] || fail "exit $BG_RC after SIGTERM"
z_after_stop "$(z_data 1 1)" "$(z_data 1 2)" "$(z_data 1 3 c2)"
# the swaps are data commands only: one enable, one disable (the stop)
log=$(hci_log --since rotation-start hci0)
enables=$(grep -c ' cmd 0x200a 01 ' <<< "$log" || true)
swaps=$(grep -c ' cmd 0x2008 ' <<< "$log" || true)
echo "advertising enabled $enables time(s), $swaps data commands"
[ "$enables" = 1 ] || fail "advertising was enabled $enables times, want 1 (a rotation swaps data only)"
[ "$swaps" -ge 40 ] || fail "only $swaps data commands in 11 s of a 200 ms rotation"
