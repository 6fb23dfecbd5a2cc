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
#   the receiver's measures of Tests/e2e/scenarios/onair.inc (ibeacon_data, onair_rx, onair_log,
#   onair_rate, onair_first, at_least, between), shared with the RootCanal scenarios, and:
#   z_heard HEX                     has the receiver a report with data HEX (no wait; for wait_until)
#   z_senders HEX                   "ADDR type=T" of every advertiser heard with data HEX
#   z_after_stop                    the receiver hears nothing of ours for 3 s from now
[ -z "${Z_LIB:-}" ] || return 0
Z_LIB=1
# shellcheck source=SCRIPTDIR/../e2e/lib.sh
. "$E2E_DIR/lib.sh"
# shellcheck source=SCRIPTDIR/../e2e/scenarios/onair.inc
. "$E2E_DIR/scenarios/onair.inc"
# shellcheck source=SCRIPTDIR/bed.sh
. "$(dirname "${BASH_SOURCE[0]}")/bed.sh"
need_beacon_tx
[[ ${E2E_CONTROLLERS:-} == "zephyr "* ]] || fail "not on Zephyr controllers (E2E_CONTROLLERS='${E2E_CONTROLLERS:-}'; run it with Tests/e2e-zephyr/run)"
# shellcheck disable=SC2034  # for the scenarios
Z_KIND=${E2E_CONTROLLERS#zephyr }
Z_UUID=E2C56DB5-DFFB-48D2-B060-D0F5A71096E0
# shellcheck disable=SC2034  # for the scenarios
Z_GOLDEN=$(ibeacon_data 1 2)
# shellcheck disable=SC2034
Z_GOLDEN_ARGS=(--uuid "$Z_UUID" --major 1 --minor 2)

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
