#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# lock-squatter: no local user can block, stop or forge a beacon-tx session.
# - user nobody binds the old abstract lock name (@beacon-tx/hci0, and `x @beacon-tx/hci0`):
#   `start` still comes on air, doctor names no owner while nothing runs, `stop` stops it;
# - nobody cannot open the lock directory /run/beacon-tx/lock, so cannot hold a device's lock;
# - a forged state file naming a root `sleep` (the victim): root's `stop` signals only the
#   kiosk that holds the lock, never the victim; with no session, it signals nothing;
# - a process that holds the lock but is not beacon-tx (root's python): `stop` exits 69 naming
#   its executable and signals nothing.
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"
GOLDEN=0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5
need_beacon_tx
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all "$@"; }

step "nobody squats the abstract names"
run_bg squat as_nobody "${E2E_PY[@]}" -c 'import socket, time
socks = []
for name in ("\0beacon-tx/hci0", "\0x @beacon-tx/hci0"):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind(name); socks.append(s)
print("bound", flush=True); time.sleep(120)'
wait_until 10 _has_line "$E2E_OUT/squat.log" bound || fail "the squatter did not bind: $(cat "$E2E_OUT/squat.log")"
grep -q '@beacon-tx/hci0$' /proc/net/unix || fail "the abstract name is not bound"
"$BEACON_TX" doctor --device hci0 > "$E2E_OUT/doctor-squat.txt" 2>&1 || true
grep -q '^OK    owner  *hci0  no beacon-tx session owns hci0$' "$E2E_OUT/doctor-squat.txt" ||
  fail "doctor names an owner for the squatted name: $(grep owner "$E2E_OUT/doctor-squat.txt")"

scan_start hci1
kiosk_start kiosk --config "$REPO/Config/kiosk.json"
addr=$(bdaddr hci0)
expect_adv_data -s hci1 -a "$addr" "$GOLDEN"
[ -e /run/beacon-tx/lock/hci0 ] || fail "no lock file /run/beacon-tx/lock/hci0"
stat -c '%U %a %n' /run/beacon-tx/lock /run/beacon-tx/lock/hci0

step "nobody cannot open the lock directory"
rc=0; as_nobody "${E2E_PY[@]}" -c 'import fcntl, os
fd = os.open("/run/beacon-tx/lock/hci0", os.O_RDWR)
fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)' 2> "$E2E_OUT/nobody-lock.err" || rc=$?
[ "$rc" != 0 ] || fail "nobody took the device lock"
grep -q 'PermissionError' "$E2E_OUT/nobody-lock.err" || fail "not a permission error: $(cat "$E2E_OUT/nobody-lock.err")"

step "a forged state file names a victim; stop signals only the lock's holder"
sleep 300 & victim=$!
mkdir -p /run/beacon-tx/kiosk
chown nobody /run/beacon-tx/kiosk
as_nobody sh -c "printf '%s' '{\"device\":\"hci0\",\"pid\":$victim,\"onAir\":true,\"status\":\"forged\",\"family\":\"extended\",\"sets\":[],\"rotation\":false,\"beacons\":[],\"since\":0}' > /run/beacon-tx/kiosk/hci0.json"
"$BEACON_TX" stop --device hci0 > "$E2E_OUT/stop.out" 2> "$E2E_OUT/stop.err" || fail "stop exited $?: $(cat "$E2E_OUT/stop.err")"
cat "$E2E_OUT/stop.err"
grep -q "stopped the beacon-tx session of pid $KIOSK_PID on hci0" "$E2E_OUT/stop.err" || fail "stop did not stop the kiosk (pid $KIOSK_PID)"
wait_bg kiosk 5
[ "$BG_RC" = 0 ] || fail "the kiosk exited $BG_RC, want 0"
kill -0 "$victim" || fail "the victim (pid $victim) was killed"
"$BEACON_TX" stop --device hci0 > "$E2E_OUT/stop2.out" 2> "$E2E_OUT/stop2.err" || fail "the second stop exited $?: $(cat "$E2E_OUT/stop2.err")"
kill -0 "$victim" || fail "the victim (pid $victim) was killed by a stop with no session"
! grep -q "pid $victim" "$E2E_OUT/stop2.err" || fail "stop named the forged pid: $(cat "$E2E_OUT/stop2.err")"

step "a lock holder that is not beacon-tx is named, not signalled"
run_bg holder "${E2E_PY[@]}" -c 'import fcntl, os, time
fd = os.open("/run/beacon-tx/lock/hci0", os.O_RDWR)
fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
print("locked", flush=True); time.sleep(120)'
wait_until 10 _has_line "$E2E_OUT/holder.log" locked || fail "the holder did not lock: $(cat "$E2E_OUT/holder.log")"
holder=$(_bg_pid holder)
rc=0; "$BEACON_TX" stop --device hci0 > "$E2E_OUT/stop3.out" 2> "$E2E_OUT/stop3.err" || rc=$?
cat "$E2E_OUT/stop3.err"
[ "$rc" = 69 ] || fail "stop with a foreign holder exited $rc, want 69"
grep -q "hci0's lock is held by pid $holder, which runs '/usr/bin/python3[^']*', not beacon-tx: nothing was signalled" "$E2E_OUT/stop3.err" ||
  fail "stop does not name the foreign holder"
bg_running holder || fail "the foreign holder was signalled"
stop_bg holder KILL
stop_bg squat KILL
kill "$victim"
rm -f /run/beacon-tx/kiosk/hci0.json
