# SPDX-License-Identifier: Apache-2.0
# boot: main
# e2e-timeout: 420
# Issues 22 and 31 under the package: `apt-get install ./beacon-tx_*.deb` beside Debian's
# prometheus-node-exporter (its own unit, its default textfile directory
# /var/lib/prometheus/node-exporter; only ARGS set: loopback, textfile collector alone), and the
# package's defaults: no "metrics" in /etc/beacon-tx/kiosk.json (3 beacons), no drop-in. The kiosk
# unit and the template instance beacon-tx@hci1 (DynamicUsers) keep their files beside their state
# files, beacon-tx-status.timer (started by the kiosk unit, the real timer) publishes them, and
# /metrics on 127.0.0.1:9100 shows both units' per-beacon series within one timer period, with
# no warning in either unit's journal. Then, with hci1 given to a listener (scan --expect, one
# expected beacon nobody advertises), its series and the status. Then kill -9 of the kiosk: with the packaged unit (systemd restarts it 3 s later)
# and with its restart held back (a drop-in RestartSec=120): the time until the scrape says
# beacon_tx_status_running 0 (the unit's ExecStopPost runs the status service before systemd
# removes the runtime directory), and that it stays 0 after the timer's next runs. Then
# systemctl stop: the kiosk's series go (stopped is not down).
# Emulated: btvirt forwards advertising only on enable events, so the bed's receiver re-enables
# hci1's scan every 0.5 s next to the listener.
. "$BED/lib.sh"

TEXTFILE=/var/lib/prometheus/node-exporter
UUID=E2C56DB5-DFFB-48D2-B060-D0F5A71096E0
LISTENER=
DROPIN=/run/systemd/system/beacon-tx.service.d/e2e-restart-later.conf
cleanup() {
  [ -z "$LISTENER" ] || { kill -TERM "$LISTENER" 2> /dev/null || true; wait "$LISTENER" 2> /dev/null || true; }
  systemctl stop prometheus-node-exporter.service 2> /dev/null || true
  if [ -e "$DROPIN" ]; then rm -f "$DROPIN"; systemctl daemon-reload; fi
  config_restore "$KIOSK"
  systemctl stop beacon-tx@hci1.service 2> /dev/null || true
  rm -f /etc/beacon-tx/hci1.json
  systemctl restart beacon-tx.service 2> /dev/null || true
  _e2e_exit
}
trap cleanup EXIT

step "install beside Debian's node_exporter"
package_installed || package_install
command -v prometheus-node-exporter > /dev/null || fail "prometheus-node-exporter is not installed (apt-get install prometheus-node-exporter)"
echo "textfile directory: $(stat -c '%U:%G %a' "$TEXTFILE")"
rm -f "$TEXTFILE"/beacon-tx*.prom
echo 'ARGS="--web.listen-address=127.0.0.1:9100 --collector.disable-defaults --collector.textfile"' > /etc/default/prometheus-node-exporter
systemctl start prometheus-node-exporter.service || fail "prometheus-node-exporter: $(unit_log prometheus-node-exporter 5)"

beacon() { echo "{\"identifier\": \"$1\", \"uuid\": \"$UUID\", \"major\": 1, \"minor\": $2}"; }
config_set "$KIOSK" "beacons=[$(beacon entrance 1), $(beacon hall 2), $(beacon shop 3)]"
grep -q '"metrics"' "$KIOSK" && fail "$KIOSK sets metrics: this scenario is about the defaults"
echo "{\"beacons\": [$(beacon cellar 9)]}" > /tmp/cellar.json
echo "{\"device\": \"hci1\", \"beacons\": [$(beacon annex 21)]}" > /etc/beacon-tx/hci1.json
hci_up hci0
hci_up hci1
journal_mark
systemctl restart beacon-tx.service || fail "systemctl restart beacon-tx: $(unit_log beacon-tx 8)"
t_kiosk=$(now_us)    # Type=notify: the unit is active once its beacons are on air
systemctl start beacon-tx@hci1.service || fail "systemctl start beacon-tx@hci1: $(unit_log beacon-tx@hci1 8)"
t_instance=$(now_us)
expect_prop beacon-tx-status.timer ActiveState active

# scrape: our series of /metrics into scrape.txt; value SERIES: its value there (labels sorted
# as node_exporter prints them), "absent" when it is not there.
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
is() { scrape && [ "$(value "$1")" = "$2" ]; }
expect_series() { wait_until "${3:-40}" is "$1" "$2" || fail "$1 is $(value "$1"), expected $2"; }
b() { echo "{device=\"$1\",identifier=\"$2\",major=\"1\",minor=\"$3\",uuid=\"$UUID\"}"; }

