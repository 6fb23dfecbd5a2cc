#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# e2e-controllers: rootcanal default
# rc-kiosk-rotation (issue 20): Config/museum.json with --controller legacy on RootCanal: one rotated
# instance (dwell 200 ms) whose beacons share the top-level 100 ms interval (Docs/service.md "One instance,
# one interval"): the shop is heard as often as the others (0.75-1.33 of the entrance's rate), at
# least once a second; the receiver's runs give a median dwell of 170-260 ms; every beacon's largest
# gap stays below three cycles (1.8 s). `hciconfig hci0 reset` during the rotation: the same
# process re-arms it and the receiver hears it again (the off-air gap is printed).
. "$(dirname "$0")/rc.inc"
MUSEUM=$REPO/Config/museum.json
onair_rx
addr=$(bdaddr hci0)

step "museum.json, legacy: one rotated instance"
rc_reset_hci0
kiosk_start rot --config "$MUSEUM" --controller legacy
cat "$E2E_OUT/rot.log"
_log_has "$E2E_OUT/rot.log" "rotating every 200 ms, each beacon every 600 ms, 100.000 msec (0x00a0)" || fail "no rotation note"
_log_has "$E2E_OUT/rot.log" "beacon 3 (museum-shop): interval 200.000 msec (0x0140) is not applied" || fail "no warning for the shop's interval"
_sleep 1
t0=$EPOCHREALTIME; _sleep 10; t1=$EPOCHREALTIME
onair_log --since "$t0" --until "$t1" --addr "$addr" --dwell 200 | tee "$E2E_OUT/onair-rot.txt"
onair_rate 1.1 "$E2E_OUT/onair-rot.txt"; r1=$ONAIR_RATE
onair_rate 1.3 "$E2E_OUT/onair-rot.txt"; r3=$ONAIR_RATE
at_least "$r3" 1 "museum-shop rotated"
between "$(awk -v a="$r3" -v b="$r1" 'BEGIN { print a / b }')" 0.75 1.33 "museum-shop / museum-entrance rotated (one shared interval)"
onair_expect_rotation "$E2E_OUT/onair-rot.txt"

step "hciconfig hci0 reset during the rotation"
tr=$EPOCHREALTIME
hciconfig hci0 reset
kiosk_rearmed rot "hci0 up again"   # hciconfig reset is a device down + up through the bridges
wait_until 10 _rc_heard_after "$tr" || fail "nothing heard after the reset"
_sleep 2
onair_log --gap-after "$tr" --addr "$addr" | tee "$E2E_OUT/onair-rearm.txt"
kiosk_expect_alive rot
stop_bg rot TERM
[ "$BG_RC" = 0 ] || fail "exit $BG_RC after SIGTERM"

