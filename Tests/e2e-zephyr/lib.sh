# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Tests/e2e-zephyr/lib.sh: the Zephyr scenarios' library. A scenario starts with
#     # e2e-controllers: zephyr legacy          (or: zephyr extended)
#     . "$(dirname "$0")/../lib.sh"
# and gets Tests/e2e/lib.sh (fail, step, scan_start, expect_adv_data, hci_log, run_bg,
# kiosk_start ...; Tests/e2e/README.md), Tests/e2e-zephyr/bed.sh (zb_ctl, zb_attach, zb_detach,
# zb_address, zb_power) and the helpers below. hci0 is Zephyr's controller under test (the
# legacy or the extended build, Z_KIND), hci1 the receiver; both have a static address and are
# powered. Their public address is 00:00:00:00:00:00, so the receiver's checks match the
# advertising data, not the advertiser's address: nothing else advertises in the simulation.
#
#   z_data MAJOR MINOR [POWER_HEX]  an iBeacon's advertising data (Z_UUID), as rawscan.py prints it
#   z_rx [ARGS]                     the receiver: rawscan.py --clock on hci1 (each report stamped)
#   z_onair ARGS                    Tests/e2e/tools/onair.py on the receiver's log
#   z_rate MAJOR.MINOR ARGS         its reports per second (in Z_RATE)
#   z_first MAJOR.MINOR T ARGS      its first report at or after T (Z_FIRST, Z_FIRST_S)
#   z_at_least X Y MSG, z_between X LO HI MSG
#   z_heard HEX                     has the receiver a report with data HEX (no wait; for wait_until)
#   z_senders HEX                   "ADDR type=T" of every advertiser heard with data HEX
#   z_after_stop                    the receiver hears nothing of ours for 3 s from now
[ -z "${Z_LIB:-}" ] || return 0
Z_LIB=1
# shellcheck source=SCRIPTDIR/../e2e/lib.sh
. "$E2E_DIR/lib.sh"
# shellcheck source=SCRIPTDIR/bed.sh
. "$(dirname "${BASH_SOURCE[0]}")/bed.sh"
need_beacon_tx
[[ ${E2E_CONTROLLERS:-} == "zephyr "* ]] || fail "not on Zephyr controllers (E2E_CONTROLLERS='${E2E_CONTROLLERS:-}'; run it with Tests/e2e-zephyr/run)"
# shellcheck disable=SC2034  # for the scenarios
Z_KIND=${E2E_CONTROLLERS#zephyr }
Z_UUID=E2C56DB5-DFFB-48D2-B060-D0F5A71096E0
z_data() { printf '0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e0%04x%04x%s\n' "$1" "$2" "${3:-c5}"; }
# shellcheck disable=SC2034  # for the scenarios
Z_GOLDEN=$(z_data 1 2)
# shellcheck disable=SC2034
Z_GOLDEN_ARGS=(--uuid "$Z_UUID" --major 1 --minor 2)

# shellcheck disable=SC2120  # the scenarios call it with and without options
z_rx() { scan_start hci1 --clock "$@"; }
z_onair() { "${E2E_PY[@]}" "$E2E_DIR/tools/onair.py" "$E2E_OUT/scan-hci1.txt" "$@"; }

z_rate() {
  local beacon=$1 l
  shift
  Z_RATE=0
  while read -r l; do [[ $l == "beacon $beacon "* ]] && { Z_RATE=${l#* per_s=}; Z_RATE=${Z_RATE%% *}; }; done < <(z_onair "$@")
  return 0
}

z_first() {
  local beacon=$1 t=$2 l
  shift 2
  Z_FIRST_S=
  while read -r l; do [[ $l == "beacon $beacon "* ]] && { Z_FIRST_S=${l##* first_s=}; Z_FIRST_S=${Z_FIRST_S%% *}; }; done < <(z_onair --since "$t" "$@") || true
  [ -n "$Z_FIRST_S" ] || fail "beacon $beacon not heard after $t"
  # shellcheck disable=SC2034  # for the scenarios
  Z_FIRST=$(awk -v t="$t" -v f="$Z_FIRST_S" 'BEGIN { printf "%.6f", t + f }')
}

z_at_least() { awk -v x="$1" -v y="$2" 'BEGIN { exit !(x + 0 >= y + 0) }' || fail "$3 ($1 < $2)"; }
z_between() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x + 0 >= lo + 0 && x + 0 <= hi + 0) }' || fail "$4 ($1 not in $2..$3)"; }

z_heard() { _S=hci1 _A='' _H=$(_hex "$1"); _adv_seen; }

# z_senders HEX: one line per advertiser (address and address type as the receiver got them) of the
# reports whose data is exactly HEX, with its number of reports: "C0:BE:AC:00:00:01 type=1 reports=12".
z_senders() {
  local h l a t
  declare -A heard=()
  h=$(_hex "$1")
  while IFS= read -r l; do
    [[ $l == report\ *" data=$h" ]] || continue
    a=${l#* addr=}; a=${a%% *}; t=${l#* addr_type=}; t=${t%% *}
    heard["$a type=$t"]=$(( ${heard["$a type=$t"]:-0} + 1 ))
  done < "$E2E_OUT/scan-hci1.txt"
  for a in "${!heard[@]}"; do echo "$a reports=${heard[$a]}"; done
}

# z_after_stop HEX...: after a stop: from 0.5 s on (reports already on their way over the UARTs),
# the receiver hears none of these for 3 s.
z_after_stop() {
  local h
  _sleep 0.5
  scan_clear hci1
  _sleep 3
  for h in "$@"; do expect_no_adv_data -s hci1 -t 0.1 "$h"; done
}
