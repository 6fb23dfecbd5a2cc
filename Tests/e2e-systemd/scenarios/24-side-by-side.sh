# SPDX-License-Identifier: Apache-2.0
# boot: main
# Issue 31 item 1: the kiosk unit (hci0) and beacon-tx@hci1 side by side, each with its own
# runtime directory (/run/beacon-tx/kiosk, /run/beacon-tx/hci1). `systemctl stop beacon-tx`
# removes only the kiosk's: `beacon-tx status --device hci1` (as nobody) still says on air
# (exit 0), the receiver on hci0 still hears hci1's beacons from the same process, and hci1's
# lock still refuses a second session (exit 75). Also the shipped unit settings under this
# systemd (252): WatchdogSec 30 s, TimeoutStopSec 90 s, no Wants=bluetooth.service, and
# RestartSteps=/RestartMaxDelaySec= ignored with a warning while the units run.
. "$BED/lib.sh"

package_installed || package_install
template_config hci1 24
ids1=("${ids[@]}")
hci_up hci0
hci_up hci1
step "both units"
systemctl reset-failed beacon-tx.service beacon-tx@hci1.service 2> /dev/null || true
systemctl start beacon-tx.service beacon-tx@hci1.service ||
  fail "systemctl start: $(unit_log beacon-tx.service 5) $(unit_log beacon-tx@hci1.service 5)"
wait_until 15 beacon-tx status --device hci0 > /dev/null || fail "hci0 not on air: $(beacon-tx status 2>&1)"
wait_until 15 beacon-tx status --device hci1 > /dev/null || fail "hci1 not on air: $(beacon-tx status 2>&1)"
ls -ln /run/beacon-tx /run/beacon-tx/*
[ -f /run/beacon-tx/hci1/hci1.json ] || fail "no /run/beacon-tx/hci1/hci1.json"
for u in beacon-tx.service beacon-tx@hci1.service; do
  expect_prop "$u" WatchdogUSec 30s
  expect_prop "$u" TimeoutStopUSec "1min 30s"
  [[ " $(prop "$u" Wants) " != *" bluetooth.service "* ]] || fail "$u wants bluetooth.service"
  [[ " $(prop "$u" After) " == *" bluetooth.service "* ]] || fail "$u is not ordered after bluetooth.service"
done
warned=$(journalctl -b --no-pager -q _PID=1 | grep -cE "beacon-tx.*Unknown key.*(RestartSteps|RestartMaxDelaySec)" || true)
echo "systemd $(systemctl --version | head -n 1 | cut -d' ' -f2): $warned 'Unknown key' lines for RestartSteps/RestartMaxDelaySec"
[ "$warned" -ge 2 ] || fail "systemd 252 did not warn about RestartSteps/RestartMaxDelaySec (are they in the units?)"
pid1=$(unit_pid beacon-tx@hci1.service)
rx_start hci0
expect_heard 10 "${ids1[@]}"

step "stop the kiosk"
systemctl stop beacon-tx.service
expect_prop beacon-tx.service ActiveState inactive
[ ! -e /run/beacon-tx/kiosk ] || fail "/run/beacon-tx/kiosk is still there after the kiosk's stop"
[ -f /run/beacon-tx/hci1/hci1.json ] || fail "the kiosk's stop removed hci1's state: $(ls -lR /run/beacon-tx 2>&1)"
rc=0; out=$(runuser -u nobody -- /usr/bin/beacon-tx status --device hci1 2>&1) || rc=$?
echo "$out"
[ $rc = 0 ] && [[ $out == *"hci1: on air"* ]] || fail "status --device hci1 after the kiosk's stop: exit $rc: $out"
rc=0; out=$(beacon-tx status --device hci0 2>&1) || rc=$?
[ $rc = 3 ] || fail "status --device hci0 after the kiosk's stop: exit $rc (expected 3): $out"
rx_clear
expect_heard 10 "${ids1[@]}"
[ "$(unit_pid beacon-tx@hci1.service)" = "$pid1" ] || fail "beacon-tx@hci1's MainPID changed: $pid1 -> $(unit_pid beacon-tx@hci1.service)"
expect_prop beacon-tx@hci1.service NRestarts 0
rc=0; out=$(timeout 20 beacon-tx start --device hci1 --config "$conf" 2>&1) || rc=$?
echo "second session on hci1: exit $rc: $out"
[ $rc = 75 ] && [[ $out == *"pid $pid1"* ]] || fail "a second session on hci1: exit $rc (expected 75 naming pid $pid1): $out"

step "kiosk restarted beside it"
systemctl start beacon-tx.service
systemctl restart beacon-tx.service
beacon-tx status --device hci1 > /dev/null || fail "hci1 off air after the kiosk's restart: $(beacon-tx status --device hci1 2>&1)"
systemctl stop beacon-tx@hci1.service
expect_prop beacon-tx@hci1.service Result success
[ ! -e /run/beacon-tx/hci1 ] || fail "/run/beacon-tx/hci1 is still there after its stop"
beacon-tx status --device hci0 > /dev/null || fail "hci0 off air after beacon-tx@hci1's stop: $(beacon-tx status 2>&1)"
rm -f "$conf"
