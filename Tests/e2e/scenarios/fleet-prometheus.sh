#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# fleet-prometheus (issue 22): the real node_exporter (textfile collector on our directory, loopback
# only) serves what a 3-beacon kiosk on hci0 says (start --metrics), what a listener on hci1 hears
# (scan --expect, with one expected beacon nobody advertises) and what beacon-tx status says every
# timer period; `hciconfig hci0 reset` adds exactly one re-arm; after kill -9 of the kiosk the
# scrape says beacon_tx_status_running 0 within the shipped timer's period (plus a few seconds).
# Emulated: the systemd timer is a shell loop with the period and the command of
# Config/beacon-tx-status.timer/.service; btvirt forwards advertising only on enable events, so
# rawscan.py re-enables hci1's scan every 0.5 s next to the listener (a real controller reports
# every advertising event by itself).
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"
need_beacon_tx
NE=$(command -v prometheus-node-exporter) || fail "prometheus-node-exporter missing (apt-get install prometheus-node-exporter)"
ip link set lo up 2> /dev/null || true
T=/tmp/textfile
mkdir -p "$T"
UUID=E2C56DB5-DFFB-48D2-B060-D0F5A71096E0
beacon() { echo "{\"identifier\": \"$1\", \"uuid\": \"$UUID\", \"major\": 1, \"minor\": $2}"; }
cat > /tmp/kiosk17.json <<EOF_K
{"device": "hci0", "metrics": "$T/beacon-tx.prom",
 "beacons": [$(beacon entrance 1), $(beacon hall 2), $(beacon shop 3)]}
EOF_K
echo "{\"beacons\": [$(beacon cellar 9)]}" > /tmp/cellar.json

cleanup() {
  for n in listener status-timer node_exporter kiosk; do
    [ -s "$E2E_OUT/.bg-$n.pid" ] && stop_bg "$n" TERM
  done
  _e2e_exit
}
trap cleanup EXIT

run_bg node_exporter "$NE" --web.listen-address=127.0.0.1:9100 --collector.disable-defaults --collector.textfile \
  --collector.textfile.directory="$T"
