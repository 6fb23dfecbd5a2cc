#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# onair-bytes-bredr (issue 40): the advertising data on air is ours byte for byte with BR/EDR on and
# with BR/EDR off (`btmgmt bredr off`), in raw HCI and in the sharing mode, its kernel advertising
# instances added with MGMT Add Extended Advertising Parameters and Data, and with Add Advertising
# (`--share-commands add-advertising`). hci0 is powered through MGMT
# as bluetoothd powers it, so the kernel knows its BR/EDR setting. A kernel that prepends its own
# Flags field, or cuts the data, fails here: every report the receiver on hci1 hears with our UUID
# must be exactly one of the two payloads that `start --dry-run` prints, and each must be heard.
. "$(dirname "$0")/verify.inc"
v_config "$E2E_OUT/kiosk.json" 1 2

# _power BREDR: hci0 off, LE on, BR/EDR on|off, on again, all through MGMT; checks the kernel's
# current settings.
_power() {
  local s
  btmgmt_cmd 0 power off > /dev/null
  btmgmt_cmd 0 le on > /dev/null
  echo "btmgmt bredr $1: $(btmgmt_cmd 0 bredr "$1" | tail -n 1)"
  btmgmt_cmd 0 power on > /dev/null
  s=$(btmgmt_cmd 0 info | grep 'current settings')
  echo "hci0 $s"
  [[ $s == *"powered"* && $s == *" le"* ]] || fail "hci0 not powered with LE: $s"
  if [ "$1" = on ]; then
    [[ $s == *"br/edr"* ]] || fail "BR/EDR not on: $s"
  else
    [[ $s != *"br/edr"* ]] || fail "BR/EDR still on: $s"
  fi
}

# _exact NAME: the reports since the last scan_clear; each with our UUID is one of our two
# payloads, and both were heard.
_exact() {
  local l d n1=0 n2=0 want1 want2
  want1=$(v_data 1) want2=$(v_data 2)
  while read -r l; do
    [[ $l == *e2c56db5dffb48d2b060d0f5a71096e0* ]] || continue
    d=${l##*data=}
    if [ "$d" = "$want1" ]; then n1=$((n1 + 1))
    elif [ "$d" = "$want2" ]; then n2=$((n2 + 1))
    else fail "$1: our beacon on air with other bytes: $d"
    fi
  done < <(scan_reports hci1)
  echo "$1: $n1 and $n2 reports, each exactly $want1 / $want2"
  [ "$n1" -gt 0 ] && [ "$n2" -gt 0 ] || fail "$1: minor 1 heard $n1 times, minor 2 $n2 times"
}

scan_start hci1 --mode extended --reenable 0.5
for bredr in on off; do
  _power "$bredr"
  for mode in raw share-extended share-add; do
    name=bredr-$bredr-$mode
    args=(--config "$E2E_OUT/kiosk.json" --rotation 1000)
    want=
    case $mode in
      share-extended) args+=(--share always) want='(MGMT Add Extended Advertising Parameters/Data' ;;
      share-add) args+=(--share always --share-commands add-advertising) want='(MGMT Add Advertising,' ;;
    esac
    step "$name"
    scan_clear hci1
    kiosk_start "$name" "${args[@]}"
    if [ -n "$want" ]; then
      grep -F "as kernel advertising instances" "$E2E_OUT/$name.log" | grep -F "$want" ||
        fail "$name: not shared with '$want': $(tail -n 3 "$E2E_OUT/$name.log")"
    fi
    expect_adv_data -s hci1 -t 15 "$(v_data 1)"
    expect_adv_data -s hci1 -t 15 "$(v_data 2)"
    _sleep 3
    stop_bg "$name"
    [ "$BG_RC" = 0 ] || fail "$name: beacon-tx exited $BG_RC on SIGTERM"
    _exact "$name"
  done
done
