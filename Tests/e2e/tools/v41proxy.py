#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""v41proxy: an H4-over-TCP proxy that makes a RootCanal controller look like a Core 4.1 one.

    v41proxy.py LISTEN_PORT CONTROLLER_PORT [HCI_VERSION]

Accepts one connection on 127.0.0.1:LISTEN_PORT (Bumble's hci_bridge), connects to RootCanal's
CONTROLLER_PORT and forwards H4 packets both ways, except:
- Read Local Version Information's Command Complete: HCI_Version and LMP_Version become
  HCI_VERSION (default 7 = Core 4.1);
- LE Set Advertising Parameters with Advertising_Type ADV_SCAN_IND (2) or ADV_NONCONN_IND (3) and
  Advertising_Interval_Min below 0x00A0 (100 ms): not forwarded; answered Command Complete with
  Invalid HCI Command Parameters (0x12), as Core 4.x controllers do (Vol 6, Part B, §4.4.2.2).
Logs 'listening ...' once ready and each rewrite on stderr.
"""
import socket
import struct
import sys
import threading
import time

LE_SET_ADV_PARAMS, READ_LOCAL_VERSION = 0x2006, 0x1001
INVALID_PARAMETERS = 0x12


def log(m):
    sys.stderr.write("%.3f v41proxy: %s\n" % (time.monotonic(), m))
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


def main():
    listen, controller = int(sys.argv[1]), int(sys.argv[2])
    version = int(sys.argv[3]) if len(sys.argv) > 3 else 7
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", listen))
    srv.listen(1)
    log("listening on %d -> %d, HCI version %d" % (listen, controller, version))
    host, _ = srv.accept()
    ctl = socket.create_connection(("127.0.0.1", controller))
    lock = threading.Lock()

    def to_host(p):
        with lock:
            host.sendall(p)

    def up():  # controller -> host
        for p in packets(ctl):
            if p[0] == 4 and p[1] == 0x0E and len(p) >= 11 and struct.unpack("<H", p[4:6])[0] == READ_LOCAL_VERSION and p[6] == 0:
                b = bytearray(p)
                b[7] = b[10] = version
                p = bytes(b)
                log("Read Local Version Information: HCI/LMP version %d" % version)
            to_host(p)

    threading.Thread(target=up, daemon=True).start()
    for p in packets(host):  # host -> controller
        if p[0] == 1 and len(p) >= 4 + 15 and struct.unpack("<H", p[1:3])[0] == LE_SET_ADV_PARAMS:
            interval_min, adv_type = struct.unpack("<H", p[4:6])[0], p[8]
            if adv_type in (2, 3) and interval_min < 0xA0:
                log("LE Set Advertising Parameters type %d interval 0x%04x < 0x00a0: answered 0x12" % (adv_type, interval_min))
                to_host(bytes([4, 0x0E, 4, 1]) + struct.pack("<H", LE_SET_ADV_PARAMS) + bytes([INVALID_PARAMETERS]))
                continue
        ctl.sendall(p)


if __name__ == "__main__":
    main()
