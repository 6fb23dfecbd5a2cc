# SPDX-License-Identifier: Apache-2.0
"""h4: whole H4 packets from a byte stream (a TCP HCI port), for quirkproxy.py and vhci-bridge.py."""
import struct


def packets(sock, log):
    """Yields each whole H4 packet (command 1, ACL 2, SCO 3, event 4, ISO 5) read from `sock`; ends
    when the stream ends, or after logging an unknown packet type (the stream cannot be cut then)."""
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
