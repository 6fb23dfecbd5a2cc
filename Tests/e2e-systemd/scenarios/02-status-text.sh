# SPDX-License-Identifier: Apache-2.0
# boot: main
# STATUS (sd_notify) of the running kiosk: `systemctl show -p StatusText beacon-tx` counts the
# beacons of the config on air on hci0, and `systemctl status` shows it.
. "$BED/lib.sh"

kiosk_up
mapfile -t ids < <(config_ids "$KIOSK")
n=${#ids[@]}
st=$(prop beacon-tx.service StatusText)
echo "StatusText: $st"
[[ $st == *"on air on hci0"* ]] || fail "StatusText '$st' does not say on air on hci0"
if [ "$n" = 1 ]; then want="1 beacon "; else want="$n beacons "; fi
[[ $st == "$want"* ]] || fail "StatusText '$st' does not count the $n beacon(s) of $KIOSK"
out=$(systemctl status --no-pager beacon-tx.service || true)
[[ $out == *"Status: \"$st\""* ]] || fail "systemctl status does not show the status: $out"
