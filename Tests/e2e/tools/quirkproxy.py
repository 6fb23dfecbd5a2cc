#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""quirkproxy: an H4-over-TCP proxy that gives a RootCanal controller the quirks of real ones.

    quirkproxy.py LISTEN_PORT CONTROLLER_PORT QUIRK[,QUIRK...]

Accepts one connection on 127.0.0.1:LISTEN_PORT (Bumble's hci_bridge), connects to RootCanal's
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
  Remove Advertising Set) are not forwarded and are answered Unknown HCI Command (0x01).
Logs 'listening ...' once ready and each rewrite on stderr.
"""
import socket
import struct
import sys
import threading
import time

LE_SET_ADV_PARAMS, READ_LOCAL_VERSION = 0x2006, 0x1001
INVALID_PARAMETERS, UNKNOWN_COMMAND = 0x12, 0x01
# LE Set Advertising Set Random Address, Extended Advertising Parameters/Data/Scan Response/Enable,
# LE Remove Advertising Set.
SET_COMMANDS = {0x2035, 0x2036, 0x2037, 0x2038, 0x2039, 0x203C}


def log(m):
    sys.stderr.write("%.3f quirkproxy: %s\n" % (time.monotonic(), m))
    sys.stderr.flush()


def packets(sock):
    """Whole H4 packets from a stream: command 1, ACL 2, SCO 3, event 4, ISO 5."""
    buf = b""
    while True:
        d = sock.recv(4096)
        if not d:
            return
        buf += d
        while buf:
            t = buf[0]
            if t in (1, 3):
                hl, ln = 4, buf[3] if len(buf) >= 4 else None
            elif t == 4:
                hl, ln = 3, buf[2] if len(buf) >= 3 else None
            elif t == 2:
                hl, ln = 5, struct.unpack("<H", buf[3:5])[0] if len(buf) >= 5 else None
            elif t == 5:
                hl, ln = 5, (struct.unpack("<H", buf[3:5])[0] & 0x3FFF) if len(buf) >= 5 else None
            else:
                log("unknown H4 packet type %d: closing" % t)
                return
            if ln is None or len(buf) < hl + ln:
                break
            yield buf[:hl + ln]
            buf = buf[hl + ln:]


def complete(opcode, status):
    """A Command Complete with Status only, one command credit."""
    return bytes([4, 0x0E, 4, 1]) + struct.pack("<H", opcode) + bytes([status])


def main():
    listen, controller = int(sys.argv[1]), int(sys.argv[2])
    quirks = set(sys.argv[3].split(",")) if len(sys.argv) > 3 else {"v41"}
    unknown = quirks - {"v41", "ext-refused"}
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

    def up():  # controller -> host
        for p in packets(ctl):
            if "v41" in quirks and p[0] == 4 and p[1] == 0x0E and len(p) >= 11 \
                    and struct.unpack("<H", p[4:6])[0] == READ_LOCAL_VERSION and p[6] == 0:
                b = bytearray(p)
                b[7] = b[10] = 7
                p = bytes(b)
                log("Read Local Version Information: HCI/LMP version 7")
            to_host(p)

    threading.Thread(target=up, daemon=True).start()
    for p in packets(host):  # host -> controller
        opcode = struct.unpack("<H", p[1:3])[0] if p[0] == 1 and len(p) >= 4 else None
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
        ctl.sendall(p)


if __name__ == "__main__":
    main()
