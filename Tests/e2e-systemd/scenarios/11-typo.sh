# SPDX-License-Identifier: Apache-2.0
# boot: main
# A config typo (a major of 70000) makes `systemctl start beacon-tx` fail with exit 65 and no
# restart loop: the unit is failed once, NRestarts=0, and stays so past RestartSec.
. "$BED/lib.sh"

package_installed || package_install
systemctl stop beacon-tx.service
systemctl reset-failed beacon-tx.service 2> /dev/null || true
config_set "$KIOSK" beacons.0.major=70000
journal_mark
rc=0; systemctl start beacon-tx.service || rc=$?
echo "systemctl start: exit $rc"
[ $rc != 0 ] || fail "systemctl start succeeded with a major of 70000"
wait_until 10 test "$(prop beacon-tx.service ActiveState)" = failed ||
  fail "not failed: $(prop beacon-tx.service ActiveState)/$(prop beacon-tx.service SubState)"
expect_prop beacon-tx.service ExecMainStatus 65
expect_prop beacon-tx.service NRestarts 0
_sleep 8
expect_prop beacon-tx.service ActiveState failed
expect_prop beacon-tx.service NRestarts 0
exits=$(journal_since -u beacon-tx.service | grep -c 'Main process exited' || true)
journal_since -u beacon-tx.service
[ "$exits" = 1 ] || fail "beacon-tx exited $exits times, expected once"
config_restore "$KIOSK"
systemctl reset-failed beacon-tx.service
