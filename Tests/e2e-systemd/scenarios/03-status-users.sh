# SPDX-License-Identifier: Apache-2.0
# boot: main
# `beacon-tx status` needs no privilege: user nobody, a created monitoring user, and a
# DynamicUser like the units' (systemd-run) all see hci0 on air with the unit's MainPID.
. "$BED/lib.sh"

kiosk_up
pid=$(unit_pid beacon-tx.service)
getent passwd e2e-monitor > /dev/null || useradd --system --no-create-home --shell /usr/sbin/nologin e2e-monitor
check() {   # check WHO OUTPUT RC
  echo "--- $1 (exit $3)"; echo "$2"
  [ "$3" = 0 ] || fail "beacon-tx status as $1: exit $3: $2"
  [[ $2 == *"hci0: on air"* ]] || fail "beacon-tx status as $1 does not say hci0 on air: $2"
  [[ $2 == *"pid $pid"* ]] || fail "beacon-tx status as $1 does not name pid $pid: $2"
}
rc=0; out=$(runuser -u nobody -- /usr/bin/beacon-tx status 2>&1) || rc=$?
check nobody "$out" $rc
rc=0; out=$(runuser -u e2e-monitor -- /usr/bin/beacon-tx status --device hci0 2>&1) || rc=$?
check e2e-monitor "$out" $rc
rc=0; out=$(systemd-run --quiet --wait --pipe -p DynamicUser=yes /usr/bin/beacon-tx status 2>&1) || rc=$?
check "a DynamicUser (systemd-run)" "$out" $rc
rc=0; out=$(runuser -u nobody -- /usr/bin/beacon-tx status --json 2>&1) || rc=$?
echo "--- nobody --json (exit $rc)"; echo "$out"
[ $rc = 0 ] && [[ $out == *'"hci0"'* ]] || fail "beacon-tx status --json as nobody: exit $rc: $out"
