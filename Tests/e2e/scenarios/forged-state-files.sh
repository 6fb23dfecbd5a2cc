#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# forged-state-files: what other users write into the state directories is believed only where it
# belongs and while its pid holds the device's lock, is printed escaped, and is published bounded.
# - the template unit's user (nobody, owning /run/beacon-tx/hci1) writes hci0.json naming a live
#   root process while the kiosk on hci0 is dead (its state file left in kiosk/): root's status
#   says hci0 is not running (exit 3, beacon_tx_status_running 0);
# - a state file whose status text carries a window title and a green "ALL GOOD": root's doctor
#   prints them escaped;
# - a link planted as a state file, to a root-only file: nothing of that file is printed;
# - a running kiosk's metrics file hard-linked 100 times: no copy; with a node_systemd_unit_state
#   series added: published without it; each refusal counted (beacon_tx_publish_refused_total);
# - a symbolic link planted at --output in nobody's directory: refused (exit 73), its target intact.
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"
need_beacon_tx
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all "$@"; }
state() {   # state PID STATUS: a state file of hci0, as JSON
  printf '{"device":"hci0","pid":%s,"onAir":true,"status":"%s","family":"extended","sets":[239],"rotation":false,"beacons":[],"since":1800000000,"lastRearm":null}' "$1" "$2"
}
ESC=$'\x1b'

step "a dead kiosk, and hci1's user claiming hci0 for a live root process"
rm -f /run/beacon-tx/hci0.json   # left by an earlier scenario's root session in this guest
mkdir -p /run/beacon-tx/kiosk /run/beacon-tx/hci1
chown nobody /run/beacon-tx/kiosk /run/beacon-tx/hci1
sleep 300 & victim=$!
as_nobody sh -c "printf '%s' '$(state 999999 "1 beacon on air on hci0 (extended set 239)")' > /run/beacon-tx/kiosk/hci0.json"
as_nobody sh -c "printf '%s' '$(state "$victim" "1 beacon on air on hci0 (extended set 239)")' > /run/beacon-tx/hci1/hci0.json"
as_nobody sh -c "printf '%s' '$(state "$victim" "1 beacon on air on hci0 (extended set 239)")' > /run/beacon-tx/hci1/hci00.json"
rc=0; "$BEACON_TX" status --device hci0 > "$E2E_OUT/status-dead.txt" 2>&1 || rc=$?
cat "$E2E_OUT/status-dead.txt"
[ "$rc" = 3 ] || fail "status on the dead kiosk exited $rc, want 3"
grep -q '^hci0: nothing on air (beacon-tx pid 999999 is not running; stale state from .* in /run/beacon-tx/kiosk/hci0.json)$' "$E2E_OUT/status-dead.txt" ||
  fail "status does not report the dead kiosk"
"$BEACON_TX" status --format prometheus > "$E2E_OUT/status-dead.prom" || true
grep -q '^beacon_tx_status_running{device="hci0"} 0$' "$E2E_OUT/status-dead.prom" || fail "running is not 0: $(grep running "$E2E_OUT/status-dead.prom")"
! grep -q 'hci00' "$E2E_OUT/status-dead.prom" || fail "hci00 counted as a device"

step "escape sequences in a state file reach root's terminal escaped"
as_nobody sh -c "printf '%s' '$(state 999999 '\u001b]0;pwned\u0007\u001b[1;32mALL GOOD\u001b[0m')' > /run/beacon-tx/kiosk/hci0.json"
"$BEACON_TX" doctor --device hci0 > "$E2E_OUT/doctor-escape.txt" 2>&1 || true
"$BEACON_TX" status > "$E2E_OUT/status-escape.txt" 2>&1 || true
grep 'session' "$E2E_OUT/doctor-escape.txt"
! grep -q "$ESC" "$E2E_OUT/doctor-escape.txt" "$E2E_OUT/status-escape.txt" || fail "an ESC reached the output"
grep -qF '\u{1b}]0;pwned\u{7}\u{1b}[1;32mALL GOOD\u{1b}[0m' "$E2E_OUT/doctor-escape.txt" || fail "doctor does not show the status escaped"

