#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""rawscan: an LE scanner over a raw HCI socket, independent of beacon-tx and BlueZ tools.

    rawscan.py [--active] [--clock] [--mode auto|legacy|extended] [--duration S] hciN

Enables LE scanning on hciN and prints one line per advertising report:

    report hci1 legacy type=0x03 addr=00:AA:01:00:00:00 addr_type=0 rssi=-60 data=0201061aff...
    report hci1 extended type=0x0010 addr=00:AA:01:00:00:00 addr_type=0 rssi=127 sid=0 status=complete data=...

decoding both LE Advertising Report (LE Meta 0x3e, subevent 0x02) and LE Extended
Advertising Report (subevent 0x0d); `data` is the advertising data as lowercase hex and is
always the last field, so `grep ' data=HEX$'` matches exact bytes. Lines starting with '#'
are status: '# scanning hciN <family>' once scanning is enabled, '# stopped' at the end.
--mode auto (default) uses LE Set Scan Parameters/Enable (0x200b/0x200c) and falls back to
the extended ones (0x2041/0x2042) if the controller answers Command Disallowed (0x0c).
SIGTERM/SIGINT (or --duration) disable scanning before exiting.
Needs a Python with AF_BLUETOOTH (Debian's /usr/bin/python3, not pyenv's), as root.
"""
import argparse
import select
import signal
import socket
import struct
import sys
import time

HCI_COMMAND_PKT, HCI_EVENT_PKT = 0x01, 0x04
EVT_CMD_COMPLETE, EVT_CMD_STATUS, EVT_LE_META = 0x0E, 0x0F, 0x3E
LE_ADV_REPORT, LE_EXT_ADV_REPORT = 0x02, 0x0D
SOL_HCI, HCI_FILTER, HCI_TIME_STAMP, HCI_CMSG_TSTAMP = 0, 2, 3, 0x0002
TIMEVAL = struct.Struct("@ll")   # struct timeval of this process's ABI (64-bit: two 8-byte longs)
COMMAND_DISALLOWED = 0x0C

OP_SET_SCAN_PARAMS, OP_SET_SCAN_ENABLE = 0x200B, 0x200C
OP_SET_EXT_SCAN_PARAMS, OP_SET_EXT_SCAN_ENABLE = 0x2041, 0x2042


class Stop(Exception):
    pass


class CommandError(Exception):
    def __init__(self, opcode, status):
        super().__init__(f"command 0x{opcode:04x} failed: status 0x{status:02x}")
        self.opcode, self.status = opcode, status


def addr_str(b):
    return ":".join(f"{x:02X}" for x in reversed(b))


def s8(x):
    return x - 256 if x > 127 else x


class Scanner:
    def __init__(self, dev, name):
        self.name = name
        self.sock = socket.socket(socket.AF_BLUETOOTH, socket.SOCK_RAW, socket.BTPROTO_HCI)
        self.sock.bind((dev,))
        # struct hci_ufilter { u32 type_mask; u32 event_mask[2]; u16 opcode; } (16 bytes)
        events = (1 << EVT_CMD_COMPLETE) | (1 << EVT_CMD_STATUS) | (1 << EVT_LE_META)
        filt = struct.pack("<IIIH2x", 1 << HCI_EVENT_PKT,
                           events & 0xFFFFFFFF, events >> 32, 0)
        self.sock.setsockopt(SOL_HCI, HCI_FILTER, filt)
        # The kernel stamps each packet as the driver hands it over (hci_recv_frame), and a raw
        # socket with HCI_TIME_STAMP gets that time with it: a scanner read late on a loaded TCG
        # guest (seconds behind, seen in the soak's stop check) still says when a report came.
        self.sock.setsockopt(SOL_HCI, HCI_TIME_STAMP, 1)
        self.received = None

    clock = False

    def stamp(self):
        """`t=SECONDS ` with --clock (wall clock, as bash's $EPOCHREALTIME: the kernel's time of the
        packet's arrival, or the time it was read when the kernel gave none), else nothing."""
        if not self.clock:
            return ""
        return f"t={self.received if self.received is not None else time.time():.4f} "

    def command(self, opcode, params, timeout=5.0):
        """Sends a command, prints reports meanwhile, returns the status byte."""
        self.sock.send(struct.pack("<BHB", HCI_COMMAND_PKT, opcode, len(params)) + params)
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no Command Complete/Status for 0x{opcode:04x}")
            pkt = self.read(left)
            if pkt is None or len(pkt) < 3 or pkt[0] != HCI_EVENT_PKT:
                continue
            code, body = pkt[1], pkt[3:]
            if code == EVT_CMD_COMPLETE and len(body) >= 4 and \
                    struct.unpack_from("<H", body, 1)[0] == opcode:
                return body[3]
            if code == EVT_CMD_STATUS and len(body) >= 4 and \
                    struct.unpack_from("<H", body, 2)[0] == opcode:
                return body[0]
            self.handle(pkt)

    def read(self, timeout):
        r, _, _ = select.select([self.sock], [], [], timeout)
        if not r:
            return None
        pkt, ancillary, _, _ = self.sock.recvmsg(1024, socket.CMSG_SPACE(TIMEVAL.size))
        self.received = None
        for level, kind, value in ancillary:
            if level == SOL_HCI and kind == HCI_CMSG_TSTAMP and len(value) >= TIMEVAL.size:
                sec, usec = TIMEVAL.unpack_from(value)
                self.received = sec + usec / 1e6
        return pkt

    def handle(self, pkt):
        if len(pkt) < 4 or pkt[0] != HCI_EVENT_PKT or pkt[1] != EVT_LE_META:
            return
        sub, body = pkt[3], pkt[4:]
        try:
            if sub == LE_ADV_REPORT:
                self.legacy_reports(body)
            elif sub == LE_EXT_ADV_REPORT:
                self.extended_reports(body)
        except (IndexError, struct.error) as e:
            print(f"# malformed report subevent 0x{sub:02x} ({e}): {bytes(pkt).hex()}", flush=True)

    def legacy_reports(self, b):
        # num_reports, then per report: event_type, addr_type, addr[6], len, data, rssi
        # (sequential layout, as sent by controllers and parsed by the kernel and btmon)
        n, off = b[0], 1
        for _ in range(n):
            etype, atype = b[off], b[off + 1]
            addr = b[off + 2:off + 8]
            dlen = b[off + 8]
            data = b[off + 9:off + 9 + dlen]
            if len(data) != dlen:
                raise IndexError("data truncated")
            rssi = s8(b[off + 9 + dlen])
            off += 10 + dlen
            print(f"report {self.name} legacy type=0x{etype:02x} addr={addr_str(addr)} "
                  f"addr_type={atype} rssi={rssi} {self.stamp()}data={data.hex()}", flush=True)

    def extended_reports(self, b):
        # num_reports, then per report: event_type u16, addr_type, addr[6], primary phy,
        # secondary phy, sid, tx_power, rssi, periodic interval u16, direct addr type,
        # direct addr[6], len, data  (24 bytes + data)
        n, off = b[0], 1
        for _ in range(n):
            etype = struct.unpack_from("<H", b, off)[0]
            atype = b[off + 2]
            addr = b[off + 3:off + 9]
            sid, rssi = b[off + 11], s8(b[off + 13])
            dlen = b[off + 23]
            data = b[off + 24:off + 24 + dlen]
            if len(data) != dlen:
                raise IndexError("data truncated")
            off += 24 + dlen
            status = {0: "complete", 1: "partial", 2: "truncated"}.get((etype >> 5) & 3, "reserved")
            print(f"report {self.name} extended type=0x{etype:04x} addr={addr_str(addr)} "
                  f"addr_type={atype} rssi={rssi} sid={sid} status={status} {self.stamp()}data={data.hex()}",
                  flush=True)

    def enable(self, mode, active, retried=False):
        """Sets the scan parameters and enables scanning. A controller that is scanning already (the
        kernel's own scan, or another program's, after bluetoothd's restart) answers Command
        Disallowed to both families' parameters: scanning is then disabled in both and tried once more."""
        try:
            return self._enable(mode, active)
        except CommandError as e:
            if retried or e.status != COMMAND_DISALLOWED:
                raise
            print(f"# {self.name}: {e}; disabling scanning (legacy and extended) and trying again", flush=True)
            self.command(OP_SET_SCAN_ENABLE, bytes([0, 0]), timeout=2.0)
            self.command(OP_SET_EXT_SCAN_ENABLE, struct.pack("<BBHH", 0, 0, 0, 0), timeout=2.0)
            return self.enable(mode, active, retried=True)

    def _enable(self, mode, active):
        scan_type = 1 if active else 0
        if mode in ("auto", "legacy"):
            st = self.command(OP_SET_SCAN_PARAMS,
                              struct.pack("<BHHBB", scan_type, 0x0010, 0x0010, 0, 0))
            if st == COMMAND_DISALLOWED and mode == "auto":
                return self._enable("extended", active)
            if st:
                raise CommandError(OP_SET_SCAN_PARAMS, st)
            st = self.command(OP_SET_SCAN_ENABLE, bytes([1, 0]))
            if st:
                raise CommandError(OP_SET_SCAN_ENABLE, st)
            return "legacy"
        # own addr type, filter policy, PHYs (1M), per PHY: type, interval, window
        st = self.command(OP_SET_EXT_SCAN_PARAMS,
                          struct.pack("<BBBBHH", 0, 0, 0x01, scan_type, 0x0010, 0x0010))
        if st:
            raise CommandError(OP_SET_EXT_SCAN_PARAMS, st)
        st = self.command(OP_SET_EXT_SCAN_ENABLE, struct.pack("<BBHH", 1, 0, 0, 0))
        if st:
            raise CommandError(OP_SET_EXT_SCAN_ENABLE, st)
        return "extended"

    def disable(self, family):
        if family == "legacy":
            return self.command(OP_SET_SCAN_ENABLE, bytes([0, 0]), timeout=2.0)
        return self.command(OP_SET_EXT_SCAN_ENABLE, struct.pack("<BBHH", 0, 0, 0, 0), timeout=2.0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("device", help="hciN (or N)")
    ap.add_argument("--mode", choices=("auto", "legacy", "extended"), default="auto")
    ap.add_argument("--active", action="store_true", help="active scan (scan responses)")
    ap.add_argument("--clock", action="store_true",
                    help="a t=SECONDS field (wall clock, as bash's $EPOCHREALTIME) before data= on each report")
    ap.add_argument("--duration", type=float, default=0, help="stop after S seconds")
    ap.add_argument("--reenable", type=float, default=0,
                    help="disable and enable scanning every S seconds (btvirt forwards advertising only on "
                         "enable events, so an on-air probe must re-enable to hear a beacon that came back)")
    a = ap.parse_args()
    name = a.device if a.device.startswith("hci") else f"hci{a.device}"
    try:
        dev = int(name[3:])
    except ValueError:
        ap.error(f"bad device {a.device!r}")

    def on_signal(signum, _frame):
        raise Stop()
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    sc = family = None
    try:
        sc = Scanner(dev, name)
        sc.clock = a.clock
        family = sc.enable(a.mode, a.active)
        print(f"# scanning {name} {family}", flush=True)
        deadline = time.monotonic() + a.duration if a.duration > 0 else None
        next_reenable = time.monotonic() + a.reenable if a.reenable > 0 else None
        while True:
            now = time.monotonic()
            left = None if deadline is None else deadline - now
            if left is not None and left <= 0:
                break
            if next_reenable is not None:
                if now >= next_reenable:
                    sc.disable(family)
                    sc.enable(family, a.active)
                    next_reenable = time.monotonic() + a.reenable
                wait = max(0.0, next_reenable - time.monotonic())
                left = wait if left is None else min(left, wait)
            pkt = sc.read(left)
            if pkt:
                sc.handle(pkt)
    except Stop:
        pass
    except (OSError, TimeoutError, CommandError) as e:
        print(f"rawscan: {name}: {e}", file=sys.stderr, flush=True)
        return 1
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    if family is None:
        print("# stopped (scanning was not enabled)", flush=True)
        return 0
    try:
        st = sc.disable(family)
        print(f"# stopped (scan disable status 0x{st:02x})", flush=True)
    except (OSError, TimeoutError) as e:
        print(f"# stopped (scan disable failed: {e})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
