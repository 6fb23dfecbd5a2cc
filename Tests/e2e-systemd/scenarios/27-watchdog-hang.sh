# SPDX-License-Identifier: Apache-2.0
# boot: main
# Issue 31 item 3: a hung kiosk is restarted by the watchdog. With WatchdogSec=4s (a runtime
# drop-in), SIGSTOP the session: systemd logs "Watchdog timeout", kills it (SIGABRT, then
# SIGCONT) and restarts it (Restart=on-failure, RestartSec=3): NRestarts=1, a new MainPID, and
# the beacons back at the receiver. The times from SIGSTOP to the timeout and to the beacons
# heard again are noted.
. "$BED/lib.sh"

kiosk_with_watchdog 4s
expect_prop beacon-tx.service NRestarts 0
journal_mark
step "SIGSTOP $pid"
t0=$(now_us)
kill -STOP "$pid"
_timed_out() { journal_since -u beacon-tx.service | grep -q "Watchdog timeout"; }
wait_until 20 _timed_out || fail "no watchdog timeout within 20 s of SIGSTOP"
t_wd=$(now_us)
_restarted() { [ "$(prop beacon-tx.service NRestarts)" = 1 ] && systemctl is-active -q beacon-tx.service; }
wait_until 30 _restarted || fail "not restarted: NRestarts=$(prop beacon-tx.service NRestarts), $(prop beacon-tx.service ActiveState)/$(prop beacon-tx.service SubState)"
new=$(unit_pid beacon-tx.service)
[ "$new" != "$pid" ] || fail "MainPID unchanged after the watchdog"
! kill -0 "$pid" 2> /dev/null || fail "the stopped process $pid is still there"
rx_clear
expect_heard 15 "${ids[@]}"
journal_since -u beacon-tx.service | grep -E "Watchdog timeout|Main process exited|Scheduled restart" || true
note "WatchdogSec=4s, SIGSTOP: watchdog timeout after $(_secs $(( t_wd - t0 )))s, beacons heard again after $(_secs $(( $(now_us) - t0 )))s, NRestarts 1"
