# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Tests/e2e/rootcanal/bed.sh: RootCanal controllers for the e2e guest, sourced by vm/guest-run.
# Google's RootCanal (the Android virtual controller) models the link layer as the Core spec writes
# it: the legacy/extended mixing rule, every advertising event delivered to scanners, a limited
# number of advertising sets. One RootCanal process serves both controllers; each one is joined to
# the guest kernel's /dev/vhci by tools/vhci-bridge.py, so hci0 and hci1 are ordinary kernel
# controllers on one virtual air (beacon-tx on hci0, the receiver on hci1).
#
#   rc_up KIND     starts RootCanal and the two bridges, brings hci0/hci1 up (~45 s under TCG)
#   rc_reset       `hciconfig hciN reset` of both (between scenarios that share one start)
#   rc_down        stops them; the controllers go away
#
# KIND is hci0's controller (hci1, the receiver, is always RootCanal's DEFAULT):
#   default       DEFAULT preset: Core 5.3, 16 advertising sets, extended advertising
#   legacy-only   DEFAULT with `le_extended_advertising: false`, like a Raspberry Pi's controller
#   few-sets      LAIRD_BL654: 4 advertising sets
#   v41           legacy-only behind tools/quirkproxy.py (quirk v41): reports HCI 4.1 and answers
#                 0x12 to a non-connectable legacy interval below 100 ms, as Core 4.x controllers do
#                 (RootCanal itself checks only 0x0020-0x4000)
#   ext-refused   DEFAULT behind tools/quirkproxy.py (quirk ext-refused): extended advertising listed
#                 in LE features and Supported_Commands, the set commands answered Unknown HCI Command
#                 (0x01), like a Raspberry Pi 4's controller
#   quirky        DEFAULT behind tools/quirkproxy.py (quirks redundant-disable,slow): Command
#                 Disallowed to a disable of advertising that is not on (BCM4345), every completion
#                 500 ms late; SIGUSR1 to the proxy: a Hardware Error
#   flaky         DEFAULT behind tools/quirkproxy.py (quirk data-disallowed): every fourth write of
#                 advertising data while advertising is answered Command Disallowed (bleno #136);
#                 SIGUSR2 to the proxy (any kind): 5 s without an answer
#   legacy-proxy  legacy-only behind tools/quirkproxy.py with no quirk: the signals' Hardware Error
#                 and silence on a Raspberry Pi's kind of controller (the sharing-mode soak)
#   credit        DEFAULT behind tools/quirkproxy.py, brought up with no quirk; SIGHUP to the proxy
#                 turns on credit-nop (every completion gives no command credit, a NOP 200 ms later
#                 gives it back), which Debian 12's kernel cannot set a controller up with
#
# Notes: with -configuration RootCanal 1.13 listens only on the listed ports and each takes ONE
# connection, so readiness is its "Listening on" log line, never a probe connection. Each bridge
# connects to TCP before it opens /dev/vhci: the kernel then registers hciN with a controller that
# answers, and its setup HCI Reset is not lost. The guest must not run btvirt meanwhile.
# Needs: Tests/e2e/rootcanal/setup on the host (RC_ENV: its bed.env, in guest.conf).
RC_KIND=
RC_PIDS=()
RC_PORT0=6412 RC_PORT1=6413 RC_PROXY=6422

_rc_log() { printf '%(%T)T.%s rootcanal: %s\n' -1 "${EPOCHREALTIME:11:3}" "$*"; }

# rc_config KIND: the -configuration textproto (hci0's port, then hci1's).
rc_config() {
  local c0
  case $1 in
    default|ext-refused|quirky|flaky|credit) c0='preset: DEFAULT' ;;
    legacy-only|v41|legacy-proxy) c0='preset: DEFAULT features { le_extended_advertising: false }' ;;
    few-sets) c0='preset: LAIRD_BL654' ;;
    *) echo "rc_config: unknown controller kind '$1'" >&2; return 1 ;;
  esac
  echo "tcp_server { tcp_port: $RC_PORT0 configuration { $c0 } } tcp_server { tcp_port: $RC_PORT1 configuration { preset: DEFAULT } }"
}

_rc_listening() { _log_has "$RC_LOG" "Listening on: $1 "; }

# rc_up KIND: the bed, or (exit 1) nothing of it left running, its logs' last lines and then the
# reason as setup.log's last line. A half-started bed must not outlive the failure: its RootCanal
# would keep the ports, and every later scenario's bed would fail on them.
rc_up() {
  local f
  RC_WHY=
  _rc_up "$1" && return 0
  for f in "$RC_LOG" "$RUN_DIR/quirkproxy.log" "$RUN_DIR"/rootcanal-bridge[01].log; do
    [ -s "$f" ] && _rc_log "${f##*/}: $(tail -n 3 "$f" | tr '\n' ' ')"
  done
  rc_down
  _rc_log "${RC_WHY:-failed}"
  return 1
}
_rc_present() { compgen -G '/sys/class/bluetooth/hci*' | sed 's,.*/,,' | tr '\n' ' '; }
_rc_fail() { RC_WHY=$*; _rc_log "$*"; return 1; }

