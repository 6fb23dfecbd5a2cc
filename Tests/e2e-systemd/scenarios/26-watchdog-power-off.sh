# SPDX-License-Identifier: Apache-2.0
# boot: main
# Issue 31 item 3: an administrator's power off is waiting, not hanging. With WatchdogSec=4s
# (a runtime drop-in: the shipped 30 s would make the test slow), 20 s of `btmgmt power off`
# on hci0 under the kiosk give no restart (NRestarts=0, same MainPID, no "Watchdog timeout"
# in the journal), and after `power on` the beacons are back at the receiver within seconds.
. "$BED/lib.sh"

kiosk_with_watchdog 4s
journal_mark
step "power off for 20 s"
btmgmt --index 0 power off > /dev/null
expect_silent 2
_sleep 18
st=$(prop beacon-tx.service StatusText)
echo "StatusText while off: $st"
[ "$(unit_pid beacon-tx.service)" = "$pid" ] || fail "MainPID changed while powered off: $pid -> $(unit_pid beacon-tx.service)"
expect_prop beacon-tx.service NRestarts 0
! journal_since -u beacon-tx.service | grep -q "Watchdog timeout" || fail "the watchdog fired while hci0 was powered off: $(journal_since -u beacon-tx.service | grep 'Watchdog timeout' | head -n 1)"
step "power on"
rx_clear
t0=$(now_us)
btmgmt --index 0 power on > /dev/null
expect_heard 15 "${ids[@]}"
note "WatchdogSec=4s, 20 s powered off: NRestarts 0; power on -> beacons heard after $(_secs $(( $(now_us) - t0 )))s"
[ "$(unit_pid beacon-tx.service)" = "$pid" ] || fail "MainPID changed: $pid -> $(unit_pid beacon-tx.service)"
expect_prop beacon-tx.service NRestarts 0
