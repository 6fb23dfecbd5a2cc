#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# e2e-controllers: zephyr extended
# kiosk-sets-extended: Config/museum.json on Zephyr's extended build (4 advertising sets): one set
# per beacon (239, 238, 237), each at its own interval: museum-shop's 200 ms heard about half as
# often as the 100 ms entrance (0.3-0.8 of its rate), the entrance at least 5 times a second; with
# --random-address-per-set each beacon is heard from its own random static address (the dry run's
# LE Set Advertising Set Random Address). SIGTERM: exit 0, nothing on air.
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"
MUSEUM=$REPO/Config/museum.json
onair_rx

step "museum.json: one set per beacon"
kiosk_start ext --config "$MUSEUM"
cat "$E2E_OUT/ext.log"
_log_has "$E2E_OUT/ext.log" "sets 239, 238, 237" || fail "not three sets: $(cat "$E2E_OUT/ext.log")"
_sleep 1
t0=$EPOCHREALTIME; _sleep 8; t1=$EPOCHREALTIME
stop_bg ext TERM
[ "$BG_RC" = 0 ] || fail "exit $BG_RC after SIGTERM"
onair_log --since "$t0" --until "$t1" | tee "$E2E_OUT/onair-ext.txt"
onair_rate 1.1 "$E2E_OUT/onair-ext.txt"; r1=$ONAIR_RATE
onair_rate 1.2 "$E2E_OUT/onair-ext.txt"; r2=$ONAIR_RATE
onair_rate 1.3 "$E2E_OUT/onair-ext.txt"; r3=$ONAIR_RATE
at_least "$r1" 5 "museum-entrance (100 ms) on its own set"
at_least "$r2" 5 "museum-hall (100 ms) on its own set"
between "$(awk -v a="$r3" -v b="$r1" 'BEGIN { print a / b }')" 0.3 0.8 "museum-shop (200 ms) / museum-entrance (100 ms) on sets"
z_after_stop "$(ibeacon_data 1 1)" "$(ibeacon_data 1 2)" "$(ibeacon_data 1 3 c2)"

step "--random-address-per-set: one address per beacon"
kiosk_start own --config "$MUSEUM" --random-address-per-set
_sleep 4
stop_bg own TERM
[ "$BG_RC" = 0 ] || fail "exit $BG_RC after SIGTERM (--random-address-per-set)"
"$BEACON_TX" start --config "$MUSEUM" --controller extended --random-address-per-set --dry-run --format hex > "$E2E_OUT/own.hex"
onair_expect_set_addresses "$E2E_OUT/own.hex"
