# SPDX-License-Identifier: Apache-2.0
# boot: main
# The packaged unit with SystemCallErrorNumber=kill (a copy, beacon-tx-seccomp.service, with
# that one drop-in): a syscall outside the filter would kill the process with SIGSYS instead
# of failing with EPERM. Start, reload with a changed minor, power off/on, stop: the beacons
# are on air throughout, the stop is clean (Result success), no SIGSYS in the journal.
. "$BED/lib.sh"

package_installed || package_install
systemctl stop beacon-tx.service
src=$(prop beacon-tx.service FragmentPath)
u=beacon-tx-seccomp.service
# A failed copy left behind restarts forever (Restart=always) and each failure removes the kiosk's
# RuntimeDirectory under the later scenarios: whatever happens, it goes and the kiosk comes back.
cleanup() {
  systemctl stop "$u" 2> /dev/null || true
  rm -rf "/etc/systemd/system/$u" "/etc/systemd/system/$u.d"
  systemctl daemon-reload
  systemctl reset-failed "$u" 2> /dev/null || true
  systemctl start beacon-tx.service 2> /dev/null || true
  _e2e_exit
}
trap cleanup EXIT
cp "$src" "/etc/systemd/system/$u"
mkdir -p "/etc/systemd/system/$u.d"
printf '[Service]\nSystemCallErrorNumber=kill\n' > "/etc/systemd/system/$u.d/kill.conf"
systemctl daemon-reload
echo "SystemCallErrorNumber=$(prop $u SystemCallErrorNumber)"
case $(prop $u SystemCallErrorNumber) in kill|2147483646) ;; *) fail "the drop-in did not take" ;; esac   # (INT_MAX - 1: kill)
mapfile -t ids < <(config_ids "$KIOSK")
rx_start hci1
journal_mark
systemctl start $u || fail "systemctl start $u: $(unit_log $u)"
pid=$(unit_pid $u)
expect_heard 10 "${ids[@]}"
step "reload"
minor=${ids[0]##*-}
config_set "$KIOSK" "beacons.0.minor=$((minor + 1))"
new=$(config_ids "$KIOSK" | head -n 1)
rx_clear
systemctl reload $u
expect_heard 8 "$new"
config_restore "$KIOSK"
systemctl reload $u
step "power off/on"
addr=$(hciconfig hci0 | sed -n 's/.*BD Address: \([0-9A-F:]*\).*/\1/p')
printf 'select %s\npower off\nquit\n' "$addr" | bluetoothctl > /dev/null
_sleep 1
rx_clear
printf 'select %s\npower on\nquit\n' "$addr" | bluetoothctl > /dev/null
expect_heard 15 "${ids[@]}"
[ "$(unit_pid $u)" = "$pid" ] || fail "MainPID changed: $pid -> $(unit_pid $u)"
step "stop"
systemctl stop $u
expect_prop $u Result success
expect_prop $u ActiveState inactive
log=$(journal_since)
if grep -E 'SIGSYS|status=31/SYS|Bad system call|type=1326|audit.*seccomp' <<< "$log"; then
  fail "a syscall was blocked (see journal.txt)"
fi
_sleep 1
expect_silent 2
