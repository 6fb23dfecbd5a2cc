#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# e2e-controllers: rootcanal legacy-only
# e2e-timeout: 240
# rc-bluez-two-kernel (issue 23, item 3: the fight budget): two kernel instances that the kernel
# rotates every ~2 s on the single instance take it from beacon-tx at every turn. beacon-tx re-arms
# (three times, fewer when a re-arm races the kernel's rotation), then yields (3 takeovers in 30 s): the receiver hears both kernel instances and none
# of our beacons. Once the kernel's instances are gone (`btmgmt clr-adv`) and 10 s have passed
# without a kernel advertising command, beacon-tx re-arms by itself and all three beacons rotate
# again; after SIGTERM nothing of ours is on air.
. "$(dirname "$0")/rc.inc"
rc_bluez
onair_rx
rc_kernel_adv 1
rc_kernel_adv 2
_sleep 1
ts=$EPOCHREALTIME
kiosk_start k --beacon "$RC_UUID:1:1" --beacon "$RC_UUID:1:2" --beacon "$RC_UUID:1:3" --share never   # own the instance (auto would share it)
wait_until 30 _log_has "$E2E_OUT/k.log" "yielding" || fail "no yield: $(tail -n 4 "$E2E_OUT/k.log")"
ty=$EPOCHREALTIME
n=0; while IFS= read -r l; do [[ $l == *"re-armed"* ]] && n=$((n + 1)); done < "$E2E_OUT/k.log"
# 4 takeovers: 3 re-arms, or fewer when a re-arm raced the kernel's own rotation (Command Disallowed)
[ "$n" -ge 1 ] && [ "$n" -le 3 ] || fail "$n re-arms before the yield, expected 1-3"
awk -v a="$ts" -v b="$ty" 'BEGIN { printf "yielded %.1f s after start, after 3 re-arms\n", b - a }'
_sleep 1
t1=$EPOCHREALTIME; _sleep 4; t2=$EPOCHREALTIME
rc_heard yielded "$t1" "$t2"
for m in 1 2 3; do [ "$(rc_per "1.$m")" = 0 ] || fail "beacon 1.$m heard while yielded ($(rc_per "1.$m")/s)"; done
for i in 1 2; do at_least "$(rc_per "k$i")" 0.5 "kernel instance $i while yielded"; done
bg_running k || fail "beacon-tx exited while yielded"
btmgmt_cmd 0 clr-adv > /dev/null
tc=$EPOCHREALTIME
wait_until 20 _log_has "$E2E_OUT/k.log" "after: the other owner of the advertising instance was quiet for 10 s" ||
  fail "no re-arm after the quiet period: $(tail -n 3 "$E2E_OUT/k.log")"
tr=$EPOCHREALTIME
awk -v a="$tc" -v b="$tr" 'BEGIN { printf "re-armed %.1f s after btmgmt clr-adv\n", b - a }'
_sleep 1
t1=$EPOCHREALTIME; _sleep 3; t2=$EPOCHREALTIME
rc_heard re-armed "$t1" "$t2"
for m in 1 2 3; do at_least "$(rc_per "1.$m")" 0.3 "beacon 1.$m after the yield"; done
stop_bg k TERM; t3=$EPOCHREALTIME
[ "$BG_RC" = 0 ] || fail "exit $BG_RC after SIGTERM"
cat "$E2E_OUT/k.log"
_sleep 3; t4=$EPOCHREALTIME
rc_after_stop "$t3" "$t4" 1.1 1.2 1.3
[ "$ONAIR_RATE" = 0 ] || fail "kernel instance 1 heard after clr-adv and the stop"
