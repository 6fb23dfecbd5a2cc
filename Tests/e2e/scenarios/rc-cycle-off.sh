#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# e2e-controllers: rootcanal legacy-only
# e2e-timeout: 240
# rc-cycle-off (issue 29, items 4 and 10): off means off in raw HCI on a single instance the kernel
# also uses. With bluetoothd and a kernel instance (`btmgmt add-adv 1`), `start --share never
# --cycle 4:4:2` takes the instance; at each off phase it disables it and writes the kernel's data
# back (blank data when the kernel wrote it before the start), so when the kernel's rotation
# re-enables the instance ~2 s later our beacon stays off air. The independent receiver on hci1
# hears our beacon in each on phase and not at all from 0.5 s after each off phase begins to its
# end, the phases timed by beacon-tx's sd_notify STATUS messages (cycle-windows.inc). The reports
# per phase are printed (WINDOW lines).
. "$(dirname "$0")/rc.inc"
. "$(dirname "$0")/cycle-windows.inc"
rc_bluez
onair_rx
rc_kernel_adv 1
notify_start --clock
NOTIFY_SOCKET=$sock run_bg cyc "$BEACON_TX" start --device hci0 --beacon "$RC_UUID:1:1" --share never --cycle 4:4:2
wait_bg cyc 60
[ "$BG_RC" = 0 ] || fail "exit $BG_RC after the last cycle, want 0: $(tail -n 3 "$E2E_OUT/cyc.log")"
cycle_windows_check 4 4 2
stop_bg notify TERM
