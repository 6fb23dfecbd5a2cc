# SPDX-License-Identifier: Apache-2.0
# boot: main
# e2e-timeout: 600
# The Ansible role with a broken inventory (kiosk-lobby's minor 70000): the template's validate step
# (beacon-tx start --dry-run on the candidate) fails naming the key and the range, ansible-playbook
# fails, the old /etc/beacon-tx/kiosk.json stays byte for byte, nothing is reloaded and the beacons
# stay on air in the same process.
. "$BED/lib.sh"
. "$BED/scenarios/ansible.inc"

kiosk_heard
config_save "$KIOSK"
cp -p "$KIOSK" "$E2E_OUT/kiosk.before"
inv=$E2E_OUT/inventory.yml
sed '/^    kiosk-lobby:$/,/^    kiosk-shop:$/ s/^\(      beacon_tx_minor:\) 2$/\1 70000/' "$BED/ansible/inventory.yml" > "$inv"
grep -q '^      beacon_tx_minor: 70000$' "$inv" || fail "the inventory's minor was not changed"

step "apply the role with minor 70000"
journal_mark
ansible_apply broken "$inv" && fail "ansible-playbook succeeded with minor 70000: $(tail -n 3 "$E2E_OUT/ansible-broken.log")"
echo "ansible-playbook exit $ANSIBLE_RC after ${ANSIBLE_SECS}s: $(ansible_failure broken)"
grep -q 'failed to validate' "$E2E_OUT/ansible-broken.log" || fail "not the validate step that failed: $(ansible_failure broken)"
grep -q 'beacons\[0\].minor: 70000 is out of range (accepted 0–65535)' "$E2E_OUT/ansible-broken.log" ||
  fail "beacon-tx's check does not name the key and the range: $(ansible_failure broken)"
cmp "$E2E_OUT/kiosk.before" "$KIOSK" || fail "$KIOSK changed after the failed validation: $(diff "$E2E_OUT/kiosk.before" "$KIOSK" | head -n 4 | tr '\n' ' ')"
[ "$(stat -c '%U:%G %a %Y' "$KIOSK")" = "$(stat -c '%U:%G %a %Y' "$E2E_OUT/kiosk.before")" ] || fail "$KIOSK's owner, mode or mtime changed"
! grep -q 'RUNNING HANDLER' "$E2E_OUT/ansible-broken.log" || fail "a handler ran after the failed validation"
rx_clear
expect_heard 5 "${ids[@]}"
[ "$(unit_pid beacon-tx.service)" = "$pid" ] || fail "MainPID changed: $pid -> $(unit_pid beacon-tx.service)"
expect_prop beacon-tx.service ActiveState active
expect_prop beacon-tx.service NRestarts 0
! journal_since -u beacon-tx.service | grep -q 'Reload' || fail "beacon-tx.service was reloaded: $(journal_since -u beacon-tx.service | grep Reload)"
