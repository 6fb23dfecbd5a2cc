# SPDX-License-Identifier: Apache-2.0
# boot: late-adapter
# The boot race: the adapter (btvirt's hci0 + hci1) appears 20 s after multi-user.target
# (e2e-late-adapter.service); the enabled kiosk, waiting since boot, comes on air with nobody
# acting on it: same process, NRestarts=0, StatusText on air. The receiver on hci1 is
# e2e-receiver.service, started with the adapter (vm/receiver, lines stamped with the
# uptime). User nobody has held the abstract names @beacon-tx/hci0 and @beacon-tx/hci2 since
# before the units started (e2e-squatter.service): that changes nothing. Notes the times from
# the adapter appearing (its device unit active) to beacon-tx's on-air line in the journal and
# to the first report heard. beacon-tx@hci2 still waits.
. "$BED/lib.sh"

u=beacon-tx.service
pid=$(unit_pid $u)
mapfile -t ids < <(config_ids "$KIOSK")
mu=$(systemctl show -p ActiveEnterTimestampMonotonic --value multi-user.target)
uptime_us() { local a; read -r a _ < /proc/uptime; echo $(( ${a%.*} * 1000000 + 10#${a#*.} * 10000 )); }
end=$(( $(uptime_us) + 90000000 ))
until [ -e /sys/class/bluetooth/hci0 ]; do
  [ "$(uptime_us)" -lt $end ] || fail "no hci0 within 90 s (e2e-late-adapter.service: $(prop e2e-late-adapter.service ActiveState))"
  _sleep 0.1
done
dev=sys-subsystem-bluetooth-devices-hci0.device
wait_until 10 test "$(prop $dev ActiveState)" = active || true
appear=$(prop $dev ActiveEnterTimestampMonotonic)
[ "${appear:-0}" -gt 0 ] || appear=$(prop btvirt.service ExecMainStartTimestampMonotonic)
note "hci0 appeared $(_secs $((appear - mu))) s after multi-user.target"
[ $((appear - mu)) -ge 19000000 ] || fail "hci0 appeared too early"

# the boot's receiver (vm/receiver) hears the kiosk
RX_FILE=$BOOT_DIR/rx-hci1.txt
first=
for _ in $(seq 300); do
  while IFS= read -r l; do
    [[ $l == *' report '*' data='*4c000215* ]] || continue
    d=${l##* data=}; r=${d#*4c000215}
    for id in "${ids[@]}"; do
      [ "${r:0:32}-$((16#${r:32:4}))-$((16#${r:36:4}))" = "$id" ] && { first=${l%% *}; break 2; }
    done
  done < "$RX_FILE"
  [ -n "$first" ] && break
  _sleep 0.2
done
cp "$RX_FILE" "$E2E_OUT/rx-hci1.txt" 2> /dev/null || true
[ -n "$first" ] || fail "the receiver on hci1 heard none of ${ids[*]} within 60 s: $(tail -n 3 "$RX_FILE")"
heard=$(( ${first%.*} * 1000000 + 10#${first#*.} * 10000 ))
scanning=$(grep -m1 '# scanning' "$RX_FILE" | cut -d' ' -f1)
[ "$(unit_pid $u)" = "$pid" ] || fail "MainPID changed: $pid -> $(unit_pid $u)"
expect_prop $u ActiveState active
expect_prop $u NRestarts 0
# user nobody held the old abstract lock names since before the units started (e2e-squatter.service)
expect_prop e2e-squatter.service ActiveState active
grep -q ' @beacon-tx/hci0$' /proc/net/unix || fail "the squatter does not hold @beacon-tx/hci0"
st=$(prop $u StatusText)
echo "StatusText: $st"
[[ $st == *"on air on hci0"* ]] || fail "StatusText '$st' does not say on air on hci0"
msg="adapter appears -> first report heard: $(_secs $((heard - appear))) s"
[ -z "$scanning" ] || msg+=" (receiver scanning after $(_secs $(( ${scanning%.*} * 1000000 + 10#${scanning#*.} * 10000 - appear ))) s)"
l=$(journalctl -b -u $u -o short-monotonic --no-pager -q | grep -m1 'beacon-tx: advertising' || true)
if [[ $l =~ ^\[\ *([0-9]+)\.([0-9]+)\] ]]; then
  msg+=", -> beacon-tx on air (journal): $(_secs $(( BASH_REMATCH[1] * 1000000 + 10#${BASH_REMATCH[2]} - appear ))) s"
fi
note "$msg"
if journalctl -k -b --no-pager -q | grep -m1 'hci0: Opcode .* failed: -110'; then
  note "(hci0's setup by the kernel timed out under TCG; the kiosk brought it up itself)"
fi
expect_prop beacon-tx@hci2.service ActiveState active
expect_prop beacon-tx@hci2.service NRestarts 0
