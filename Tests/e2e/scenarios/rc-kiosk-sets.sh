#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# e2e-controllers: rootcanal default
# rc-kiosk-sets (issue 20): Config/museum.json on three extended sets of RootCanal's DEFAULT
# controller, measured at the receiver: each beacon at its own interval, museum-shop's "interval":
# 200 heard about half as often as the two 100 ms beacons (0.3-0.8 of their rate asserted: an
# overloaded bed drops more reports of the faster ones); with --random-address-per-set each beacon
# is heard from its own random static address (the dry run's LE Set Advertising Set Random Address).
. "$(dirname "$0")/rc.inc"
MUSEUM=$REPO/Config/museum.json
onair_rx
addr=$(bdaddr hci0)

step "museum.json, extended: one set per beacon"
rc_reset_hci0
kiosk_start ext --config "$MUSEUM" --controller extended
_sleep 1
t0=$EPOCHREALTIME; _sleep 6; t1=$EPOCHREALTIME
stop_bg ext TERM
[ "$BG_RC" = 0 ] || fail "exit $BG_RC after SIGTERM"
_log_has "$E2E_OUT/ext.log" "sets 239, 238, 237" || fail "not three sets: $(cat "$E2E_OUT/ext.log")"
onair_log --since "$t0" --until "$t1" --addr "$addr" | tee "$E2E_OUT/onair-ext.txt"
onair_rate 1.1 "$E2E_OUT/onair-ext.txt"; r1=$ONAIR_RATE
onair_rate 1.3 "$E2E_OUT/onair-ext.txt"; r3=$ONAIR_RATE
at_least "$r1" 3 "museum-entrance (100 ms) on its own set"
between "$(awk -v a="$r3" -v b="$r1" 'BEGIN { print a / b }')" 0.3 0.8 "museum-shop (200 ms) / museum-entrance (100 ms) on sets"

step "--random-address-per-set: one address per beacon"
rc_reset_hci0
kiosk_start own --config "$MUSEUM" --controller extended --random-address-per-set
_sleep 3
stop_bg own TERM
"$BEACON_TX" start --config "$MUSEUM" --controller extended --random-address-per-set --dry-run --format hex > "$E2E_OUT/own.hex"
onair_expect_set_addresses "$E2E_OUT/own.hex"
