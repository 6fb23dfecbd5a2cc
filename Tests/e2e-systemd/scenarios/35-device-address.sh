# SPDX-License-Identifier: Apache-2.0
# boot: main
# The packaged kiosk with its controller named by address in kiosk.json ("device": hci0's BD_ADDR,
# issue 40): restarted, it is on air on hci0 and heard; `systemctl status` and `beacon-tx status`
# name the address; the unit's StatusText counts the beacons. The shipped config comes back after.
. "$BED/lib.sh"

kiosk_heard
addr=$(hciconfig hci0 | sed -n 's/.*BD Address: \([0-9A-F:]*\).*/\1/p')
[ -n "$addr" ] || fail "no address for hci0"
config_set "$KIOSK" "device=\"$addr\""
step "kiosk.json names hci0 by its address $addr"
journal_mark
rx_clear
systemctl restart beacon-tx.service
expect_heard 15 "${ids[@]}"
note "device-address: restart -> beacons heard after ${HEARD_AFTER}s"
expect_prop beacon-tx.service ActiveState active
out=$(beacon-tx status --device "$addr" 2>&1) || fail "status --device $addr: $out"
[[ $out == "hci0: on air since "*"(controller $addr): "* ]] || fail "status does not name hci0 and its address: $out"
journal_since -u beacon-tx.service | grep -q "on hci0 (" || fail "the journal does not say it went on air on hci0"
step "back to the shipped config"
config_restore "$KIOSK"
systemctl restart beacon-tx.service
rx_clear
expect_heard 15 "${ids[@]}"
