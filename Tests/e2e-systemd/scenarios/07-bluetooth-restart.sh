# SPDX-License-Identifier: Apache-2.0
# boot: main
# `systemctl restart bluetooth` (bluetoothd powers the adapters off as it stops, and on again
# as it starts): the beacons are back within a few seconds, in the same process.
. "$BED/lib.sh"

kiosk_heard
step "restart bluetooth"
rx_clear
t0=$(now_us)
systemctl restart bluetooth.service
expect_heard 20 "${ids[@]}"
note "restart bluetooth -> beacons heard after $(_secs $(( $(now_us) - t0 )))s"
[ "$(unit_pid beacon-tx.service)" = "$pid" ] || fail "MainPID changed: $pid -> $(unit_pid beacon-tx.service)"
expect_prop beacon-tx.service NRestarts 0
