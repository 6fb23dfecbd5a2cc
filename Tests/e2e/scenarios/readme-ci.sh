#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# e2e-timeout: 240
# readme-ci (issue 14, issue 30): the CI recipes, run word for word. Docs/ci.md's "Checking beacons
# in CI" blocks: the JSON plan, the golden check (and its failing case), and a btmon -w capture of a
# live start verified against the config; then README's CI quick start (golden, --check, verify).
# kiosk.json is Config/kiosk.json; `sudo` is a pass-through (the guest runs as root).
. "$(dirname "$0")/../lib.sh"
need_beacon_tx
work=$(mktemp -d /tmp/readme-ci.XXXXXX)
mkdir "$work/bin"
ln -s "$BEACON_TX" "$work/bin/beacon-tx"
printf '#!/bin/sh\nexec "$@"\n' > "$work/bin/sudo"
chmod +x "$work/bin/sudo"
cp "$REPO/Config/kiosk.json" "$work/kiosk.json"

# extract_sh FILE HEADING OUT: appends to OUT the ```sh blocks between the line HEADING and the next
# heading of the same or a higher level, each after an `echo '== FILE block N'` line; prints N.
# One awk, not a shell loop: the traced guest runs each shell command slowly under TCG.
extract_sh() {
  awk -v heading="$2" -v out="$3" -v name="$(basename "$1")" '
    BEGIN { level = index(heading, " ") - 1 }
    !in_section { if ($0 == heading) in_section = 1; next }
    !in_block && /^#+ / { if (index($0, " ") - 1 <= level) exit }
    $0 == "```sh" { in_block = 1; blocks++; print "echo '\''== " name " block " blocks "'\''" >> out; next }
    $0 == "```" { in_block = 0; next }
    in_block { print >> out }
    END { print blocks + 0 }' "$1"
}

: > "$work/snippets.sh"
blocks=$(extract_sh "$REPO/Docs/ci.md" "## Checking beacons in CI" "$work/snippets.sh")
[ "$blocks" = 3 ] || fail "Docs/ci.md's CI section has $blocks sh blocks, want 3"
mkdir "$work/quick"
cp "$REPO/Config/kiosk.json" "$work/quick/kiosk.json"
: > "$work/quick/snippets.sh"
blocks=$(extract_sh "$REPO/README.md" "### Checking beacons in CI" "$work/quick/snippets.sh")
[ "$blocks" = 1 ] || fail "README's CI quick start has $blocks sh blocks, want 1"
cp "$work/snippets.sh" "$E2E_OUT/readme-ci-snippets.sh"

step "running Docs/ci.md's CI blocks in $work"
( cd "$work" && PATH="$work/bin:$PATH" bash -e snippets.sh ) > "$E2E_OUT/readme-ci.log" 2>&1 || {
  cat "$E2E_OUT/readme-ci.log"; fail "a Docs/ci.md CI block failed (see readme-ci.log)"; }
cat "$E2E_OUT/readme-ci.log"
grep -q '^LE Set Advertising Data minor 2$\|^LE Set Extended Advertising Data minor 2$' "$E2E_OUT/readme-ci.log" \
  || fail "block 1 printed no data command with minor 2"
grep -q '^plan matches kiosk.golden.hex (hex, ' "$E2E_OUT/readme-ci.log" || fail "block 2: no 'plan matches'"
grep -q 'start #3 LE Set Advertising Data: iBeacon minor 2 ≠ 3' "$E2E_OUT/readme-ci.log" || fail "block 2: the changed minor was not named"
grep -q '^PASS: ' "$E2E_OUT/readme-ci.log" || fail "block 3: verify did not pass"
/usr/bin/python3 -c 'import json,sys; v=json.load(open(sys.argv[1])); print("verify.json keys:", list(v)[:6])' "$work/verify.json" \
  || fail "verify.json is not JSON"

cp "$work/quick/snippets.sh" "$E2E_OUT/readme-ci-quick-snippets.sh"
step "running README's CI quick start in $work/quick"
( cd "$work/quick" && PATH="$work/bin:$PATH" bash -e snippets.sh ) > "$E2E_OUT/readme-ci-quick.log" 2>&1 || {
  cat "$E2E_OUT/readme-ci-quick.log"; fail "README's CI quick start failed (see readme-ci-quick.log)"; }
cat "$E2E_OUT/readme-ci-quick.log"
grep -q '^plan matches kiosk.golden.hex (hex, ' "$E2E_OUT/readme-ci-quick.log" || fail "quick start: no 'plan matches'"
grep -q '^PASS: ' "$E2E_OUT/readme-ci-quick.log" || fail "quick start: verify did not pass"
