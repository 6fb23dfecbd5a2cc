# boot: late-adapter
# The package installed and beacon-tx.service + beacon-tx@hci2.service enabled before boot,
# no adapter at all (hci0 comes later, in 22-boot-race; hci2 never): boot is not held back
# (each unit active, READY, within a few seconds of its start; multi-user.target reached within
# a few seconds of the main boot's, from systemd's start), `systemctl status` says what it is
# waiting for, nothing restarts and no start limit is hit.
. "$BED/lib.sh"

[ ! -e /sys/class/bluetooth/hci0 ] || fail "hci0 exists already: this boot must have no adapter"
sd=$(systemctl show -p UserspaceTimestampMonotonic --value)
mu=$(systemctl show -p ActiveEnterTimestampMonotonic --value multi-user.target)
[ "$mu" -gt 0 ] || fail "multi-user.target not reached"
mu_s=$(_secs $((mu - sd)))
echo "multi-user.target $mu_s s after systemd started"
for dev in hci0 hci2; do
  u=beacon-tx.service; [ $dev = hci2 ] && u=beacon-tx@hci2.service
  expect_prop $u ActiveState active
  start=$(prop $u ExecMainStartTimestampMonotonic) active=$(prop $u ActiveEnterTimestampMonotonic)
  took=$((active - start))
  echo "$u: active $(_secs $took) s after its start, multi-user.target $(_secs $((mu - start))) s after it"
  [ $took -le 5000000 ] || fail "$u became active $(_secs $took) s after its start (boot held back)"
  [ $((mu - start)) -le 8000000 ] || fail "multi-user.target came $(_secs $((mu - start))) s after $u started"
  st=$(prop $u StatusText)
  echo "$u StatusText: $st"
  [[ $st == *"waiting for $dev"* ]] || fail "$u StatusText '$st' does not say waiting for $dev"
  out=$(systemctl status --no-pager $u 2>&1 || true)
  [[ $out == *"waiting for $dev"* ]] || fail "systemctl status $u does not say waiting for $dev: $out"
  expect_prop $u NRestarts 0
done
main_boot=$(ls -d "$RUN_DIR"/boot-*-main 2> /dev/null | head -n 1 || true)
if [ -n "$main_boot" ] && [ -s "$main_boot/boot.txt" ]; then
  ref=$(sed -n 's/^multi-user.target from systemd \([0-9]*\) us$/\1/p' "$main_boot/boot.txt")
  if [ -n "$ref" ]; then
    note "multi-user.target after systemd's start: $mu_s s here, $(_secs "$ref") s in the main boot"
    [ $((mu - sd)) -le $((ref + 10000000)) ] || fail "boot took $mu_s s to multi-user.target, the main boot $(_secs "$ref") s"
  fi
fi
# still waiting, no restart, no start limit, some time later
up=$(now_us)
read -r upt _ < /proc/uptime
wait_s=$(( ${mu%??????} + 14 - ${upt%.*} ))
[ $wait_s -le 0 ] || _sleep "$wait_s"
for u in beacon-tx.service beacon-tx@hci2.service; do
  expect_prop $u ActiveState active
  expect_prop $u NRestarts 0
done
if journalctl -b --no-pager -q | grep -E 'Start request repeated too quickly|Timed out waiting for device|beacon-tx.*Failed with result'; then
  fail "start limit, device timeout or failure in the journal"
fi
