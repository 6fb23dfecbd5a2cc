#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""notify-listen: a stand-in for systemd's notify socket (sd_notify), for e2e scenarios.

    notify-listen.py SOCKET_PATH LOG_FILE [--clock]

Binds an AF_UNIX SOCK_DGRAM socket at SOCKET_PATH (what the scenario puts into $NOTIFY_SOCKET)
and appends one line per datagram to LOG_FILE, its newline-separated assignments joined by
" | " (e.g. "READY=1 | STATUS=1 beacon on air on hci0 (extended set 0)"), flushed at once.
Writes "# listening" first, once the socket is bound. Runs until killed (SIGTERM). --clock: each
line starts with "t=SECONDS " (wall clock, as $EPOCHREALTIME), for gaps between WATCHDOG=1 (the soak).
"""
import os
import signal
import socket
import sys
import time


def main():
    path, log_path = sys.argv[1], sys.argv[2]
    clock = sys.argv[3:] == ["--clock"]
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    if os.path.exists(path):
        os.unlink(path)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    os.chmod(path, 0o666)   # a non-root sender may notify too
    with open(log_path, "a", buffering=1) as log:
        log.write("# listening\n")
        while True:
            data = sock.recv(4096)
            stamp = "t=%.6f " % time.time() if clock else ""
            log.write(stamp + " | ".join(data.decode("utf-8", "replace").split("\n")) + "\n")


if __name__ == "__main__":
    main()
