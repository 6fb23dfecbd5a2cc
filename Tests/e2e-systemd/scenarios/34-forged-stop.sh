# SPDX-License-Identifier: Apache-2.0
# boot: main
# Root's `beacon-tx stop` beside the kiosk unit, with a forged state file: user nobody owns a
# template unit's directory (/run/beacon-tx/hci1/, as a dynamic user would) and writes
# hci0.json there naming a root `sleep` (the victim). stop signals the lock's holder, the
# kiosk's MainPID (the kernel names it; it runs beacon-tx), never the victim; the unit ends
# inactive with Result success. A second stop, with no session, signals nothing. The lock
# directory is root:beacon-tx 3771 and the kiosk's lock file is in the beacon-tx group.
. "$BED/lib.sh"

kiosk_heard
step "the lock directory"
stat -c '%U:%G %a %n' /run/beacon-tx/lock /run/beacon-tx/lock/hci0
[ "$(stat -c '%U:%G %a' /run/beacon-tx/lock)" = "root:beacon-tx 3771" ] || fail "lock directory: $(stat -c '%U:%G %a' /run/beacon-tx/lock)"
[ "$(stat -c '%G' /run/beacon-tx/lock/hci0)" = beacon-tx ] || fail "lock file group: $(stat -c '%G' /run/beacon-tx/lock/hci0)"

step "a forged state file names a victim"
sleep 600 & victim=$!
forged=/run/beacon-tx/hci1
install -d -o nobody -m 0755 "$forged"
setpriv --reuid=nobody --regid=nogroup --clear-groups sh -c \
  "printf '%s' '{\"device\":\"hci0\",\"pid\":$victim,\"onAir\":true,\"status\":\"forged\",\"family\":\"extended\",\"sets\":[],\"rotation\":false,\"beacons\":[],\"since\":0}' > $forged/hci0.json"
rc=0; out=$(timeout 30 /usr/bin/beacon-tx stop --device hci0 2>&1) || rc=$?
echo "stop: exit $rc: $out"
[ $rc = 0 ] || fail "beacon-tx stop --device hci0: exit $rc: $out"
[[ $out == *"session of pid $pid "* ]] || fail "stop does not name the kiosk's pid $pid: $out"
kill -0 "$victim" || fail "the victim (pid $victim) was signalled"
_inactive() { [ "$(prop beacon-tx.service ActiveState)" = inactive ]; }
wait_until 20 _inactive || fail "the kiosk unit still runs: $(prop beacon-tx.service ActiveState)"
expect_prop beacon-tx.service Result success

step "stop with no session"
rc=0; out=$(timeout 30 /usr/bin/beacon-tx stop --device hci0 2>&1) || rc=$?
echo "stop: exit $rc: $out"
[ $rc = 0 ] || fail "the second stop: exit $rc: $out"
[[ $out != *"$victim"* ]] || fail "stop named the forged pid $victim: $out"
kill -0 "$victim" || fail "the victim (pid $victim) was signalled by a stop with no session"
kill "$victim"
rm -rf "$forged"
systemctl start beacon-tx.service
