# SPDX-License-Identifier: Apache-2.0
# boot: main
# doctor under a real systemd (issue 32), with the package's unit: while the kiosk runs, doctor
# sees the unit enabled and active, the unit's capabilities, bluetoothd, the packaged config's plan,
# and the kiosk as hci0's owner (its MainPID and beacon-tx.service, from /proc/PID/cgroup).
# Blocked: with hci0 soft-blocked a restarted unit waits (StatusText "waiting for hci0 (blocked by
# rfkill)", no restart loop) and doctor fails on rfkill; after `rfkill unblock` the same process goes
# on air and the receiver on hci1 hears it. Failed: a config typo fails the unit (exit 65) and doctor
# exits 1 with FAIL units (the last exit code) and FAIL config (the exact error). The text outputs
# are kept in the scenario's folder (doctor-*.txt).
. "$BED/lib.sh"

command -v rfkill > /dev/null || fail "no rfkill command (Debian package rfkill; the run installs it on the host)"
kiosk_heard
_doctor() {   # _doctor NAME WANT_RC: beacon-tx doctor into $E2E_OUT/doctor-NAME.txt
  local rc=0
  beacon-tx doctor > "$E2E_OUT/doctor-$1.txt" 2>&1 || rc=$?
  cat "$E2E_OUT/doctor-$1.txt"
  [ "$rc" = "$2" ] || fail "doctor ($1) exited $rc, want $2"
}

step "running: owner, unit, capabilities"
_doctor running 0
grep -q "^WARN  owner  *hci0  another beacon-tx owns hci0 (pid $pid, beacon-tx.service): a second start on it exits 75\$" "$E2E_OUT/doctor-running.txt" ||
  fail "owner not named (pid $pid)"
grep -q '^OK    units  *-  *beacon-tx.service [a-z-]*, active' "$E2E_OUT/doctor-running.txt" || fail "units not seen"
grep -q '^OK    unit-capabilities  *-  */[a-z/]*/beacon-tx.service grants CAP_NET_RAW CAP_NET_ADMIN$' "$E2E_OUT/doctor-running.txt" || fail "unit capabilities not seen"
grep -q '^OK    bluetoothd  *-  *bluetoothd runs' "$E2E_OUT/doctor-running.txt" || fail "bluetoothd not seen"
grep -q '^OK    config  *-  */etc/beacon-tx/kiosk.json is valid' "$E2E_OUT/doctor-running.txt" || fail "the packaged config not checked"

step "blocked: the unit waits, doctor fails on rfkill"
idx=$(cat /sys/class/bluetooth/hci0/rfkill*/index) || fail "hci0 has no rfkill switch"
trap 'rfkill unblock "$idx" 2>/dev/null || true' EXIT
rfkill block "$idx"
systemctl restart beacon-tx.service
wait_until 15 test "$(prop beacon-tx.service StatusText)" = "waiting for hci0 (blocked by rfkill)" ||
  fail "StatusText: $(prop beacon-tx.service StatusText)"
waiting=$(unit_pid beacon-tx.service)
_doctor blocked 1
grep -q '^FAIL  rfkill  *hci0  blocked by rfkill (soft): it cannot be brought up$' "$E2E_OUT/doctor-blocked.txt" || fail "no FAIL rfkill"
grep -q '^WARN  session  *hci0  pid [0-9]*: nothing on air since .*: waiting for hci0 (blocked by rfkill)$' "$E2E_OUT/doctor-blocked.txt" || fail "no waiting session"
_sleep 5
expect_prop beacon-tx.service NRestarts 0
[ "$(unit_pid beacon-tx.service)" = "$waiting" ] || fail "the unit restarted while blocked"
rx_clear
rfkill unblock "$idx"
t0=$(now_us)
expect_heard 30 "${ids[@]}"
echo "unblock -> heard: $(_secs $(($(now_us) - t0))) s"
[ "$(unit_pid beacon-tx.service)" = "$waiting" ] || fail "a new process went on air, not the one that waited"

step "failed: a config typo"
systemctl stop beacon-tx.service
config_set "$KIOSK" beacons.0.major=70000
rc=0; systemctl start beacon-tx.service || rc=$?
wait_until 10 test "$(prop beacon-tx.service ActiveState)" = failed || fail "not failed: $(prop beacon-tx.service ActiveState)"
_doctor failed 1
grep -q '^FAIL  units  *-  *beacon-tx.service failed (result exit-code, last exit 65)$' "$E2E_OUT/doctor-failed.txt" || fail "no FAIL units"
grep -q "^FAIL  config  *-  *$KIOSK is not valid: config $KIOSK: " "$E2E_OUT/doctor-failed.txt" || fail "no FAIL config"
grep -q 'remedy: journalctl -u beacon-tx.service' "$E2E_OUT/doctor-failed.txt" || fail "no journalctl remedy"
beacon-tx doctor --json > "$E2E_OUT/doctor-failed.json" || true
"${PY[@]}" - "$E2E_OUT/doctor-failed.json" <<'PY' || fail "doctor --json: units not failed"
import json, sys
r = json.load(open(sys.argv[1]))
u = [f for f in r["findings"] if f["id"] == "units"][0]
assert u["verdict"] == "fail" and r["ok"] is False and r["counts"]["fail"] >= 2, r["counts"]
PY
config_restore "$KIOSK"
systemctl reset-failed beacon-tx.service
kiosk_up