_rc_up() {
  local kind=$1 conf i p
  # shellcheck source=/dev/null
  . "$RC_ENV"                       # RC_BIN RC_LIB
  conf=$(rc_config "$kind") || return 1
  RC_LOG=$RUN_DIR/rootcanal-$kind.log
  : > "$RC_LOG"
  rm -f "$RUN_DIR/quirkproxy.log" "$RUN_DIR"/rootcanal-bridge[01].log
  ip link set lo up
  (cd /tmp && exec "$RC_LIB/ld-linux-x86-64.so.2" --library-path "$RC_LIB" "$RC_BIN" \
     -test_port 6401 -hci_port 6402 -link_port 6403 -link_ble_port 6404 -configuration "$conf") > "$RC_LOG" 2>&1 &
  RC_PIDS+=($!)
  for p in $RC_PORT0 $RC_PORT1; do
    wait_until 30 _rc_listening "$p" || _rc_fail "not listening on $p" || return
  done
  p=$RC_PORT0
  case $kind in
    v41|ext-refused|quirky|flaky|legacy-proxy|credit)
      local quirks=$kind
      [ "$kind" = quirky ] && quirks=redundant-disable,slow
      [ "$kind" = flaky ] && quirks=data-disallowed
      [ "$kind" = legacy-proxy ] && quirks=none
      [ "$kind" = credit ] && quirks=none
      : > "$RUN_DIR/quirkproxy.log"
      "${E2E_PY[@]}" -u "$E2E_DIR/tools/quirkproxy.py" "$RC_PROXY" "$RC_PORT0" "$quirks" > "$RUN_DIR/quirkproxy.log" 2>&1 &
      RC_PIDS+=($!)
      wait_until 30 _log_has "$RUN_DIR/quirkproxy.log" listening || _rc_fail "quirkproxy did not start" || return
      p=$RC_PROXY ;;
  esac
  i=0
  for p in $p $RC_PORT1; do
    # tools/vhci-bridge.py, not Bumble's hci_bridge: that one closed /dev/vhci (and so unregistered
    # hciN for good) when the kernel refused a late event with ENXIO after a power off (issue 45)
    "${E2E_PY[@]}" -u "$E2E_DIR/tools/vhci-bridge.py" "$p" > "$RUN_DIR/rootcanal-bridge$i.log" 2>&1 &
    RC_PIDS+=($!)
    wait_until 60 test -e "/sys/class/bluetooth/hci$i" ||
      _rc_fail "hci$i did not appear (bridge $i: $(grep -o 'hci index [0-9]*\|ending: .*' "$RUN_DIR/rootcanal-bridge$i.log" | tr '\n' ' '); present: $(_rc_present))" || return
    i=$((i + 1))
  done
  for i in 0 1; do
    wait_until 60 hciconfig "hci$i" up 2> /dev/null || _rc_fail "hciconfig hci$i up failed" || return
  done
  # A controller whose first setup failed (the kernel's HCI Reset went unanswered while the bridge
  # and the proxy were starting on a loaded host: Close Index 2 s later) still comes up under
  # hciconfig, but never becomes an MGMT index: every MGMT command gets Invalid Index, so bluetoothd
  # and the sharing mode never see it (a CI run's soak-raw). The bed fails, and gets its second try.
  for i in 0 1; do
    wait_until 10 _rc_mgmt_index "$i" ||
      _rc_fail "hci$i is no MGMT index (its first setup failed): $(btmgmt_cmd "$i" info | tail -n 1)" || return
  done
  RC_KIND=$kind
  _rc_log "up: $kind (hci0), DEFAULT (hci1)"
}

# rc_reset: both controllers reset and up again (advertising sets, the family lock and scans gone).
rc_reset() {
  local i
  for i in 0 1; do
    hciconfig "hci$i" reset 2> /dev/null || true
    wait_until 20 _rc_hci_up "$i" || hciconfig "hci$i" up || { _rc_log "hci$i not up after reset"; return 1; }
  done
}
_rc_hci_up() { [[ $(hciconfig "hci$1" 2> /dev/null) == *"UP RUNNING"* ]]; }
_rc_mgmt_index() { [[ $(btmgmt_cmd "$1" info) == *"current settings:"* ]]; }

rc_down() {
  local p
  for p in "${RC_PIDS[@]}"; do kill -TERM "$p" 2> /dev/null || true; done
  for p in "${RC_PIDS[@]}"; do wait_until 5 _dead "$p" || kill -KILL "$p" 2> /dev/null || true; wait "$p" 2> /dev/null; done
  RC_PIDS=() RC_KIND=
  wait_until 10 _no_ctrls || { _rc_log "controllers still present"; return 1; }
}
