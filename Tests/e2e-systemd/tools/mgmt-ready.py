#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""mgmt-ready.py N SECS [PID]: waits until N controllers are in the kernel's mgmt index list (their
setup is done: bluetoothd can see them); exit 0, or 1 after SECS with what is there.

A controller whose setup failed (under TCG the HCI Reset of the setup can time out when the
guest is busy: "hci0: Opcode 0x0c03 failed: -110") stays registered in /sys/class/bluetooth
but never enters the index list, so bluetoothd never powers it. btvirt.service runs this as
its ExecStartPost and is restarted (new controllers) when it fails.
One process polling the mgmt socket (Read Index List) every 0.2 s: cheap under TCG. It also
reads the kernel log and gives up at once on a setup command that timed out since PID (btvirt,
$MAINPID in ExecStartPost) started.
"""
import os
import ctypes
import socket
import struct
import sys
import time

HCI_DEV_NONE, HCI_CHANNEL_CONTROL = 0xFFFF, 3
MGMT_OP_READ_INDEX_LIST, MGMT_EV_CMD_COMPLETE = 0x0003, 0x0001


def control_socket():
    s = socket.socket(socket.AF_BLUETOOTH, socket.SOCK_RAW | socket.SOCK_CLOEXEC, socket.BTPROTO_HCI)
    # struct sockaddr_hci { sa_family_t family; u16 dev; u16 channel; }: Python's bind() for
    # BTPROTO_HCI takes no channel, so bind through libc
    addr = struct.pack("<HHH", socket.AF_BLUETOOTH, HCI_DEV_NONE, HCI_CHANNEL_CONTROL)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.bind(s.fileno(), ctypes.c_char_p(addr), len(addr)) != 0:
        raise OSError(ctypes.get_errno(), "bind HCI_CHANNEL_CONTROL")
    return s


def index_list(s):
    s.send(struct.pack("<HHH", MGMT_OP_READ_INDEX_LIST, HCI_DEV_NONE, 0))
    s.settimeout(2)
    while True:
        ev, _idx, _plen = struct.unpack_from("<HHH", data := s.recv(1024))
        if ev == MGMT_EV_CMD_COMPLETE and struct.unpack_from("<H", data, 6)[0] == MGMT_OP_READ_INDEX_LIST:
            status, n = data[8], struct.unpack_from("<H", data, 9)[0]
            if status:
                raise OSError(f"Read Index List status {status}")
            return list(struct.unpack_from("<%dH" % n, data, 11))


def kmsg():
    try:
        return os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None


def started_us(pid):
    """When PID started, in microseconds since boot (the kernel log's clock), or 0."""
    try:
        with open("/proc/%s/stat" % pid) as f:
            ticks = int(f.read().rsplit(")", 1)[1].split()[19])
        return ticks * 1000000 // os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0


def setup_failed(fd, since_us):
    """A "hciN: Opcode 0x.... failed: -110" line in the kernel log after since_us (or None)."""
    while fd is not None:
        try:
            rec = os.read(fd, 8192).decode(errors="replace")
        except BlockingIOError:
            return None
        except OSError:       # EPIPE: overwritten records; go on
            continue
        head, _, msg = rec.partition(";")
        fields = head.split(",")
        ts = int(fields[2]) if len(fields) > 2 and fields[2].isdigit() else 0
        if ts >= since_us and "hci" in msg and "failed: -110" in msg:
            return msg
    return None


def main():
    want, secs = int(sys.argv[1]), float(sys.argv[2])
    since = started_us(sys.argv[3]) if len(sys.argv) > 3 else int(time.monotonic() * 1e6)
    log = kmsg()
    s = control_socket()
    end = time.monotonic() + secs
    while True:
        bad = setup_failed(log, since)
        if bad:
            print("mgmt-ready: %s (the controller's setup failed)" % bad)
            return 1
        ids = index_list(s)
        if len(ids) >= want:
            print("mgmt-ready: " + " ".join("hci%d" % i for i in sorted(ids)))
            return 0
        if time.monotonic() > end:
            print("mgmt-ready: only %s in the mgmt index list after %gs" % (ids, secs))
            return 1
        time.sleep(0.2)


if __name__ == "__main__":
    sys.exit(main())
