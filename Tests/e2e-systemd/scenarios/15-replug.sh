# SPDX-License-Identifier: Apache-2.0
# boot: main
# The adapter unplugged and plugged back under the running kiosk (btvirt.service stopped,
# started: new hci0 + hci1, like a USB dongle replugged): the kiosk, waiting for hci0 to
# return, comes back on air in the same process. (Not one of issue 18's list: it is the late
# adapter's case hours later, and a held device index would break it: Linux 6.1 keeps a
# device's index until the last raw socket bound to it is closed.)
. "$BED/lib.sh"

kiosk_heard
rx_stop
step "unplug"
systemctl stop btvirt.service
wait_until 15 test ! -e /sys/class/bluetooth/hci0 || fail "hci0 still there after btvirt stopped"
_sleep 2
step "plug back"
systemctl start btvirt.service || fail "btvirt.service did not start: $(tail -n 3 "$BOOT_DIR/btvirt.log")"
now=$(cd /sys/class/bluetooth && echo hci*)
echo "controllers now: $now"
if [ ! -e /sys/class/bluetooth/hci0 ]; then
  echo "beacon-tx (pid $pid) fds: $(ls -l /proc/$pid/fd 2> /dev/null | grep -c socket) sockets"
  systemctl stop beacon-tx.service
  systemctl restart btvirt.service || true
  after=$(cd /sys/class/bluetooth && echo hci*)
  echo "after stopping beacon-tx and replugging again: $after"
  fail "the replugged adapter is '$now', not hci0: index 0 was still taken$( [[ " $after " == *" hci0 "* ]] && echo " until beacon-tx (pid $pid) was stopped: its raw socket bound to the unregistered hci0 keeps the index")"
fi
rx_start hci1
expect_heard 20 "${ids[@]}"
note "replug: beacons heard after ${HEARD_AFTER}s of the receiver scanning"
[ "$(unit_pid beacon-tx.service)" = "$pid" ] || fail "MainPID changed: $pid -> $(unit_pid beacon-tx.service)"
expect_prop beacon-tx.service NRestarts 0