step "a link to a root-only file as a state file: nothing of it is printed"
printf 'SECRET-root-only\n' > /run/beacon-tx-secret
chmod 600 /run/beacon-tx-secret
rm -f /run/beacon-tx/kiosk/hci0.json /run/beacon-tx/hci1/hci0.json
as_nobody ln -s /run/beacon-tx-secret /run/beacon-tx/kiosk/hci0.json
rc=0; "$BEACON_TX" status --device hci0 > "$E2E_OUT/status-link.txt" 2>&1 || rc=$?
"$BEACON_TX" doctor --device hci0 >> "$E2E_OUT/status-link.txt" 2>&1 || true
[ "$rc" = 3 ] || fail "status exited $rc, want 3"
! grep -q "SECRET\|unexpected" "$E2E_OUT/status-link.txt" || fail "the linked file leaked: $(grep "SECRET\|unexpected" "$E2E_OUT/status-link.txt")"
grep -q '^hci0: nothing on air (no beacon-tx session)$' "$E2E_OUT/status-link.txt" || fail "the link was read as a state file"
rm -f /run/beacon-tx/kiosk/hci0.json /run/beacon-tx/hci1/hci00.json /run/beacon-tx-secret

step "a running kiosk's metrics file, hard-linked 100 times, then with a foreign series"
T=$E2E_OUT/textfiles
mkdir -p "$T"
kiosk_start kiosk --config "$REPO/Config/kiosk.json"
wait_until 10 test -s /run/beacon-tx/hci0.prom || fail "no /run/beacon-tx/hci0.prom"
for i in $(seq 1 99); do ln /run/beacon-tx/hci0.prom "/run/beacon-tx/flood$i"; done
"$BEACON_TX" status --metrics "$T/beacon-tx-status.prom" 2> "$E2E_OUT/publish-flood.err" || fail "status --metrics exited $?"
cat "$E2E_OUT/publish-flood.err"
[ ! -e "$T/beacon-tx-hci0.prom" ] || fail "a hard-linked file was published"
grep -q 'hci0.prom not published: 100 links to one file' "$E2E_OUT/publish-flood.err" || fail "no warning for the hard link"
grep -q '^beacon_tx_publish_refused_total{device="hci0",reason="hard_link"} 1$' "$T/beacon-tx-status.prom" || fail "the refusal is not counted"
grep -q '^beacon_tx_status_running{device="hci0"} 1$' "$T/beacon-tx-status.prom" || fail "the kiosk (holding the lock) is not running"
rm -f /run/beacon-tx/flood*
cp /run/beacon-tx/hci0.prom /run/beacon-tx/hci0.prom.forged
echo 'node_systemd_unit_state{name="sshd.service",state="active",type="simple"} 1' >> /run/beacon-tx/hci0.prom.forged
chmod 644 /run/beacon-tx/hci0.prom.forged
mv /run/beacon-tx/hci0.prom.forged /run/beacon-tx/hci0.prom
"$BEACON_TX" status --metrics "$T/beacon-tx-status.prom" 2> "$E2E_OUT/publish-foreign.err" || fail "status --metrics exited $?"
cat "$E2E_OUT/publish-foreign.err"
grep -q '^beacon_tx_session_up{device="hci0"} 1$' "$T/beacon-tx-hci0.prom" || fail "the kiosk's own series were not published"
! grep -q node_systemd "$T/beacon-tx-hci0.prom" || fail "the foreign series was published"
grep -q '^beacon_tx_publish_refused_total{device="hci0",reason="foreign_series"} 1$' "$T/beacon-tx-status.prom" || fail "the foreign series is not counted"
grep -q '^beacon_tx_publish_refused_total{device="hci0",reason="hard_link"} 1$' "$T/beacon-tx-status.prom" || fail "the earlier refusal was not carried over"
stop_bg kiosk INT

step "a symbolic link planted at --output"
mkdir -p /run/nobody-dir
chown nobody /run/nobody-dir
printf 'precious\n' > /run/beacon-tx-victim
as_nobody ln -s /run/beacon-tx-victim /run/nobody-dir/plan.txt
rc=0; "$BEACON_TX" start --config "$REPO/Config/kiosk.json" --dry-run --output /run/nobody-dir/plan.txt 2> "$E2E_OUT/output-link.err" || rc=$?
cat "$E2E_OUT/output-link.err"
[ "$rc" = 73 ] || fail "--output through a planted link exited $rc, want 73"
[ "$(cat /run/beacon-tx-victim)" = precious ] || fail "the link's target was written"
[ -L /run/nobody-dir/plan.txt ] || fail "the link was replaced"
kill "$victim"
rm -rf /run/nobody-dir /run/beacon-tx-victim /run/beacon-tx/kiosk /run/beacon-tx/hci1
