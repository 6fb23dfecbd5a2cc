#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""hcilog: lists the HCI commands in a btmon capture, with the status the controller returned.

    hcilog.py [--settle] [--events] [--since TEXT] FILE [hciN]
    hcilog.py --mark TEXT

One line per command (params and event bodies as lowercase hex, no spaces; "-" if empty):

    hci0 cmd 0x200a 01 status=0x00
    hci0 cmd 0x2006 a000a0000300000000000000000700 status=0x0c
    hci0 cmd 0x2039 010100000000 status=none      (no Command Complete/Status seen yet)
    hci0 evt 0x0e 01062000                        (--events only)

--settle: btmon receives packets asynchronously, so first a marker is sent into the kernel's
monitor stream (HCI_CHANNEL_LOGGING; it reaches btmon after every packet sent before it) and
FILE is read once the marker is in it (up to 5 s). Without the logging channel it falls back
to waiting until FILE stops growing.
--since TEXT: only what came after the last marker TEXT (see --mark).
--mark TEXT: puts TEXT into the monitor stream (btmon shows it as a user log line), no FILE.

Reads what `btmon -w FILE` writes (btsnoop datalink 2001, BlueZ monitor: index and packet
opcode in the flags field) and plain H4 captures (datalink 1002, one controller, reported as
hci0). A partial last record (capture still being written) is ignored.
"""
import ctypes
import errno
import os
import socket
import struct
import sys
import time

MON_COMMAND, MON_EVENT, MON_USER_LOGGING = 2, 3, 13
HCI_DEV_NONE, HCI_CHANNEL_LOGGING = 0xFFFF, 4
MARK_IDENT = b"e2e"


def read_snoop(path):
    # The capture is on the guest's 9p share while btmon writes it: once (kernel 7.3, a loaded
    # host) a read failed with ENODATA. Such a read is retried; a file that stays unreadable fails.
    for attempt in range(5):
        try:
            with open(path, "rb") as f:
                return f.read()
        except OSError as e:
            if e.errno not in (errno.ENODATA, errno.EIO, errno.EAGAIN) or attempt == 4:
                raise
            time.sleep(0.2)


def records(path):
    data = read_snoop(path)
    if len(data) < 16 or data[:8] != b"btsnoop\0":
        raise SystemExit(f"hcilog: {path}: not a btsnoop file")
    _version, datalink = struct.unpack_from(">II", data, 8)
    if datalink not in (1002, 2001):
        raise SystemExit(f"hcilog: {path}: unsupported datalink {datalink}")
    off = 16
    while off + 24 <= len(data):
        _orig, incl, flags, _drops, _ts = struct.unpack_from(">IIIIQ", data, off)
        pkt = data[off + 24:off + 24 + incl]
        if len(pkt) < incl:
            break
        off += 24 + incl
        if datalink == 2001:
            yield flags >> 16, flags & 0xFFFF, pkt
        elif pkt:
            kind = {1: MON_COMMAND, 4: MON_EVENT}.get(pkt[0])
            if kind:
                yield 0, kind, pkt[1:]


def log_message(pkt):
    """(ident, message) of a user logging record: priority, ident_len, ident NUL, message NUL."""
    if len(pkt) < 3:
        return b"", b""
    n = pkt[1]
    ident = pkt[2:2 + n].rstrip(b"\0")
    return ident, pkt[2 + n:].rstrip(b"\0")


def mark(text):
    """Sends TEXT into the monitor stream through the HCI logging channel (needs CAP_NET_ADMIN)."""
    s = socket.socket(socket.AF_BLUETOOTH, socket.SOCK_RAW, socket.BTPROTO_HCI)
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        addr = struct.pack("<HHH", socket.AF_BLUETOOTH, HCI_DEV_NONE, HCI_CHANNEL_LOGGING)
        if libc.bind(s.fileno(), addr, len(addr)) != 0:
            e = ctypes.get_errno()
            raise OSError(e, f"bind HCI_CHANNEL_LOGGING: {os.strerror(e)}")
        body = bytes([6, len(MARK_IDENT) + 1]) + MARK_IDENT + b"\0" + text.encode() + b"\0"
        s.send(struct.pack("<HHH", 0x0000, HCI_DEV_NONE, len(body)) + body)
    finally:
        s.close()


def settle(path):
    token = f"sync {os.getpid()} {time.monotonic_ns()}".encode()
    try:
        mark(token.decode())
    except OSError as e:
        print(f"hcilog: no marker ({e}); waiting for the capture to stop growing", file=sys.stderr)
        size, end = -1, time.monotonic() + 3
        while time.monotonic() < end and os.stat(path).st_size != size:
            size = os.stat(path).st_size
            time.sleep(0.15)
        return
    end = time.monotonic() + 5
    while time.monotonic() < end:
        for _i, kind, pkt in records(path):
            if kind == MON_USER_LOGGING and log_message(pkt) == (MARK_IDENT, token):
                return
        time.sleep(0.02)
    print("hcilog: the marker did not reach the capture within 5 s (is btmon running?)",
          file=sys.stderr)


def main(argv):
    events = settle_first = False
    since = None
    args = []
    it = iter(argv)
    for a in it:
        if a == "--events":
            events = True
        elif a == "--settle":
            settle_first = True
        elif a in ("--since", "--mark"):
            v = next(it, None)
            if v is None:
                args = []
                break
            if a == "--mark":
                mark(v)
                return 0
            since = v.encode()
        else:
            args.append(a)
    if not args or len(args) > 2 or args[0].startswith("-"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    if settle_first:
        settle(args[0])
    want = args[1] if len(args) == 2 else None
    lines = []          # [text, status or None, controller]
    pending = {}        # (index, opcode) -> line awaiting its status
    for index, kind, pkt in records(args[0]):
        name = f"hci{index}"
        if kind == MON_USER_LOGGING:
            if since is not None and log_message(pkt) == (MARK_IDENT, since):
                lines, pending = [], {}
        elif kind == MON_COMMAND and len(pkt) >= 3:
            opcode, plen = struct.unpack_from("<HB", pkt)
            line = [f"{name} cmd 0x{opcode:04x} {pkt[3:3 + plen].hex() or '-'}", "none", name]
            lines.append(line)
            pending[(index, opcode)] = line
        elif kind == MON_EVENT and len(pkt) >= 2:
            code, body = pkt[0], pkt[2:]
            if events:
                lines.append([f"{name} evt 0x{code:02x} {body.hex() or '-'}", None, name])
            if code == 0x0E and len(body) >= 4:
                op, st = struct.unpack_from("<H", body, 1)[0], body[3]
            elif code == 0x0F and len(body) >= 4:
                op, st = struct.unpack_from("<H", body, 2)[0], body[0]
            else:
                continue
            line = pending.pop((index, op), None)
            if line:
                line[1] = f"0x{st:02x}"
    for text, status, name in lines:
        if want is None or name == want:
            print(text if status is None else f"{text} status={status}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BrokenPipeError:
        sys.exit(0)
