# SPDX-License-Identifier: Apache-2.0
# boot: main
# `systemctl stop beacon-tx`: the unit ends inactive (Result success, not failed) and nothing
# is heard afterwards; `beacon-tx status --device hci0` then says nothing on air (exit 3).
. "$BED/lib.sh"

kiosk_up
mapfile -t ids < <(config_ids "$KIOSK")
rx_start hci1
expect_heard 10 "${ids[@]}"
systemctl stop beacon-tx.service
expect_prop beacon-tx.service ActiveState inactive
expect_prop beacon-tx.service Result success
echo "ExecMainStatus=$(prop beacon-tx.service ExecMainStatus)"
_sleep 1
expect_silent 3
rc=0; /usr/bin/beacon-tx status --device hci0 || rc=$?
[ $rc = 3 ] || fail "beacon-tx status --device hci0 after stop: exit $rc, expected 3"