# scrape: our series of /metrics into scrape.txt; value SERIES: its value in the last scrape (labels
# as node_exporter sorts them: alphabetically). The parsers turn bash -x off (trace.log stays short).
scrape() {
  local -
  set +x
  local l out=()
  while IFS= read -r l; do [[ $l == beacon_tx_* || $l == node_textfile_scrape_error* ]] && out+=("$l"); done \
    < <(curl -sf --max-time 5 http://127.0.0.1:9100/metrics || true)
  [ ${#out[@]} -gt 0 ] || return 1
  printf '%s\n' "${out[@]}" > "$E2E_OUT/scrape.txt"
}
value() {
  local -
  set +x
  local l
  while IFS= read -r l; do [[ $l == "$1 "* ]] && { echo "${l##* }"; return 0; }; done < "$E2E_OUT/scrape.txt"
  echo absent
}
is() { [ "$(value "$1")" = "$2" ] || { scrape && [ "$(value "$1")" = "$2" ]; }; }
expect_series() { wait_until "${3:-20}" is "$1" "$2" || fail "$1 is $(value "$1"), expected $2"; }
rearms() {   # the sum of beacon_tx_rearms_total over its reasons, in the last scrape
  local -
  set +x
  local l n=0
  while IFS= read -r l; do [[ $l == beacon_tx_rearms_total\{* ]] && n=$((n + ${l##* })); done < "$E2E_OUT/scrape.txt"
  echo "$n"
}
series() { local l; while IFS= read -r l; do [[ $l == beacon_tx_* ]] && echo "$l"; done < "$E2E_OUT/scrape.txt"; return 0; }
wait_until 30 scrape || fail "node_exporter does not answer on 127.0.0.1:9100: $(tail -n 3 "$E2E_OUT/node_exporter.log")"

# The shipped timer, emulated: its period and its command, into our directory.
period=$(sed -n 's/^OnUnitActiveSec=\([0-9]*\)s$/\1/p' "$REPO/Config/beacon-tx-status.timer")
args=$(sed -n 's|^ExecStart=/usr/local/bin/beacon-tx ||p' "$REPO/Config/beacon-tx-status.service")
[ -n "$period" ] && [ "$args" = "status --metrics /var/lib/prometheus/node-exporter/beacon-tx-status.prom" ] ||
  fail "unexpected timer period '$period' or command '$args'"
step "status every $period s (beacon-tx-status.timer)"
run_bg status-timer bash -c "trap 'exit 0' TERM; while :; do '$BEACON_TX' status --metrics '$T/beacon-tx-status.prom'; sleep $period & wait \$!; done"

scan_start hci1 --mode extended --reenable 0.5     # the bed's re-enabler (see above), before the listener
run_bg listener "$BEACON_TX" scan --device hci1 --expect /tmp/kiosk17.json --expect /tmp/cellar.json --window 10 \
  --metrics "$T/beacon-tx-listener.prom"
wait_until 15 _has_line "$E2E_OUT/listener.log" 'beacon-tx: listening on hci1' || fail "listener did not start: $(tail -n 3 "$E2E_OUT/listener.log")"
kiosk_start kiosk --config /tmp/kiosk17.json

step "on air, heard, one missing"
b() { echo "{device=\"$1\",identifier=\"$2\",major=\"1\",minor=\"$3\",uuid=\"$UUID\"}"; }
for m in "entrance 1" "hall 2" "shop 3"; do
  set -- $m
  expect_series "beacon_tx_beacon_on_air$(b hci0 "$1" "$2")" 1
  expect_series "beacon_tx_expected_beacon_heard$(b hci1 "$1" "$2")" 1
done
expect_series 'beacon_tx_session_up{device="hci0"}' 1
expect_series 'beacon_tx_session_info{device="hci0",family="extended",layout="sets"}' 1
expect_series 'beacon_tx_advertising_sets{device="hci0"}' 3
expect_series "beacon_tx_expected_beacon_heard$(b hci1 cellar 9)" 0
expect_series 'beacon_tx_listener_up{device="hci1"}' 1
expect_series 'beacon_tx_status_running{device="hci0"}' 1 $((period + 10))
expect_series 'beacon_tx_status_on_air{device="hci0"}' 1 $((period + 10))
[ "$(value 'node_textfile_scrape_error')" = 0 ] || fail "node_textfile_scrape_error $(value node_textfile_scrape_error)"
[ "$(rearms)" = 0 ] || fail "re-arms before any event: $(rearms)"
cp "$E2E_OUT/scrape.txt" "$E2E_OUT/scrape-on-air.txt"
series

step "hciconfig hci0 reset: one re-arm"
hciconfig hci0 reset
kiosk_rearmed kiosk ""
wait_until 10 eval 'scrape && [ "$(rearms)" -ge 1 ]' || fail "the re-arm counter did not move: $(rearms)"
_sleep 2
scrape
[ "$(rearms)" = 1 ] || fail "re-arms after one hciconfig reset: $(rearms), expected 1"
series | grep -E 'rearms_total.* 1$|last_rearm'
expect_series "beacon_tx_beacon_on_air$(b hci0 hall 2)" 1

step "kill -9: the fleet sees the kiosk down"
kill -KILL "$KIOSK_PID"
killed=$EPOCHREALTIME
wait "$KIOSK_PID" 2> /dev/null || true
rm -f "$E2E_OUT/.bg-kiosk.pid"
expect_series 'beacon_tx_status_running{device="hci0"}' 0 $((period + 10))
seen=$EPOCHREALTIME
delay=$(awk "BEGIN{printf \"%.1f\", $seen - $killed}")
echo "kill -9 to beacon_tx_status_running 0 in the scrape: $delay s (timer period $period s)"
awk "BEGIN{exit !($seen - $killed <= $period + 5)}" || fail "down seen after $delay s, more than the period $period s + 5 s"
[ "$(value "beacon_tx_beacon_on_air$(b hci0 hall 2)")" = 1 ] || fail "the dead kiosk's own file changed"
echo "the killed kiosk's own file still says on air (nobody wrote it since): beacon_tx_beacon_on_air$(b hci0 hall 2) 1"
cp "$E2E_OUT/scrape.txt" "$E2E_OUT/scrape-killed.txt"

step "the listener stops cleanly"
stop_bg listener TERM
[ "$BG_RC" = 0 ] || fail "listener exited $BG_RC: $(tail -n 3 "$E2E_OUT/listener.log")"
expect_series 'beacon_tx_listener_up{device="hci1"}' 0
cat "$E2E_OUT/listener.log"
