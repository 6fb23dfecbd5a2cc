#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""vhci-bridge: one controller's H4 stream over TCP (RootCanal's, or the quirk proxy's) as a
Linux HCI device through /dev/vhci.

    vhci-bridge.py PORT

Connects to 127.0.0.1:PORT first, then opens /dev/vhci: the kernel registers hciN and runs its
setup against a controller that already answers. Packets go both ways unchanged: each read of
/dev/vhci is one packet (type byte first) for the controller; the TCP stream is cut into H4 packets,
each written to /dev/vhci whole.

A packet the kernel refuses because the device is not up (write(2) fails with ENXIO: a Command
Complete that arrives after `btmgmt power off` closed the device, while the kernel's advertising
rotation had a command in flight) is dropped and logged, as a UART or USB transport drops a late
event. Bumble's hci_bridge, which the bed used before, closed /dev/vhci on that error (asyncio's
pipe transport treats every write error as fatal, silently), and the kernel then unregistered hciN
for good: the "controller vanishes after power cycles" of issue 45. Any other error ends the bridge,
which closes /dev/vhci and so unregisters hciN, as unplugging a controller does.
"""
import errno
import os
import socket
import struct
import sys
import threading
import time

from h4 import packets

HCI_VENDOR_PKT = 0xFF
HCI_PRIMARY = 0x00


def log(m):
    sys.stderr.write("%.3f vhci-bridge: %s\n" % (time.monotonic(), m))
    sys.stderr.flush()


def controller_to_host(sock, vhci):
    """The TCP stream, packet by packet, into /dev/vhci."""
    dropped = 0
    for packet in packets(sock, log):
        try:
            os.write(vhci, packet)
        except OSError as e:
            if e.errno != errno.ENXIO:
                raise
            dropped += 1
            log("dropped (the device is not up: ENXIO, %d so far): %s" % (dropped, packet[:8].hex()))
    raise EOFError("the controller's stream ended")


def host_to_controller(sock, vhci):
    """Each read of /dev/vhci is one packet for the controller; the kernel's vendor packets stay here."""
    while True:
        packet = os.read(vhci, 65536)
        if not packet:
            raise EOFError("/dev/vhci returned end of file")
        if packet[0] == HCI_VENDOR_PKT:
            if len(packet) >= 4:
                log("hci index %d" % struct.unpack("<H", packet[2:4])[0])
            continue
        sock.sendall(packet)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: vhci-bridge.py PORT")
    sock = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    vhci = os.open("/dev/vhci", os.O_RDWR)
    os.write(vhci, bytes([HCI_VENDOR_PKT, HCI_PRIMARY]))   # create a primary controller
    log("connected to 127.0.0.1:%s, /dev/vhci open" % sys.argv[1])
    ended = threading.Event()
    why = []

    def run(pump):
        try:
            pump(sock, vhci)
        except Exception as e:   # either direction's end is the bridge's end
            why.append("%s: %s" % (pump.__name__, e))
        ended.set()

    for pump in (controller_to_host, host_to_controller):
        threading.Thread(target=run, args=(pump,), daemon=True).start()
    ended.wait()
    log("ending: %s" % "; ".join(why))
    os.close(vhci)
    sys.exit(1)


if __name__ == "__main__":
    main()