step "the package's defaults: both units' per-beacon series, published by the timer"
# one scrape per look, every series of a unit in it; each unit timed from its own start
seen_kiosk= seen_instance=
look() {
  scrape || return 1
  [ -n "$seen_kiosk" ] || { [ "$(value "beacon_tx_beacon_on_air$(b hci0 entrance 1)")" = 1 ] && [ "$(value "beacon_tx_beacon_on_air$(b hci0 hall 2)")" = 1 ] &&
    [ "$(value "beacon_tx_beacon_on_air$(b hci0 shop 3)")" = 1 ] && seen_kiosk=$(now_us); }
  [ -n "$seen_instance" ] || { [ "$(value "beacon_tx_beacon_on_air$(b hci1 annex 21)")" = 1 ] && seen_instance=$(now_us); }
  [ -n "$seen_kiosk" ] && [ -n "$seen_instance" ]
}
wait_until 40 look || fail "per-beacon series missing from /metrics: $(grep beacon_on_air "$E2E_OUT/scrape.txt" | tr '\n' ' ')"
k=$(( seen_kiosk - t_kiosk )) i=$(( seen_instance - t_instance ))
note "fleet-metrics: package defaults: unit active (on air) to its per-beacon series in /metrics: beacon-tx $(_secs $k) s, beacon-tx@hci1 $(_secs $i) s (timer period 15 s; one status run under TCG takes 1-3 s)"
# one period, plus the status run's own time and the scrapes under TCG (the kill bound below is the same)
[ $k -le 25000000 ] && [ $i -le 25000000 ] || fail "the series took $(_secs $k) s / $(_secs $i) s, more than one timer period (15 s) plus 10 s"
expect_series 'beacon_tx_session_info{device="hci1",family="extended",layout="sets"}' 1
expect_series 'beacon_tx_status_running{device="hci1"}' 1
[ "$(value node_textfile_scrape_error)" = 0 ] || fail "node_textfile_scrape_error $(value node_textfile_scrape_error)"
grep '^beacon_tx_build_info' "$E2E_OUT/scrape.txt" || fail "no beacon_tx_build_info in /metrics"
grep -q '^beacon_tx_build_info{[^}]*device=' "$E2E_OUT/scrape.txt" && fail "beacon_tx_build_info has a device label"
ls -l "$TEXTFILE" /run/beacon-tx /run/beacon-tx/hci1
# systemd 252 (Debian 12) says once per unit load that it ignores the back-off keys of systemd 254
# (RestartSteps=, RestartMaxDelaySec=; scripts/verify-unit expects exactly that): systemd's note on
# the unit file, not a warning of beacon-tx's.
warnings=$(journal_since -p warning -u beacon-tx.service -u beacon-tx@hci1.service -u beacon-tx-status.service |
  grep -Ev "systemd\[1\]: /lib/systemd/system/beacon-tx(@)?\.service:[0-9]+: Unknown key '(RestartSteps|RestartMaxDelaySec)' in section \[Service\], ignoring\.$" || true)
[ -z "$warnings" ] || fail "warnings in the journal with the package's defaults: $warnings"
echo "journal (beacon-tx, beacon-tx@hci1, beacon-tx-status), priority warning and above: nothing"
systemctl stop beacon-tx@hci1.service
expect_series "beacon_tx_beacon_on_air$(b hci1 annex 21)" absent
rm -f /etc/beacon-tx/hci1.json

step "a listener on hci1"
rx_start hci1      # the bed's re-enabler (btvirt), beside the listener
/usr/bin/beacon-tx scan --device hci1 --expect "$KIOSK" --expect /tmp/cellar.json --window 10 \
  --metrics "$TEXTFILE/beacon-tx-listener.prom" > "$E2E_OUT/listener.log" 2>&1 &
LISTENER=$!

step "the kiosk's series, published by the timer"
t0=$(now_us)
for m in "entrance 1" "hall 2" "shop 3"; do
  set -- $m
  expect_series "beacon_tx_beacon_on_air$(b hci0 "$1" "$2")" 1
done
note "fleet-metrics: restart to the kiosk's on-air series in /metrics: $(_secs $(( $(now_us) - t0 ))) s (timer period 15 s)"
for m in "entrance 1" "hall 2" "shop 3"; do
  set -- $m
  expect_series "beacon_tx_expected_beacon_heard$(b hci1 "$1" "$2")" 1
done
expect_series "beacon_tx_expected_beacon_heard$(b hci1 cellar 9)" 0
expect_series 'beacon_tx_session_info{device="hci0",family="extended",layout="sets"}' 1
expect_series 'beacon_tx_status_running{device="hci0"}' 1
[ "$(value node_textfile_scrape_error)" = 0 ] || fail "node_textfile_scrape_error $(value node_textfile_scrape_error)"
ls -l "$TEXTFILE" /run/beacon-tx
journalctl -u beacon-tx.service --no-pager -q -n 20 | grep -i metrics || true
head -n 1 "$TEXTFILE/beacon-tx-hci0.prom"
cp "$E2E_OUT/scrape.txt" "$E2E_OUT/scrape-on-air.txt"
grep -E '_on_air|_heard|session_up|session_info|status_running|listener_up' "$E2E_OUT/scrape.txt"

