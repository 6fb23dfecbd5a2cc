#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# release-static (issue 12): the static release binary (`make release`, .build/static/beacon-tx),
# copied alone to the guest's tmpfs, runs there: `ldd` calls it "not a dynamic executable",
# `devices --json` prints hci0's address as hciconfig does (no libbluetooth ba2str), and
# `start --detach` (making the lock directory, as where no package made it) is heard on hci1 with
# the golden bytes; `stop` disables it.
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"
GOLDEN=0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5
RELEASE=$REPO/.build/static/beacon-tx
[ -x "$RELEASE" ] || fail "no static release binary at $RELEASE (make release)"
BIN=/tmp/release-static/beacon-tx
mkdir -p "${BIN%/*}" && cp "$RELEASE" "$BIN"

step "ldd"
out=$(ldd "$BIN" 2>&1) && fail "ldd: $out"
[[ $out == *"not a dynamic executable"* ]] || fail "ldd says: $out"
"$BIN" --version | grep -qx "beacon-tx [0-9.]* ([0-9a-f]\{12\}\(, modified\)\{0,1\})" || fail "--version: $("$BIN" --version 2>&1)"

step "devices --json: the address as hciconfig prints it"
addr=$(bdaddr hci0)
"$BIN" devices --json > "$E2E_OUT/devices.json" || fail "devices --json exited $?"
"${E2E_PY[@]}" - "$E2E_OUT/devices.json" "$addr" <<'PY' || fail "devices --json: hci0's address is not $addr: $(cat "$E2E_OUT/devices.json")"
import json, sys
rows = {r["name"]: r for r in json.load(open(sys.argv[1]))}
assert rows["hci0"]["address"] == sys.argv[2], rows["hci0"]
PY

step "start --detach, heard on hci1; stop"
# The lock directory as on a machine without the package: the static binary makes it. Its group
# comes from /etc/group: getgrnam went through NSS, and libnss_systemd.so.2 (nsswitch.conf's
# "group: files systemd") crashed the static binary with SIGSEGV.
grep -E '^group:' /etc/nsswitch.conf || true
rm -rf /run/beacon-tx/lock
scan_start hci1
"$BIN" start --device hci0 --detach --config "$REPO/Config/kiosk.json" || fail "start --detach exited $?"
[ -d /run/beacon-tx/lock ] || fail "start made no lock directory"
expect_adv_data -s hci1 -a "$addr" "$GOLDEN"
expect_last_adv_enable hci0 enable
"$BIN" stop --device hci0 || fail "stop exited $?"
expect_last_adv_enable hci0 disable
