# SPDX-License-Identifier: Apache-2.0
# boot: main
# upgrade-from: bffa385 (the 0.2.0 release: its package, built with its own scripts; run puts it in bed/previous)
# e2e-timeout: 420 (four package operations, each reading the dpkg database over 9p: 30-60 s under TCG)
# Issue 31 item 2: `apt-get install` of this package over a running 0.2.0 kiosk whose
# /etc/beacon-tx/kiosk.json (a conffile) the administrator changed: the changed config is kept;
# postinst's try-restart puts the new binary in charge (MainPID changed, /proc/PID/exe is the new
# /usr/bin/beacon-tx, --version this one); the beacons are back at the receiver on hci1 within
# seconds, and only the config's (no ghost). The off-air time is measured at the receiver (the
# longest gap between two reports of one beacon across the upgrade). Purge leaves nothing (the
# scenarios that follow install the package again when they need it: package_install).
. "$BED/lib.sh"

prev=$(ls "$BED"/previous/beacon-tx_0.2.0-*.deb 2> /dev/null | head -n 1)
[ -n "$prev" ] || fail "no 0.2.0 package in $BED/previous (run builds it: tools/previous-deb)"
new_version=$(dpkg-deb -f "$DEB" Version)
apt_install() {   # apt_install DEB LOG: as package_install, for any package file
  (cd "$(dirname "$1")" && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
     -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts=/dev/null "./${1##*/}") > "$E2E_OUT/$2" 2>&1 ||
    fail "apt-get install ./${1##*/}: $(tail -n 3 "$E2E_OUT/$2")"
}
step "0.2.0, its kiosk running with a changed config"
systemctl stop beacon-tx.service 'beacon-tx@*.service' 2> /dev/null || true
dpkg --purge beacon-tx > "$E2E_OUT/purge-current.log" 2>&1 || fail "dpkg --purge: $(tail -n 3 "$E2E_OUT/purge-current.log")"
# A box that runs 0.2.0 has no group beacon-tx (purge keeps it, and 0.2.0's unit's dynamic user
# is named beacon-tx: the two names would clash, 217/USER; Docs/install.md says so for downgrades)
getent group beacon-tx > /dev/null && groupdel beacon-tx
apt_install "$prev" apt-0.2.0.log
[ "$(dpkg-query -W -f='${Version}' beacon-tx)" = 0.2.0-1 ] || fail "0.2.0-1 is not installed"
tmp=$("${PY[@]}" "$BED/tools/config.py" set "$KIOSK" beacons.0.minor=2525)
printf '%s\n' "$tmp" > "$KIOSK"
cp "$KIOSK" "$E2E_OUT/kiosk.json.changed"
mapfile -t ids < <(config_ids "$KIOSK")
systemctl enable --now beacon-tx.service 2> "$E2E_OUT/enable.log" || fail "enable --now (0.2.0): $(tail -n 3 "$E2E_OUT/enable.log")"
old_pid=$(unit_pid beacon-tx.service)
echo "0.2.0: MainPID $old_pid, $(/proc/"$old_pid"/exe --version)"
RX_CLOCK=1 rx_start hci1
expect_heard 10 "${ids[@]}"
_sleep 2

step "upgrade to $new_version"
t_up=$EPOCHREALTIME
apt_install "$DEB" apt-upgrade.log
t_done=$EPOCHREALTIME
echo "apt-get install took $(_secs $(( ${t_done//[.,]/} - ${t_up//[.,]/} )))s"
[ "$(dpkg-query -W -f='${Version}' beacon-tx)" = "$new_version" ] || fail "$new_version is not installed"
cmp -s "$KIOSK" "$E2E_OUT/kiosk.json.changed" || fail "the changed kiosk.json was not kept: $(diff "$E2E_OUT/kiosk.json.changed" "$KIOSK" | head -n 5)"
expect_prop beacon-tx.service ActiveState active
new_pid=$(unit_pid beacon-tx.service)
[ "$new_pid" != "$old_pid" ] && [ "$new_pid" != 0 ] || fail "MainPID $old_pid -> $new_pid: the old binary still runs (no restart)"
exe=$(readlink "/proc/$new_pid/exe")
[ "$exe" = /usr/bin/beacon-tx ] || fail "the service runs '$exe', not the new /usr/bin/beacon-tx"
v=$(/proc/"$new_pid"/exe --version)
echo "after: MainPID $new_pid, $exe, $v"
[[ $v == "beacon-tx ${new_version%-*} "* ]] || fail "the running binary says '$v', expected ${new_version%-*}"
expect_heard 15 "${ids[@]}"
_sleep 3
t_end=$EPOCHREALTIME
# the longest silence of each beacon across the upgrade, and before it (the receiver's baseline)
gaps=$("${PY[@]}" - "$RX_FILE" "$t_up" "$t_end" "${ids[@]}" <<'PY'
import sys
path, t_up, t_end, ids = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4:]
seen = {i: [] for i in ids}
for line in open(path, errors="replace"):
    if not line.startswith("report") or " t=" not in line or "4c000215" not in line: continue
    t = float(line.split(" t=")[1].split()[0])
    r = line.split("4c000215", 1)[1].strip()
    if len(r) < 40: continue
    i = "%s-%d-%d" % (r[:32], int(r[32:36], 16), int(r[36:40], 16))
    if i in seen: seen[i].append(t)
def gap(ts, a, b):
    ts = [t for t in ts if a <= t <= b]
    return max((y - x for x, y in zip(ts, ts[1:])), default=float("inf"))
across = max(gap(seen[i], t_up - 2, t_end) for i in ids)
before = max(gap(seen[i], t_up - 30, t_up) for i in ids)
print("%.2f %.2f" % (across, before))
PY
)
read -r off_air baseline <<< "$gaps"
note "upgrade 0.2.0 -> $new_version: off air at the receiver ${off_air}s (longest gap of one beacon; before the upgrade ${baseline}s), apt-get install $(_secs $(( ${t_done//[.,]/} - ${t_up//[.,]/} )))s"
awk -v g="$off_air" 'BEGIN { exit !(g < 15) }' || fail "off air for ${off_air}s across the upgrade"
rx_clear
_sleep 4
heard=$(rx_ids | tr '\n' ' ')
want=$(printf '%s\n' "${ids[@]}" | sort | tr '\n' ' ')
[ "$heard" = "$want" ] || fail "after the upgrade heard '$heard', expected only the config's '$want' (a ghost?)"
journalctl -u beacon-tx.service --since "@$t_up" --no-pager -q > "$E2E_OUT/unit-journal.txt" || true

step "purge"
rx_stop
dpkg --purge beacon-tx > "$E2E_OUT/purge.log" 2>&1 || fail "dpkg --purge: $(tail -n 3 "$E2E_OUT/purge.log")"
left=()
for f in /usr/bin/beacon-tx /etc/beacon-tx /run/beacon-tx /usr/lib/systemd/system/beacon-tx.service /usr/lib/systemd/system/beacon-tx@.service \
         /usr/share/doc/beacon-tx /var/lib/systemd/deb-systemd-helper-enabled/beacon-tx.service.dsh-also; do
  [ ! -e "$f" ] || left+=("$f")
done
mapfile -t -O "${#left[@]}" left < <(ls /etc/systemd/system/*.wants/beacon-tx* 2> /dev/null)
[ ${#left[@]} = 0 ] || fail "purge left: ${left[*]}"
[ "$(prop beacon-tx.service LoadState)" = not-found ] || fail "beacon-tx.service still loads after purge: $(prop beacon-tx.service LoadState)"
