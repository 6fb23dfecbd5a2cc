#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# doctor-nonroot (issue 32): as user nobody without capabilities doctor still runs (exit 0: nothing
# fails), says WARN privileges (CAP_NET_RAW and CAP_NET_ADMIN missing, start would exit 77) and, per
# finding, what it could not see and why: the controller's capabilities (CAP_NET_RAW), the kernel's
# instances (MGMT needs CAP_NET_ADMIN). What anyone may read is still there: up and powered (MGMT
# Read Controller Information is allowed to an untrusted socket), rfkill, the adapter's address.
# With the service's ambient capabilities the same user sees everything.
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"
need_beacon_tx

rc=0
setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
  "$BEACON_TX" doctor --device hci0 > "$E2E_OUT/doctor.txt" 2> "$E2E_OUT/doctor.err" || rc=$?
cat "$E2E_OUT/doctor.txt" "$E2E_OUT/doctor.err"
[ "$rc" = 0 ] || fail "doctor as nobody exited $rc, want 0"
grep -q '^WARN  privileges  *-  *uid 65534 lacks CAP_NET_RAW and CAP_NET_ADMIN: start, stop and scan would exit 77 as this user$' "$E2E_OUT/doctor.txt" || fail "no WARN privileges"
grep -q 'reading them from the controller needs CAP_NET_RAW' "$E2E_OUT/doctor.txt" || fail "does not say why the capabilities are missing"
grep -q '(MGMT needs CAP_NET_ADMIN for it)' "$E2E_OUT/doctor.txt" || fail "does not say why the instances are missing"
grep -q '^OK    power  *hci0  up and powered$' "$E2E_OUT/doctor.txt" || fail "power not seen unprivileged"
grep -q '^OK    rfkill  *hci0  not blocked by rfkill$' "$E2E_OUT/doctor.txt" || fail "rfkill not seen unprivileged"

setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=+net_raw,+net_admin --ambient-caps=+net_raw,+net_admin \
  "$BEACON_TX" doctor --device hci0 > "$E2E_OUT/doctor-caps.txt" 2>&1 || fail "doctor with the service's capabilities exited $?"
cat "$E2E_OUT/doctor-caps.txt"
grep -q '^OK    privileges  *-  *uid 65534 with CAP_NET_RAW and CAP_NET_ADMIN' "$E2E_OUT/doctor-caps.txt" || fail "no OK privileges"
grep -q '^OK    kernel-instances  *hci0  no kernel advertising instances' "$E2E_OUT/doctor-caps.txt" || fail "instances not seen with CAP_NET_ADMIN"
