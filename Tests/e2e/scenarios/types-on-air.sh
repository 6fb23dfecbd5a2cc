#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# types-on-air (issue 44): an iBeacon, an AltBeacon, an Eddystone-UID, an Eddystone-URL and raw
# data (Flags + the local name "beacon-tx") go on air with their own bytes: three on extended sets
# (btvirt has three), all five rotated with legacy commands, and all five as kernel advertising
# instances (--share always). The receiver on hci1 hears each payload exactly as the dry run
# prints it; a report that carries one of our identities with other bytes fails.
. "$(dirname "$0")/kiosk.inc"
ALT=2F234454-CF6D-4A0F-ADF2-F4911BA9FFA6
B=("{ \"identifier\": \"ios\", \"uuid\": \"$K_UUID\", \"major\": 1, \"minor\": 2 }"
   "{ \"identifier\": \"android\", \"type\": \"altbeacon\", \"id1\": \"$ALT\", \"id2\": 1, \"id3\": 2 }"
   '{ "type": "eddystone-url", "url": "https://example.com/" }'
   '{ "type": "eddystone-uid", "namespace": "8b0ca750e7a74e14bd99", "instance": "000000000001" }'
   '{ "type": "data", "data": "020106 0a09626561636f6e2d7478" }')
_config() {   # _config FILE I...: a config of the beacons I (0-based) of B
  local i sep=""
  { echo '{ "beacons": ['
    for i in "${@:2}"; do echo "$sep${B[i]}"; sep=,; done
    echo '] }'; } > "$1"
}
_config "$E2E_OUT/types.json" 0 1 2 3 4
# Each beacon's data from the dry run (its "data:" lines), and a marker only that beacon's bytes hold.
mapfile -t WANT < <("$BEACON_TX" start --dry-run --config "$E2E_OUT/types.json" | sed -n 's/^  data: *\([0-9a-f]*\) .*/\1/p')
MARK=(e2c56db5dffb48d2b060d0f5a71096e0 2f234454cf6d4a0fadf2f4911ba9ffa6 6578616d706c65 8b0ca750e7a74e14bd99 626561636f6e2d7478)
[ "${#WANT[@]}" = 5 ] || fail "the dry run printed ${#WANT[@]} data lines, not 5"
printf 'want %s\n' "${WANT[@]}"

# _exact NAME "I...": beacons I (0-based) were each heard, and every report with a marker is
# that beacon's bytes.
_exact() {
  local l d i counts=(0 0 0 0 0)
  while read -r l; do
    d=${l##*data=}
    for ((i = 0; i < 5; i++)); do
      [[ $d == *"${MARK[i]}"* ]] || continue
      [ "$d" = "${WANT[i]}" ] || fail "$1: beacon $((i + 1)) on air with other bytes: $d (want ${WANT[i]})"
      counts[i]=$((counts[i] + 1))
    done
  done < <(scan_reports hci1)
  echo "$1: reports per beacon 1-5: ${counts[*]}"
  for i in $2; do [ "${counts[i]}" -gt 0 ] || fail "$1: beacon $((i + 1)) never heard"; done
}

K_ADDR=$(bdaddr hci0)
scan_start hci1 --mode extended --reenable 0.5
_run() {   # _run NAME "I..." SCAN ARGS...: start, hear beacons I (a legacy or extended scan), stop, check every report
  local name=$1 which=$2 mode=$3 i
  shift 3
  step "$name"
  scan_stop hci1
  scan_clear hci1
  scan_start hci1 --mode "$mode" --reenable 0.5
  kiosk_start "$name" "$@"
  for i in $which; do expect_adv_data -s hci1 -t 20 "${WANT[i]}"; done
  _sleep 2
  stop_bg "$name"
  [ "$BG_RC" = 0 ] || fail "$name: beacon-tx exited $BG_RC on SIGTERM"
  _exact "$name" "$which"
}
# btvirt has three advertising sets and three kernel instances: three beacons at a time there.
_config "$E2E_OUT/first.json" 0 1 2
_config "$E2E_OUT/last.json" 2 3 4
_run sets "0 1 2" extended --config "$E2E_OUT/first.json" --controller extended
grep -q 'extended commands, sets 239, 238, 237' "$E2E_OUT/sets.log" || fail "not three sets: $(head -n 3 "$E2E_OUT/sets.log")"
_run rotation "0 1 2 3 4" legacy --config "$E2E_OUT/types.json" --controller legacy --rotation 300
# The sharing mode: hci0 powered with LE on through MGMT, as bluetoothd powers it.
btmgmt_cmd 0 power off > /dev/null
btmgmt_cmd 0 le on > /dev/null
btmgmt_cmd 0 power on > /dev/null
_run shared "2 3 4" extended --config "$E2E_OUT/last.json" --share always --rotation 1000
grep -q 'as kernel advertising instances' "$E2E_OUT/shared.log" || fail "not shared: $(head -n 3 "$E2E_OUT/shared.log")"
