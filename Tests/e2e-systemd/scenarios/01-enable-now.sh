# SPDX-License-Identifier: Apache-2.0
# boot: main
# `apt-get install ./beacon-tx_*.deb`, then `systemctl enable --now beacon-tx` with the shipped
# /etc/beacon-tx/kiosk.json and no drop-in: the unit is active (READY once on air), and the
# receiver on hci1 hears every beacon of the config with its UUID, major and minor.
. "$BED/lib.sh"

step "install"
package_install
[ "$(stat -c '%U:%G %a' /usr/bin/beacon-tx)" ] && echo "binary: $(stat -c '%U:%G %a' /usr/bin/beacon-tx) caps: $(getcap /usr/bin/beacon-tx)"
cmp -s "$KIOSK" "$BED/config/kiosk.json" || fail "$KIOSK is not Config/kiosk.json"
mapfile -t ids < <(config_ids "$KIOSK")
echo "config: ${ids[*]}"
[ ${#ids[@]} -gt 0 ] || fail "no beacons in $KIOSK"

hci_up hci0
rx_start hci1
step "enable --now"
t0=$(now_us)
systemctl enable --now beacon-tx.service || fail "systemctl enable --now beacon-tx: $(unit_log beacon-tx 8)"
echo "enable --now returned after $(_secs $(( $(now_us) - t0 )))s"
expect_prop beacon-tx.service ActiveState active
expect_prop beacon-tx.service UnitFileState enabled
expect_heard 10 "${ids[@]}"
systemctl status --no-pager beacon-tx.service || true
