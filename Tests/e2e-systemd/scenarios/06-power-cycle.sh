# SPDX-License-Identifier: Apache-2.0
# boot: main
# `bluetoothctl power off` then `power on` of hci0 under the running kiosk: silence while it is
# off, the beacons back within a few seconds after power on, in the same process.
. "$BED/lib.sh"

kiosk_heard
addr=$(hciconfig hci0 | sed -n 's/.*BD Address: \([0-9A-F:]*\).*/\1/p')
btctl() {   # btctl CMD...: bluetoothctl on hci0 (its default controller, else selected first)
  if [[ $(bluetoothctl list) == *"$addr"*"[default]"* ]]; then
    bluetoothctl "$@"
  else
    printf 'select %s\n%s\nquit\n' "$addr" "$*" | bluetoothctl
  fi
}
step "power off"
btctl power off
expect_silent 2
step "power on"
rx_clear
t0=$(now_us)
btctl power on
expect_heard 15 "${ids[@]}"
note "power on -> beacons heard after $(_secs $(( $(now_us) - t0 )))s"
[ "$(unit_pid beacon-tx.service)" = "$pid" ] || fail "MainPID changed: $pid -> $(unit_pid beacon-tx.service)"
expect_prop beacon-tx.service NRestarts 0
