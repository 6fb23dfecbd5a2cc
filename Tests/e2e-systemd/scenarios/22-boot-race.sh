# boot: late-adapter
# The boot race: the adapter (btvirt's hci0 + hci1) appears 20 s after multi-user.target
# (e2e-late-adapter.service); the enabled kiosk, waiting since boot, comes on air with nobody
# acting on it: same process, NRestarts=0, StatusText on air. Notes the time from the adapter
# appearing to the first report heard on hci1, and to beacon-tx's on-air line in the journal.
# beacon-tx@hci2 (no such adapter) still waits, active.
. "$BED/lib.sh"

u=beacon-tx.service
expect_prop $u ActiveState active
pid=$(unit_pid $u)
mapfile -t ids < <(config_ids "$KIOSK")
mu=$(systemctl show -p ActiveEnterTimestampMonotonic --value multi-user.target)
uptime_us() { local a; read -r a _ < /proc/uptime; echo $(( ${a%.*} * 1000000 + 10#${a#*.} * 10000 )); }
end=$(( $(uptime_us) + 90000000 ))
until [ -e /sys/class/bluetooth/hci0 ]; do
  [ "$(uptime_us)" -lt $end ] || fail "no hci0 within 90 s (e2e-late-adapter.service: $(prop e2e-late-adapter.service ActiveState))"
  _sleep 0.05
done
appear=$(uptime_us)
note "hci0 appeared $(_secs $((appear - mu))) s after multi-user.target"
[ $((appear - mu)) -ge 19000000 ] || fail "hci0 appeared too early"
[ "$(unit_pid $u)" = "$pid" ] || fail "MainPID changed while waiting: $pid -> $(unit_pid $u)"
# the receiver's controller: powered by bluetoothd; one whose setup timed out (TCG) is brought up
if ! wait_until 15 _hci_is_up hci1; then
  echo "hci1 not up: $(hciconfig hci1 2>&1 | head -n 3); hciconfig hci1 up"
  hciconfig hci1 up || true
fi
rx_start hci1
echo "receiver scanning $(_secs $(( $(uptime_us) - appear ))) s after hci0 appeared"
expect_heard 60 "${ids[@]}"
heard=$(uptime_us)
[ "$(unit_pid $u)" = "$pid" ] || fail "MainPID changed: $pid -> $(unit_pid $u)"
expect_prop $u NRestarts 0
st=$(prop $u StatusText)
echo "StatusText: $st"
[[ $st == *"on air on hci0"* ]] || fail "StatusText '$st' does not say on air on hci0"
# beacon-tx's own on-air line, in monotonic time
msg="adapter appears -> first report heard: $(_secs $((heard - appear))) s (receiver start included)"
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
