# boot: late-adapter
# The boot race: the adapter (btvirt's hci0 + hci1) appears 20 s after multi-user.target; the
# enabled kiosk, waiting since boot, comes on air with nobody acting on it: same process, no
# restart. Notes the time from the adapter appearing to the first report heard on hci1, and
# to the on-air line in the journal.
. "$BED/lib.sh"

u=beacon-tx.service
expect_prop $u ActiveState active
pid=$(unit_pid $u)
mapfile -t ids < <(config_ids "$KIOSK")
mu=$(systemctl show -p ActiveEnterTimestampMonotonic --value multi-user.target)
uptime_us() { local a; read -r a _ < /proc/uptime; echo $(( ${a%.*} * 1000000 + 10#${a#*.} * 10000 )); }
wait_s=$(( (mu + 20000000 - $(uptime_us)) / 1000000 ))
[ $wait_s -le 0 ] || _sleep "$wait_s"
step "the adapter appears ($(_secs $(( $(uptime_us) - mu ))) s after multi-user.target)"
systemctl start --no-block btvirt.service
until [ -e /sys/class/bluetooth/hci0 ]; do _sleep 0.05; done
appear=$(uptime_us)
echo "hci0 appeared $(_secs $((appear - mu))) s after multi-user.target"
hci_up hci1 30
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
onair=$(journalctl -b -u $u -o short-monotonic --no-pager -q | grep -m1 'beacon-tx: advertising' | sed -n 's/^\[ *\([0-9]*\)\.\([0-9]*\)\].*/\1 \2/p' || true)
msg="adapter appears -> first report heard: $(_secs $((heard - appear))) s"
if [ -n "$onair" ]; then
  read -r a b <<< "$onair"
  msg+=", -> beacon-tx on air (journal): $(_secs $(( a * 1000000 + 10#$b - appear ))) s"
fi
note "$msg"
expect_prop beacon-tx@hci2.service ActiveState active
