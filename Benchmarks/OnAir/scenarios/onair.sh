#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# e2e-controllers: rootcanal default
# onair (make bench, not a test): on-air figures measured by the independent receiver on hci1
# (tools/rawscan.py --clock) on RootCanal controllers, never taken from beacon-tx's own notes:
#   - reports/s and the largest gap per beacon: 3 beacons on 3 extended sets, 3 and 12 beacons
#     rotated on one legacy instance (dwell 200 ms, interval 100 ms);
#   - rotation dwell accuracy: the receiver's runs against the configured dwell;
#   - exec -> first report heard (beacon-tx start, N times) and, as the bed's floor, the same for
#     the hcitool recipe (4 raw commands);
#   - re-arm: `hciconfig hci0 reset` -> first report heard again after the off-air gap, and the
#     gap's length (N times) and, as the bed's floor,
#     the reset alone (hciconfig hci0 reset until hci0 is up again: RootCanal's bridges down/up).
# Results: onair.json in this scenario's results folder (scripts/bench-onair prints the table).
# shellcheck source=/dev/null
. "$E2E_DIR/lib.sh"
[[ ${E2E_CONTROLLERS:-} == rootcanal* ]] || fail "not on RootCanal"
RELEASE=$REPO/.build/static/beacon-tx
[ -x "$RELEASE" ] || fail "no static release binary at $RELEASE (make release)"
dir=/tmp/bench && mkdir -p "$dir" && cp "$RELEASE" "$dir/beacon-tx" && BTX=$dir/beacon-tx
N=${ONAIR_REPEATS:-5} SOAK=${ONAIR_SECONDS:-30}
U=E2C56DB5-DFFB-48D2-B060-D0F5A71096E0
OA=("${E2E_PY[@]}" "$E2E_DIR/tools/onair.py" "$E2E_OUT/scan-hci1.txt")
scan_start hci1 --clock
addr=$(bdaddr hci0)
up0() { [[ $(hciconfig hci0 2> /dev/null) == *"UP RUNNING"* ]]; }
reset0() { hciconfig hci0 reset 2> /dev/null || true; wait_until 20 up0 || hciconfig hci0 up; }
heard_after() { [[ $("${OA[@]}" --after "$1" --addr "$addr" 2> /dev/null) == *"first_after_s="[0-9]* ]]; }
J=$E2E_OUT/parts && mkdir -p "$J"

soak() {  # soak NAME SECONDS ARGS...: a foreground kiosk, measured for SECONDS after 1 s on air
  local name=$1 secs=$2 t0 t1
  shift 2
  reset0
  run_bg "$name" "$BTX" start --device hci0 "$@"
  wait_until 15 _has_line "$E2E_OUT/$name.log" 'beacon-tx: press Ctrl-C' || fail "$name did not start: $(tail -n 2 "$E2E_OUT/$name.log")"
  _sleep 1
  t0=$EPOCHREALTIME; _sleep "$secs"; t1=$EPOCHREALTIME
  stop_bg "$name" TERM
  "${OA[@]}" --since "$t0" --until "$t1" --addr "$addr" --dwell "${DWELL:-200}" --json > "$J/$name.json"
}

step "soaks"
soak sets3 "$SOAK" --config "$REPO/Config/museum.json" --controller extended
soak rot3 "$SOAK" --config "$REPO/Config/museum.json" --controller legacy
TWELVE=(); for m in $(seq 1 12); do TWELVE+=(--beacon "$U:1:$m"); done
soak rot12 "$SOAK" "${TWELVE[@]}" --controller legacy

step "exec -> first report"
: > "$J/exec.txt"; : > "$J/exec-hcitool.txt"
for i in $(seq "$N"); do
  reset0; _sleep 0.5
  t=$EPOCHREALTIME
  "$BTX" start --device hci0 --uuid "$U" --major 7 --minor "$i" --detach > /dev/null 2>&1 || fail "start --detach exited $?"
  wait_until 15 heard_after "$t" || fail "start $i not heard"
  "${OA[@]}" --after "$t" --addr "$addr" | sed -n 's/^first_after_s=//p' >> "$J/exec.txt"
  "$BTX" stop --device hci0 > /dev/null 2>&1 || true
  reset0; _sleep 0.5
  t=$EPOCHREALTIME
  hcitool -i hci0 cmd 0x08 0x000a 00 > /dev/null
  hcitool -i hci0 cmd 0x08 0x0006 a0 00 a0 00 03 00 00 00 00 00 00 00 00 07 00 > /dev/null
  # shellcheck disable=SC2046
  hcitool -i hci0 cmd 0x08 0x0008 1e $(printf '0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e00007%04xc500' "$((i + 100))" | sed 's/../& /g') > /dev/null
  hcitool -i hci0 cmd 0x08 0x000a 01 > /dev/null
  wait_until 15 heard_after "$t" || fail "hcitool recipe $i not heard"
  "${OA[@]}" --after "$t" --addr "$addr" | sed -n 's/^first_after_s=//p' >> "$J/exec-hcitool.txt"
  hcitool -i hci0 cmd 0x08 0x000a 00 > /dev/null
done

step "re-arm after hciconfig hci0 reset"
: > "$J/rearm.txt"; : > "$J/offair.txt"; : > "$J/reset.txt"
reset0
run_bg kiosk "$BTX" start --device hci0 --uuid "$U" --major 1 --minor 2
wait_until 15 _has_line "$E2E_OUT/kiosk.log" 'beacon-tx: press Ctrl-C' || fail "kiosk did not start"
for i in $(seq "$N"); do
  _sleep 2
  t=$EPOCHREALTIME
  hciconfig hci0 reset
  _sleep 8   # the reset's off-air gap (~4 s through the bed) and reports after it
  g=$("${OA[@]}" --gap-after "$t" --addr "$addr" | sed -n 's/^gap_off_s=\([0-9.]*\) back_s=\([0-9.]*\)$/\1 \2/p')
  [ -n "$g" ] || fail "no off-air gap after reset $i"
  echo "${g#* }" >> "$J/rearm.txt"; echo "${g% *}" >> "$J/offair.txt"
done
stop_bg kiosk TERM
for i in $(seq "$N"); do
  t=$EPOCHREALTIME
  hciconfig hci0 reset 2> /dev/null || true
  wait_until 20 up0 || fail "hci0 not up after reset"
  awk -v a="$t" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f\n", b - a }' >> "$J/reset.txt"
done
"${E2E_PY[@]}" - "$J" "$E2E_OUT/onair.json" "$N" "$SOAK" <<'PY'
import json, statistics, sys
d, out, n, soak = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
def nums(name): return [float(x) for x in open("%s/%s" % (d, name)).read().split()]
def dist(xs): return {"median": round(statistics.median(xs), 3), "min": round(min(xs), 3), "max": round(max(xs), 3), "n": len(xs)}
r = {"repeats": n, "soak_s": soak}
for name in ("sets3", "rot3", "rot12"):
    r[name] = json.load(open("%s/%s.json" % (d, name)))
r["exec_to_first_report_s"] = dist(nums("exec.txt"))
r["hcitool_recipe_to_first_report_s"] = dist(nums("exec-hcitool.txt"))
r["reset_to_first_report_again_s"] = dist(nums("rearm.txt"))
r["reset_off_air_s"] = dist(nums("offair.txt"))
r["bed_reset_down_up_s"] = dist(nums("reset.txt"))
json.dump(r, open(out, "w"), indent=1)
print(json.dumps(r, indent=1))
PY
