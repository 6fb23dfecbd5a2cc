# SPDX-License-Identifier: Apache-2.0
# boot: main
# e2e-timeout: 1200
# The Ansible role (contrib/ansible) with ansible-playbook (Debian's ansible-core, connection local)
# on the running kiosk: applied with the example inventory and the package as a URL with its SHA-256
# (python3's http.server on this host: the role downloads it once, checked), the config it writes
# puts the inventory's beacon on air; with the host's minor changed in the inventory and the playbook
# applied again (the package as a path this time), the handler reloads the unit and the new minor is
# heard on hci1 in the same process (MainPID, NRestarts 0), the old one gone. Notes the time from the
# second ansible-playbook's start to the new beacon heard.
. "$BED/lib.sh"
. "$BED/scenarios/ansible.inc"

kiosk_heard
config_save "$KIOSK"
inv=$E2E_OUT/inventory.yml
cp "$BED/ansible/inventory.yml" "$inv"
uuid=$(sed -n 's/^ *beacon_tx_uuid: *//p' "$inv" | tr -d '-' | tr 'A-F' 'a-f')
major=$(sed -n 's/^ *beacon_tx_major: *//p' "$inv")
first=$uuid-$major-2 second=$uuid-$major-102

step "apply the role: kiosk-lobby, minor 2, the package from a URL with its SHA-256"
deb_serve
dest=/var/cache/beacon-tx/beacon-tx.deb   # the role's beacon_tx_deb_dest
rm -f "$dest"
ansible_apply first "$inv" -e "beacon_tx_deb=$DEB_URL" -e "beacon_tx_deb_sha256=$DEB_SHA256" ||
  fail "ansible-playbook (first apply) exit $ANSIBLE_RC: $(ansible_failure first)"
echo "first apply: ${ANSIBLE_SECS}s"
[ "$(deb_requests)" = 1 ] || fail "the role downloaded $DEB_URL $(deb_requests) times, expected once: $(cat "$E2E_OUT/http.log")"
[ "$(sha256sum < "$dest" | cut -d' ' -f1)" = "$DEB_SHA256" ] || fail "$dest is not the package served"
[ "$(stat -c '%U:%G %a' "$dest")" = "root:root 644" ] || fail "$dest: $(stat -c '%U:%G %a' "$dest"), expected root:root 644"
[ "$(config_ids "$KIOSK")" = "$first" ] || fail "the role wrote $(config_ids "$KIOSK" | tr '\n' ' '), expected $first"
grep -q '^// .*Ansible role beacon_tx' "$KIOSK" || fail "$KIOSK is not the role's template: $(head -n 2 "$KIOSK")"
[ "$(stat -c '%U:%G %a' "$KIOSK")" = "root:root 644" ] || fail "$KIOSK: $(stat -c '%U:%G %a' "$KIOSK"), expected root:root 644"
expect_prop beacon-tx.service UnitFileState enabled
rx_clear
expect_heard 10 "$first"
pid=$(unit_pid beacon-tx.service)   # the first apply may have installed another version (its postinst restarts)

step "the inventory: kiosk-lobby's minor 2 -> 102, apply again"
sed -i '/^    kiosk-lobby:$/,/^    kiosk-shop:$/ s/^\(      beacon_tx_minor:\) 2$/\1 102/' "$inv"
grep -q '^      beacon_tx_minor: 102$' "$inv" || fail "the inventory's minor was not changed: $(grep -n minor "$inv" | tr '\n' ' ')"
journal_mark
rx_clear
t0=$(now_us)
# in the background: the receiver is watched while the playbook runs (the handler's reload comes
# before the playbook's end)
ansible_apply second "$inv" &
apid=$!
expect_heard 600 "$second"
heard=$(now_us)
rc=0; wait "$apid" || rc=$?
[ "$rc" = 0 ] || fail "ansible-playbook (second apply) exit $rc: $(ansible_failure second)"
grep -q 'RUNNING HANDLER \[beacon_tx : Reload beacon-tx\]' "$E2E_OUT/ansible-second.log" || fail "the handler did not run on the changed config"
reload=$(journal_since -u beacon-tx.service -o short-unix | awk '/Reloading/ { sub(/\./, "", $1); print $1; exit }')
[ -n "$reload" ] || fail "no reload of beacon-tx.service in the journal: $(journal_since -u beacon-tx.service | tail -n 3)"
note "ansible: inventory minor 2 -> 102: the new beacon heard $(_secs $((heard - t0)))s after ansible-playbook started, $(_secs $((heard - reload)))s after the handler's reload (ansible-playbook ran $(_secs $(( $(now_us) - t0 )))s)"
[ "$(config_ids "$KIOSK")" = "$second" ] || fail "the role wrote $(config_ids "$KIOSK" | tr '\n' ' '), expected $second"
expect_silent 2 "$first"
[ "$(unit_pid beacon-tx.service)" = "$pid" ] || fail "MainPID changed: $pid -> $(unit_pid beacon-tx.service) (a restart, not a reload)"
expect_prop beacon-tx.service NRestarts 0
expect_prop beacon-tx.service ActiveState active
journal_since -u beacon-tx.service