step "kill -9, the packaged unit (restarted 3 s later)"
pid=$(unit_pid beacon-tx.service)
started=$(value 'beacon_tx_session_start_timestamp_seconds{device="hci0"}')
kill -KILL "$pid"
t0=$(now_us)
down=
back() { scrape; [ -z "$down" ] && [ "$(value 'beacon_tx_status_running{device="hci0"}')" = 0 ] && down=$(now_us)
  [ "$(value 'beacon_tx_status_running{device="hci0"}')" = 1 ] && [ "$(value "beacon_tx_beacon_on_air$(b hci0 hall 2)")" = 1 ] &&
    [ "$(value 'beacon_tx_session_start_timestamp_seconds{device="hci0"}')" != "$started" ]; }
wait_until 60 back || fail "the restarted kiosk is not back in /metrics: $(grep -E 'status_running|session_start' "$E2E_OUT/scrape.txt" | tr '\n' ' ')"
[ "$(unit_pid beacon-tx.service)" != "$pid" ] || fail "same MainPID after kill -9"
[ -n "$down" ] || fail "the restart came and went without beacon_tx_status_running 0 in /metrics (ExecStopPost)"
note "fleet-metrics: kill -9 under the packaged unit: beacon_tx_status_running 0 in /metrics after $(_secs $(( down - t0 ))) s, back (new pid, on air) after $(_secs $(( $(now_us) - t0 ))) s; NRestarts=$(prop beacon-tx.service NRestarts)"

step "kill -9, restart held back: the fleet sees the kiosk down"
mkdir -p "${DROPIN%/*}"
printf '[Service]\nRestartSec=120\n' > "$DROPIN"
systemctl daemon-reload
pid=$(unit_pid beacon-tx.service)
kill -KILL "$pid"
t0=$(now_us)
expect_series 'beacon_tx_status_running{device="hci0"}' 0 40
delay=$(( $(now_us) - t0 ))
note "fleet-metrics: kill -9 to beacon_tx_status_running{device=\"hci0\"} 0 in /metrics: $(_secs $delay) s (timer period 15 s, Prometheus would add its scrape interval)"
[ $delay -le 25000000 ] || fail "down seen after $(_secs $delay) s, more than the timer's 15 s + 10 s"
echo "unit: $(prop beacon-tx.service ActiveState)/$(prop beacon-tx.service SubState); the killed kiosk's own series: beacon_tx_beacon_on_air$(b hci0 hall 2) $(value "beacon_tx_beacon_on_air$(b hci0 hall 2)")"
cp "$E2E_OUT/scrape.txt" "$E2E_OUT/scrape-killed.txt"
_sleep 20    # the timer's next run: the runtime directory has gone, down stays down
scrape
[ "$(value 'beacon_tx_status_running{device="hci0"}')" = 0 ] || fail "20 s after the kill: beacon_tx_status_running{device=\"hci0\"} $(value 'beacon_tx_status_running{device="hci0"}'), expected 0"
echo "the runtime directory: $(ls -d /run/beacon-tx 2> /dev/null || echo "removed by systemd")"
echo "20 s later: beacon_tx_status_running{device=\"hci0\"} 0, kiosk series: $(grep -c '^beacon_tx_beacon_on_air' "$E2E_OUT/scrape.txt" || true) (the copy goes with its source)"
rm -f "$DROPIN"
systemctl daemon-reload
systemctl restart beacon-tx.service
expect_series 'beacon_tx_status_running{device="hci0"}' 1
expect_series "beacon_tx_beacon_on_air$(b hci0 hall 2)" 1

step "systemctl stop: the kiosk's series go (stopped is not down)"
systemctl stop beacon-tx.service
t0=$(now_us)
expect_series "beacon_tx_beacon_on_air$(b hci0 hall 2)" absent
expect_series 'beacon_tx_status_running{device="hci0"}' absent
note "fleet-metrics: systemctl stop to no kiosk series in /metrics: $(_secs $(( $(now_us) - t0 ))) s"
[ -z "$(ls "$TEXTFILE"/beacon-tx-hci0.prom 2> /dev/null)" ] || fail "$TEXTFILE/beacon-tx-hci0.prom is still there"
# the listener's ears: silence is missing after its window (10 s)
expect_series "beacon_tx_expected_beacon_heard$(b hci1 hall 2)" 0
grep -E '_heard|status_|listener_up' "$E2E_OUT/scrape.txt"
