#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""quirkproxy: an H4-over-TCP proxy that gives a RootCanal controller the quirks of real ones.

    quirkproxy.py LISTEN_PORT CONTROLLER_PORT QUIRK[,QUIRK...]

Accepts one connection on 127.0.0.1:LISTEN_PORT (tools/vhci-bridge.py), connects to RootCanal's
CONTROLLER_PORT and forwards H4 packets both ways, except what the quirks change:
- `v41`, a Core 4.1 controller: Read Local Version Information's Command Complete says HCI_Version
  and LMP_Version 7; LE Set Advertising Parameters with Advertising_Type ADV_SCAN_IND (2) or
  ADV_NONCONN_IND (3) and Advertising_Interval_Min below 0x00A0 (100 ms) is not forwarded and is
  answered Invalid HCI Command Parameters (0x12), as Core 4.x controllers do (Vol 6, Part B,
  §4.4.2.2; RootCanal checks only 0x0020-0x4000);
- `ext-refused`, extended advertising claimed but not implemented (the Raspberry Pi 4's controller,
  citruz/beacontools#63; an RTL8761B, bluez/bluetooth-next PR #133): LE features and
  Supported_Commands still list it, but the advertising set commands (LE Set Advertising Set
  Random Address, LE Set Extended Advertising Parameters, Data, Scan Response Data and Enable, LE
  Remove Advertising Set) are not forwarded and are answered Unknown HCI Command (0x01);
- `redundant-disable`: a disable of advertising that is not on (LE Set Advertising Enable 0, or LE
  Set Extended Advertising Enable 0 of a set that is not enabled) is answered Command Disallowed
  (0x0C), as a Broadcom BCM4345 does (ruuvitag-listener PR #27, eclipse-kura #1748);
- `slow`: every Command Complete and Command Status comes 500 ms late (a busy UART controller);
- `credit-nop`: every Command Complete and Command Status says Num_HCI_Command_Packets 0, and a NOP
  Command Complete (opcode 0x0000, with a Status byte) gives the credit back 200 ms later (Vol 4,
  Part E, §7.7.14).
  Debian 12's kernel 6.1 does not bring such a controller up (its setup stops after the HCI Reset),
  so the bed brings it up without the quirk and SIGHUP turns it on (a second SIGHUP, off again).
- `data-disallowed`: every fourth LE Set Advertising Data (or LE Set Extended Advertising Data) sent
  while that advertising is on is not forwarded and is answered Command Disallowed (0x0C), as some
  controllers do at times (noble/bleno#136, #157); a write while it is off always goes through.
`none`: no quirk, only the signals. Any quirks: SIGHUP turns `credit-nop` on or off. SIGUSR1 sends the host a Hardware Error event (code 0x00; raspberrypi/linux#2832), and
the kernel resets the controller. SIGUSR2 makes the controller stop answering for 5 s: the commands
sent meanwhile are dropped, never answered (a UART controller's "command tx timeout": room-assistant
#1158, raspberrypi/linux#4601); what it does on air goes on. Logs 'listening ...' once ready and each rewrite on stderr.
"""
import signal
import socket
import struct
import sys
import threading
import time

from h4 import packets

LE_SET_ADV_PARAMS, READ_LOCAL_VERSION = 0x2006, 0x1001
INVALID_PARAMETERS, UNKNOWN_COMMAND, COMMAND_DISALLOWED = 0x12, 0x01, 0x0C
# LE Set Advertising Set Random Address, Extended Advertising Parameters/Data/Scan Response/Enable,
# LE Remove Advertising Set.
SET_COMMANDS = {0x2035, 0x2036, 0x2037, 0x2038, 0x2039, 0x203C}


def log(m):
    sys.stderr.write("%.3f quirkproxy: %s\n" % (time.monotonic(), m))
    sys.stderr.flush()


def complete(opcode, status):
    """A Command Complete with Status only, one command credit."""
    return bytes([4, 0x0E, 4, 1]) + struct.pack("<H", opcode) + bytes([status])


def main():
    listen, controller = int(sys.argv[1]), int(sys.argv[2])
    quirks = set(sys.argv[3].split(",")) - {"none"} if len(sys.argv) > 3 else {"v41"}
    unknown = quirks - {"v41", "ext-refused", "redundant-disable", "slow", "credit-nop", "data-disallowed"}
    if unknown:
        sys.exit("quirkproxy: unknown quirk(s): %s" % ", ".join(sorted(unknown)))
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", listen))
    srv.listen(1)
    log("listening on %d -> %d, quirks %s" % (listen, controller, ",".join(sorted(quirks))))
    host, _ = srv.accept()
    ctl = socket.create_connection(("127.0.0.1", controller))
    lock = threading.Lock()

    def to_host(p):
        with lock:
            host.sendall(p)

    def hardware_error(*_):
        log("SIGUSR1: Hardware Error (0x00)")
        threading.Thread(target=to_host, args=(bytes([4, 0x10, 1, 0x00]),), daemon=True).start()

    signal.signal(signal.SIGUSR1, hardware_error)
    silent_until = 0.0

    def silence(*_):
        nonlocal silent_until
        silent_until = time.monotonic() + 5.0
        log("SIGUSR2: silent for 5 s")

    signal.signal(signal.SIGUSR2, silence)

    def credit(*_):
        if "credit-nop" in quirks:
            quirks.discard("credit-nop")
        else:
            quirks.add("credit-nop")
        log("SIGHUP: credit-nop %s" % ("on" if "credit-nop" in quirks else "off"))

    signal.signal(signal.SIGHUP, credit)
    legacy_on = False
    sets_on = set()

    def track(p):
        """What the host turned on and off (for redundant-disable), from its commands."""
        nonlocal legacy_on
        opcode = struct.unpack("<H", p[1:3])[0]
        if opcode == 0x200A and len(p) >= 5:
            legacy_on = p[4] == 1
        elif opcode == 0x2039 and len(p) >= 6:
            handles = [p[6 + 4 * i] for i in range(p[5]) if 6 + 4 * i < len(p)]
            if p[4] == 1:
                sets_on.update(handles)
            elif handles:
                sets_on.difference_update(handles)
            else:
                sets_on.clear()
        elif opcode in (0x0C03, 0x203C, 0x203D):   # HCI Reset, remove one set, clear all sets
            if opcode == 0x0C03:
                legacy_on = False
            if opcode == 0x203C and len(p) >= 5:
                sets_on.discard(p[4])
            else:
                sets_on.clear()

    def redundant(p):
        """A disable of advertising that is not on."""
        opcode = struct.unpack("<H", p[1:3])[0]
        if opcode == 0x200A and len(p) >= 5 and p[4] == 0:
            return not legacy_on
        if opcode == 0x2039 and len(p) >= 6 and p[4] == 0 and p[5] > 0:
            return not any(p[6 + 4 * i] in sets_on for i in range(p[5]) if 6 + 4 * i < len(p))
        return False

    writes_while_on = 0

    def data_while_on(p):
        """Advertising data written while that advertising is on (legacy, or the set's)."""
        opcode = struct.unpack("<H", p[1:3])[0]
        if opcode == 0x2008:
            return legacy_on
        if opcode == 0x2037 and len(p) >= 5:
            return p[4] in sets_on
        return False

    def completion(p):
        """A Command Complete or Status as the quirks deliver it (in the reading thread: in order)."""
        if "slow" in quirks:
            time.sleep(0.5)
        if "credit-nop" not in quirks:
            to_host(p)
            return
        b = bytearray(p)
        b[3 if p[1] == 0x0E else 4] = 0            # Num_HCI_Command_Packets 0: no credit ...
        to_host(bytes(b))
        time.sleep(0.2)
        # ... until this NOP gives it back. Its Status byte is for Linux: Debian 12's 6.1 did not take
        # the credit from a NOP with nothing after the opcode (the next command stayed queued, and
        # the kernel's 4 s ncmd timer reset the controller); with a Status byte it does.
        to_host(bytes([4, 0x0E, 4, 1, 0, 0, 0]))
        log("completion of 0x%04x with no credit, then a NOP with one" % struct.unpack("<H", p[4:6] if p[1] == 0x0E else p[5:7])[0])

    def up():  # controller -> host
        for p in packets(ctl, log):
            if "v41" in quirks and p[0] == 4 and p[1] == 0x0E and len(p) >= 11 \
                    and struct.unpack("<H", p[4:6])[0] == READ_LOCAL_VERSION and p[6] == 0:
                b = bytearray(p)
                b[7] = b[10] = 7
                p = bytes(b)
                log("Read Local Version Information: HCI/LMP version 7")
            if quirks & {"slow", "credit-nop"} and p[0] == 4 and p[1] in (0x0E, 0x0F) and len(p) >= 6:
                completion(p)
                continue
            to_host(p)

    threading.Thread(target=up, daemon=True).start()
    for p in packets(host, log):  # host -> controller
        opcode = struct.unpack("<H", p[1:3])[0] if p[0] == 1 and len(p) >= 4 else None
        if opcode is not None and time.monotonic() < silent_until:
            log("silent: command 0x%04x dropped" % opcode)
            continue
        if "v41" in quirks and opcode == LE_SET_ADV_PARAMS and len(p) >= 4 + 15:
            interval_min, adv_type = struct.unpack("<H", p[4:6])[0], p[8]
            if adv_type in (2, 3) and interval_min < 0xA0:
                log("LE Set Advertising Parameters type %d interval 0x%04x < 0x00a0: answered 0x12" % (adv_type, interval_min))
                to_host(complete(LE_SET_ADV_PARAMS, INVALID_PARAMETERS))
                continue
        if "ext-refused" in quirks and opcode in SET_COMMANDS:
            log("command 0x%04x: answered Unknown HCI Command (0x01)" % opcode)
            to_host(complete(opcode, UNKNOWN_COMMAND))
            continue
        if "redundant-disable" in quirks and opcode is not None and redundant(p):
            log("command 0x%04x: a disable of advertising that is not on: answered Command Disallowed (0x0C)" % opcode)
            to_host(complete(opcode, COMMAND_DISALLOWED))
            continue
        if "data-disallowed" in quirks and opcode is not None and data_while_on(p):
            writes_while_on += 1
            if writes_while_on % 4 == 0:
                log("command 0x%04x: data written while advertising (write %d): answered Command Disallowed (0x0C)"
                    % (opcode, writes_while_on))
                to_host(complete(opcode, COMMAND_DISALLOWED))
                continue
        if opcode is not None:
            track(p)
        ctl.sendall(p)


if __name__ == "__main__":
    main()
