# SPDX-License-Identifier: Apache-2.0
# boot: main
# The template instance beacon-tx@hci1 with /etc/beacon-tx/hci1.json (the kiosk's beacons
# with major 21 ...): heard by the receiver on hci0, STATUS on hci1, `status` as nobody, and
# stopped inactive with nothing heard afterwards.
. "$BED/lib.sh"

package_installed || package_install
systemctl stop beacon-tx.service
template_config hci1 21
echo "hci1.json: ${ids[*]}"
hci_up hci1
rx_start hci0
systemctl start beacon-tx@hci1.service ||
  fail "systemctl start beacon-tx@hci1: $(unit_log beacon-tx@hci1 8)"
expect_heard 10 "${ids[@]}"
st=$(prop beacon-tx@hci1.service StatusText)
echo "StatusText: $st"
[[ $st == *"on air on hci1"* ]] || fail "beacon-tx@hci1 StatusText: '$st'"
rc=0; out=$(runuser -u nobody -- /usr/bin/beacon-tx status --device hci1 2>&1) || rc=$?
echo "$out"
[ $rc = 0 ] && [[ $out == *"hci1: on air"* ]] || fail "beacon-tx status --device hci1 as nobody: exit $rc: $out"
systemctl stop beacon-tx@hci1.service
expect_prop beacon-tx@hci1.service ActiveState inactive
expect_prop beacon-tx@hci1.service Result success
_sleep 1
expect_silent 3
