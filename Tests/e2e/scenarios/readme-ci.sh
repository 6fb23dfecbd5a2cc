#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# readme-ci (issue 14): README's "Checking beacons in CI" blocks, run word for word: the JSON plan,
# the golden check (and its failing case), and a btmon -w capture of a live start verified against
# the config. kiosk.json is Config/kiosk.json; `sudo` is a pass-through (the guest runs as root).
. "$(dirname "$0")/../lib.sh"
need_beacon_tx
work=$(mktemp -d /tmp/readme-ci.XXXXXX)
mkdir "$work/bin"
ln -s "$BEACON_TX" "$work/bin/beacon-tx"
printf '#!/bin/sh\nexec "$@"\n' > "$work/bin/sudo"
chmod +x "$work/bin/sudo"
cp "$REPO/Config/kiosk.json" "$work/kiosk.json"

# The ```sh blocks between the section's heading and the next "## " heading.
blocks=0
in_section=0 in_block=0
: > "$work/snippets.sh"
while IFS= read -r line; do
  if [[ $line == "## Checking beacons in CI" ]]; then in_section=1; continue; fi
  [ "$in_section" = 1 ] || continue
  [[ $line == "## "* ]] && break
  if [[ $line == '```sh' ]]; then in_block=1; blocks=$((blocks + 1)); echo "echo '== README block $blocks'" >> "$work/snippets.sh"; continue; fi
  if [[ $line == '```' ]]; then in_block=0; continue; fi
  [ "$in_block" = 1 ] && printf '%s\n' "$line" >> "$work/snippets.sh"
done < "$REPO/README.md"
[ "$blocks" = 3 ] || fail "README's CI section has $blocks sh blocks, want 3"
cp "$work/snippets.sh" "$E2E_OUT/readme-ci-snippets.sh"

step "running README's CI blocks in $work"
( cd "$work" && PATH="$work/bin:$PATH" bash -e snippets.sh ) > "$E2E_OUT/readme-ci.log" 2>&1 || {
  cat "$E2E_OUT/readme-ci.log"; fail "a README CI block failed (see readme-ci.log)"; }
cat "$E2E_OUT/readme-ci.log"
grep -q '^LE Set Advertising Data minor 2$\|^LE Set Extended Advertising Data minor 2$' "$E2E_OUT/readme-ci.log" \
  || fail "block 1 printed no data command with minor 2"
grep -q '^plan matches kiosk.golden.hex (hex, ' "$E2E_OUT/readme-ci.log" || fail "block 2: no 'plan matches'"
grep -q 'start #3 LE Set Advertising Data: iBeacon minor 2 ≠ 3' "$E2E_OUT/readme-ci.log" || fail "block 2: the changed minor was not named"
grep -q '^PASS: ' "$E2E_OUT/readme-ci.log" || fail "block 3: verify did not pass"
/usr/bin/python3 -c 'import json,sys; v=json.load(open(sys.argv[1])); print("verify.json keys:", list(v)[:6])' "$work/verify.json" \
  || fail "verify.json is not JSON"
