# SPDX-License-Identifier: Apache-2.0
# boot: main
# One owner per device: beside the running kiosk, a second `beacon-tx start --device hci0`
# (foreground) and a `start --detach` are refused with exit 75 naming the kiosk's pid; the
# kiosk's beacons stay on air and the intruder's are never heard.
. "$BED/lib.sh"

kiosk_heard
intruder=(--device hci0 --uuid E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 --major 7 --minor 7)
other=e2c56db5dffb48d2b060d0f5a71096e0-7-7
for mode in foreground detach; do
  step "second start ($mode)"
  args=("${intruder[@]}"); [ $mode = detach ] && args+=(--detach)
  rc=0; out=$(timeout 20 /usr/bin/beacon-tx start "${args[@]}" 2>&1) || rc=$?
  echo "exit $rc: $out"
  [ $rc != 124 ] || fail "a second start ($mode) on hci0 was accepted (still running after 20 s)"
  [ $rc = 75 ] || fail "a second start ($mode) on hci0: exit $rc, expected 75: $out"
  [[ $out == *"$pid"* ]] || fail "the refusal ($mode) does not name the owner's pid $pid: $out"
done
rx_clear
expect_heard 5 "${ids[@]}"
ids_now=$(rx_ids)
[[ $ids_now != *"$other"* ]] || fail "the intruder's beacon was heard"
[ "$(unit_pid beacon-tx.service)" = "$pid" ] || fail "MainPID changed: $pid -> $(unit_pid beacon-tx.service)"
