# SPDX-License-Identifier: Apache-2.0
# boot: main
# e2e-timeout: 900
# The Ansible role refusing what it must not apply, each time with ansible-playbook failing, the old
# /etc/beacon-tx/kiosk.json byte for byte, nothing reloaded and the beacons on air in the same process:
#  - the package as a URL without beacon_tx_deb_sha256: refused before anything is downloaded;
#  - the package as a URL with a SHA-256 that is not its own: downloaded, refused by get_url's check,
#    and neither kept nor installed;
#  - a broken inventory (kiosk-lobby's minor 70000): the template's validate step (beacon-tx start
#    --dry-run on the candidate) fails naming the key and the range.
. "$BED/lib.sh"
. "$BED/scenarios/ansible.inc"

kiosk_heard
config_save "$KIOSK"
cp -p "$KIOSK" "$E2E_OUT/kiosk.before"
inv=$E2E_OUT/inventory.yml
sed '/^    kiosk-lobby:$/,/^    kiosk-shop:$/ s/^\(      beacon_tx_minor:\) 2$/\1 70000/' "$BED/ansible/inventory.yml" > "$inv"
grep -q '^      beacon_tx_minor: 70000$' "$inv" || fail "the inventory's minor was not changed"

journal_mark
installed=$(dpkg-query -W -f='${Version} ${db-fsys:Last-Modified}' beacon-tx)
deb_serve
dest=/var/cache/beacon-tx/beacon-tx.deb   # the role's beacon_tx_deb_dest
rm -f "$dest"

step "apply the role with the package as a URL and no SHA-256"
ansible_apply nosum "$BED/ansible/inventory.yml" -e "beacon_tx_deb=$DEB_URL" &&
  fail "ansible-playbook succeeded with a URL and no beacon_tx_deb_sha256: $(tail -n 3 "$E2E_OUT/ansible-nosum.log")"
echo "ansible-playbook exit $ANSIBLE_RC after ${ANSIBLE_SECS}s: $(ansible_failure nosum)"
grep -q "beacon_tx_deb is a URL ($DEB_URL) and beacon_tx_deb_sha256 is not set" "$E2E_OUT/ansible-nosum.log" ||
  fail "not the role's checksum assert that failed: $(ansible_failure nosum)"
[ "$(deb_requests)" = 0 ] || fail "the role downloaded $DEB_URL without a checksum: $(cat "$E2E_OUT/http.log")"

step "apply the role with the package as a URL and a SHA-256 that is not its own"
wrong=$(printf '%s' "$DEB_SHA256" | tr 0-9a-f 1-9a-f0)
ansible_apply badsum "$BED/ansible/inventory.yml" -e "beacon_tx_deb=$DEB_URL" -e "beacon_tx_deb_sha256=$wrong" &&
  fail "ansible-playbook succeeded with the wrong beacon_tx_deb_sha256: $(tail -n 3 "$E2E_OUT/ansible-badsum.log")"
echo "ansible-playbook exit $ANSIBLE_RC after ${ANSIBLE_SECS}s: $(ansible_failure badsum)"
grep -q "did not match $wrong" "$E2E_OUT/ansible-badsum.log" || fail "not get_url's checksum that failed: $(ansible_failure badsum)"
[ "$(deb_requests)" = 1 ] || fail "the package was downloaded $(deb_requests) times, expected once: $(cat "$E2E_OUT/http.log")"
[ ! -e "$dest" ] || fail "$dest was kept although its SHA-256 is not beacon_tx_deb_sha256"
[ "$(dpkg-query -W -f='${Version} ${db-fsys:Last-Modified}' beacon-tx)" = "$installed" ] || fail "the package was installed again"
! grep -q 'TASK \[beacon_tx : Kiosk config' "$E2E_OUT/ansible-nosum.log" "$E2E_OUT/ansible-badsum.log" ||
  fail "the role went on to the config after refusing the package"

step "apply the role with minor 70000"
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
