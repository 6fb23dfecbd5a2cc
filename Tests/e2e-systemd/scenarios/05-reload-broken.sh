# SPDX-License-Identifier: Apache-2.0
# boot: main
# A reload with invalid JSON in the config: an error in `journalctl -p err -u beacon-tx`, the
# unit stays active in the same process, and the old beacons stay on air.
. "$BED/lib.sh"

kiosk_heard
config_save "$KIOSK"
printf '{ "device": "hci0", "beacons": [ { "uuid": \n' > "$KIOSK"
_has_err() { [ -n "$(journal_since -p err -u beacon-tx.service)" ]; }
journal_mark
systemctl reload beacon-tx.service
if ! wait_until 10 _has_err; then
  journal_since -u beacon-tx.service -o verbose | grep -E '^ *(PRIORITY|MESSAGE|SYSLOG_IDENTIFIER)=' || true
  echo "beacon-tx's $(tr '\0' '\n' < /proc/$pid/environ | grep JOURNAL_STREAM || echo 'no JOURNAL_STREAM'); its stderr: $(stat -L -c '%d:%i' /proc/$pid/fd/2), stdout: $(stat -L -c '%d:%i' /proc/$pid/fd/1)"
  fail "no error in journalctl -p err -u beacon-tx after the broken reload: $(journal_since -u beacon-tx.service -o cat | grep -m1 'reload' || true) (priority: see stdout)"
fi
echo "errors:"; journal_since -p err -u beacon-tx.service
_sleep 1
rx_clear
expect_heard 5 "${ids[@]}"
expect_prop beacon-tx.service ActiveState active
[ "$(unit_pid beacon-tx.service)" = "$pid" ] || fail "MainPID changed: $pid -> $(unit_pid beacon-tx.service)"
config_restore "$KIOSK"
systemctl reload beacon-tx.service
