# SPDX-License-Identifier: Apache-2.0
# boot: main
# `systemctl reload beacon-tx` after a changed minor in the config: the new minor is heard
# within a few seconds and the old one is gone, in the same process (MainPID).
. "$BED/lib.sh"

kiosk_heard
old=${ids[0]} minor=${ids[0]##*-}
config_set "$KIOSK" "beacons.0.minor=$((minor + 100))"
new=$(config_ids "$KIOSK" | head -n 1)
step "reload: $old -> $new"
journal_mark
rx_clear
systemctl reload beacon-tx.service
expect_heard 8 "$new"
note "reload: new minor heard after ${HEARD_AFTER}s"
expect_silent 2 "$old"
[ "$(unit_pid beacon-tx.service)" = "$pid" ] || fail "MainPID changed: $pid -> $(unit_pid beacon-tx.service)"
expect_prop beacon-tx.service ActiveState active
journal_since -u beacon-tx.service
step "back to the shipped config"
config_restore "$KIOSK"
rx_clear
systemctl reload beacon-tx.service
expect_heard 8 "${ids[@]}"
