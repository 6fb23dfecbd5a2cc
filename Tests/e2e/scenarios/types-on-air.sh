#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# e2e-timeout: 240
# types-on-air (issue 44): an iBeacon, an AltBeacon, an Eddystone-UID with its Eddystone-TLM, an
# Eddystone-URL and raw data (Flags + the local name "beacon-tx") go on air with their own bytes:
# three on extended sets (btvirt has three), all six rotated with legacy commands, the four
# identifying types with the TLM rotated on one extended set (five beacons, three sets), and the
# UID, its TLM and the data as kernel advertising instances (--share always, the TLM re-added with
# fresh counts every 10 s). The receiver on hci1 hears each payload exactly as the dry run prints it
# (the TLM: its configured head, its live counts rising); a report that carries one of our
# identities with other bytes fails. For the four: beacontools and verify (_four; beacon-tx scan
# hears btvirt's advertising once per scan enable only: the rc-types-* scenarios run it).
. "$(dirname "$0")/kiosk.inc"
# shellcheck source=SCRIPTDIR/types.inc
. "$(dirname "$0")/types.inc"
# btvirt has three advertising sets and three kernel instances: three beacons at a time there.
_config "$E2E_OUT/first.json" 0 1 2
_config "$E2E_OUT/last.json" 3 5 4
_run sets "0 1 2" "--mode extended --reenable 0.5" --config "$E2E_OUT/first.json" --controller extended
grep -q 'extended commands, sets 239, 238, 237' "$E2E_OUT/sets.log" || fail "not three sets: $(head -n 3 "$E2E_OUT/sets.log")"
_run rotation "0 1 2 3 4 5" "--mode legacy --reenable 0.5" --config "$E2E_OUT/types.json" --controller legacy --rotation 300
TYPES_SCAN=0 _four four "--mode extended --reenable 0.5"
_log_has "$E2E_OUT/four.log" "rotating" || fail "five beacons on btvirt's three sets not rotated: $(head -n 3 "$E2E_OUT/four.log")"
# The sharing mode: hci0 powered with LE on through MGMT, as bluetoothd powers it.
btmgmt_cmd 0 power off > /dev/null
btmgmt_cmd 0 le on > /dev/null
btmgmt_cmd 0 power on > /dev/null
TYPES_HOLD_S=11 _run shared "3 5 4" "--mode extended --reenable 0.5" --config "$E2E_OUT/last.json" --share always --rotation 1000
grep -q 'as kernel advertising instances' "$E2E_OUT/shared.log" || fail "not shared: $(head -n 3 "$E2E_OUT/shared.log")"
