#!/bin/bash
# e2e-controllers: rootcanal default
# rc-kiosk (issue 20): Config/museum.json measured at the receiver, on RootCanal's DEFAULT controller.
# - extended: three sets, each beacon at its own interval: museum-shop's "interval": 200 is heard
#   about half as often as the two 100 ms beacons (0.3-0.8 of their rate asserted: an overloaded
#   bed drops more reports of the faster ones);
# - legacy (one rotated instance, dwell 200 ms): the three beacons share the top-level 100 ms
#   interval (README "One instance, one interval"): the shop is heard as often as the others, each
#   about a third of the time; the receiver's runs measure the dwell; every beacon's largest gap
#   stays below three cycles (1.8 s); the shop is heard at least once a second;
# - `hciconfig hci0 reset` during the rotation: the same process re-arms it (first report heard
#   again, timed from the reset);
# - --random-address-per-set (extended): each beacon heard from its own random static address.
. "$(dirname "$0")/rc.inc"
MUSEUM=$REPO/Config/museum.json
rc_rx
addr=$(bdaddr hci0)

step "museum.json, extended: one set per beacon"
rc_reset_hci0
kiosk_start ext --config "$MUSEUM" --controller extended
_sleep 1
t0=$EPOCHREALTIME; _sleep 6; t1=$EPOCHREALTIME
stop_bg ext TERM
[ "$BG_RC" = 0 ] || fail "exit $BG_RC after SIGTERM"
_log_has "$E2E_OUT/ext.log" "sets 239, 238, 237" || fail "not three sets: $(cat "$E2E_OUT/ext.log")"
rc_onair --since "$t0" --until "$t1" --addr "$addr" | tee "$E2E_OUT/onair-ext.txt"
rc_rate 1.1 --since "$t0" --until "$t1" --addr "$addr"; r1=$RC_RATE
rc_rate 1.3 --since "$t0" --until "$t1" --addr "$addr"; r3=$RC_RATE
rc_at_least "$r1" 3 "museum-entrance (100 ms) on its own set"
rc_between "$(awk -v a="$r3" -v b="$r1" 'BEGIN { print a / b }')" 0.3 0.8 "museum-shop (200 ms) / museum-entrance (100 ms) on sets"

step "museum.json, legacy: one rotated instance"
rc_reset_hci0
kiosk_start rot --config "$MUSEUM" --controller legacy
cat "$E2E_OUT/rot.log"
_log_has "$E2E_OUT/rot.log" "rotating every 200 ms, each beacon every 600 ms, 100.000 msec (0x00a0)" || fail "no rotation note"
_log_has "$E2E_OUT/rot.log" "beacon 3 (museum-shop): interval 200.000 msec (0x0140) is not applied" || fail "no warning for the shop's interval"
_sleep 1
t0=$EPOCHREALTIME; _sleep 10; t1=$EPOCHREALTIME
rc_onair --since "$t0" --until "$t1" --addr "$addr" --dwell 200 | tee "$E2E_OUT/onair-rot.txt"
rc_rate 1.1 --since "$t0" --until "$t1" --addr "$addr"; r1=$RC_RATE
rc_rate 1.3 --since "$t0" --until "$t1" --addr "$addr"; r3=$RC_RATE
rc_at_least "$r3" 1 "museum-shop rotated"
rc_between "$(awk -v a="$r3" -v b="$r1" 'BEGIN { print a / b }')" 0.75 1.33 "museum-shop / museum-entrance rotated (one shared interval)"
while read -r l; do
  [[ $l == beacon* ]] || continue
  g=${l#* max_gap_s=}; g=${g%% *}
  rc_at_least 1.8 "$g" "largest gap of ${l%% addr=*} (three cycles of 600 ms)"
done < "$E2E_OUT/onair-rot.txt"
d=$(rc_onair --since "$t0" --until "$t1" --addr "$addr" --dwell 200 | sed -n 's/^dwell .*median_ms=\([0-9.]*\).*/\1/p')
rc_between "$d" 170 260 "median dwell measured at the receiver"

step "hciconfig hci0 reset during the rotation"
tr=$EPOCHREALTIME
hciconfig hci0 reset
kiosk_rearmed rot "another program reset hci0"
wait_until 10 _rc_heard_after "$tr" || fail "nothing heard after the reset"
rc_onair --after "$tr" --addr "$addr" | tee "$E2E_OUT/onair-rearm.txt"
kiosk_expect_alive rot
stop_bg rot TERM
[ "$BG_RC" = 0 ] || fail "exit $BG_RC after SIGTERM"

step "--random-address-per-set: one address per beacon"
rc_reset_hci0
kiosk_start own --config "$MUSEUM" --controller extended --random-address-per-set
_sleep 3
stop_bg own TERM
"$BEACON_TX" start --config "$MUSEUM" --controller extended --random-address-per-set --dry-run --format hex > "$E2E_OUT/own.hex"
for m in 1 2 3; do
  a=$(sed -n 's/^01352007\(..\)\(..\)\(..\)\(..\)\(..\)\(..\)\(..\)$/\7:\6:\5:\4:\3:\2/p' "$E2E_OUT/own.hex" | sed -n "${m}p" | tr a-f A-F)
  [ -n "$a" ] || fail "no LE Set Advertising Set Random Address for beacon $m in the dry run"
  expect_adv_data -s hci1 -a "$a" "$(rc_data 1 "$m" "$( [ "$m" = 3 ] && echo c2 || echo c5)")"
  echo "beacon 1.$m heard from $a"
done
