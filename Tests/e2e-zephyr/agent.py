#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""agent: the host side of the Zephyr bed (started by Tests/e2e-zephyr/run, one per run).

    agent.py --dir DIR --env BED_ENV

BED_ENV (written by Tests/e2e-zephyr/setup) names the programs: PHY (BabbleSim's bs_2G4_phy_v1),
HANDBRAKE (bs_device_handbrake), LEGACY_EXE and EXTENDED_EXE (Zephyr's samples/bluetooth/hci_uart
for nrf52_bsim, as shipped and with LE Advertising Extensions).

The agent listens on three Unix sockets in DIR, to which qemu connects as a client at boot
(-chardev socket + -serial: the guest's ttyS1, ttyS2 and ttyS3):

    hci0.sock  the UART of the controller under test (the guest attaches it first: hci0)
    hci1.sock  the UART of the receiver, always the extended build (hci1)
    ctl.sock   requests from the guest, one line each, "ID COMMAND ARGS...", answered by one line
               "ID ok TEXT" or "ID err TEXT":
                 start KIND LOGDIR  a new simulation (the old one stopped first): BabbleSim's phy, the
                                    handbrake (simulated time paced to the wall clock), device 0 =
                                    KIND's hci_uart (legacy or extended), device 1 = the extended
                                    one; each device's UART1 is a pseudo-terminal, relayed to
                                    hci0.sock / hci1.sock. Logs in LOGDIR/sim/ (a host path: the
                                    guest sees its results folder at the same path)
                 kill N             SIGKILL device N's zephyr.exe: its pty hangs up, the UART goes
                                    silent (BabbleSim cannot take a device back into a running
                                    simulation: `start` again brings both controllers back, fresh)
                 stop               stops the simulation
                 status             the simulation and its processes

Between simulations (and before the first), bytes from the guest are dropped. A new qemu
connection (another boot) replaces the old one. SIGTERM stops the simulation and exits.
Its own log: DIR/agent.log.
"""
import argparse
import os
import select
import shlex
import signal
import socket
import subprocess
import sys
import time
import tty

SIM_LENGTH_US = "86400e6"       # one simulated day: a scenario's simulation never reaches it
HANDBRAKE_POKE_US = "10e3"      # the handbrake holds the simulation to the wall clock every 10 ms
MAX_RESYNC_US = "5e3"           # a device syncs with the phy at least every 5 ms of its time
PTY_POLL_US = "1e3"             # the UART model polls its pty every 1 ms of simulated time


def load_env(path):
    env = {}
    with open(path) as f:
        for line in f:
            k, _, v = line.strip().partition("=")
            if k:
                env[k] = shlex.split(v)[0] if v else ""
    return env


class Agent:
    def __init__(self, folder, env):
        self.dir, self.env = folder, env
        self.log_file = open(os.path.join(folder, "agent.log"), "a", buffering=1)
        self.listeners, self.conns, self.ptys = {}, {}, {}   # name -> socket / socket / fd
        self.ctl_buf = b""
        self.handled = False
        self.sim = None          # {"id", "kind", "logdir", "procs": {name: Popen}, "sim_log"}
        self.count = 0
        for name in ("hci0", "hci1", "ctl"):
            path = os.path.join(folder, name + ".sock")
            if os.path.exists(path):
                os.unlink(path)
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.bind(path)
            s.listen(1)
            self.listeners[name] = s

    def log(self, msg):
        line = "%s.%03d %s" % (time.strftime("%H:%M:%S"), int(time.time() * 1000) % 1000, msg)
        self.log_file.write(line + "\n")
        if self.sim and self.sim.get("sim_log"):
            try:
                with open(self.sim["sim_log"], "a") as f:
                    f.write(line + "\n")
            except OSError:
                pass

    # --- the simulation ---------------------------------------------------------------------
    def start(self, kind, logdir):
        exe = {"legacy": self.env["LEGACY_EXE"], "extended": self.env["EXTENDED_EXE"]}.get(kind)
        if exe is None:
            raise ValueError("unknown kind %r (legacy or extended)" % kind)
        self.stop()
        self.count += 1
        sid = "btx%d_%d" % (os.getpid(), self.count)
        out = os.path.join(logdir, "sim")
        os.makedirs(out, exist_ok=True)
        self.sim = {"id": sid, "kind": kind, "logdir": out, "procs": {}, "sim_log": os.path.join(out, "agent.log"),
                    "t0": time.time()}
        cwd = os.path.dirname(self.env["PHY"])   # BabbleSim loads its channel and modem from ../lib
        devices = [("dev0", exe), ("dev1", self.env["EXTENDED_EXE"])]
        cmds = [("phy", [self.env["PHY"], "-s=" + sid, "-D=%d" % (len(devices) + 1), "-sim_length=" + SIM_LENGTH_US]),
                ("handbrake", [self.env["HANDBRAKE"], "-s=" + sid, "-d=%d" % len(devices), "-r=1",
                               "-pp=" + HANDBRAKE_POKE_US])]
        for d, (name, path) in enumerate(devices):
            cmds.append((name, [path, "-s=" + sid, "-d=%d" % d, "-rs=%d" % (70 + d), "-mro=" + MAX_RESYNC_US,
                                "-uart1_pty", "-uart_pty_pollT=" + PTY_POLL_US]))
        for name, cmd in cmds:
            with open(os.path.join(out, name + ".log"), "w") as f:
                f.write("# %s\n" % " ".join(cmd))
                f.flush()
                self.sim["procs"][name] = subprocess.Popen(cmd, cwd=cwd, stdout=f, stderr=subprocess.STDOUT,
                                                           stdin=subprocess.DEVNULL, start_new_session=True)
        ptys = {}
        deadline = time.monotonic() + 15
        while len(ptys) < len(devices) and time.monotonic() < deadline:
            for d, (name, _) in enumerate(devices):
                if d in ptys:
                    continue
                if self.sim["procs"][name].poll() is not None:
                    raise RuntimeError("%s exited (%s): %s" % (name, self.sim["procs"][name].returncode,
                                                               self.tail(os.path.join(out, name + ".log"))))
                p = self.pty_of(os.path.join(out, name + ".log"))
                if p:
                    ptys[d] = p
            time.sleep(0.05)
        if len(ptys) < len(devices):
            raise RuntimeError("no pseudo-terminal from the devices within 15 s")
        for d, path in sorted(ptys.items()):
            fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
            tty.setraw(fd)               # no echo, no line editing: the bytes as they are
            self.ptys["hci%d" % d] = fd
        pids = " ".join("%s=%d" % (n, p.pid) for n, p in self.sim["procs"].items())
        self.log("started %s (%s): %s; %s" % (sid, kind, " ".join("hci%d=%s" % kv for kv in sorted(ptys.items())), pids))
        return "%s %s hci0=%s hci1=%s" % (sid, kind, ptys[0], ptys[1])

    @staticmethod
    def tail(path, n=3):
        try:
            with open(path, errors="replace") as f:
                return " | ".join(f.read().strip().splitlines()[-n:])
        except OSError:
            return ""

    @staticmethod
    def pty_of(path):
        try:
            with open(path, errors="replace") as f:
                for line in f:
                    i = line.find("/dev/pts/")
                    if i >= 0:
                        return line[i:].split()[0]
        except OSError:
            pass
        return None

    def kill(self, n):
        if not self.sim:
            raise RuntimeError("no simulation")
        p = self.sim["procs"].get("dev%d" % n)
        if p is None:
            raise ValueError("no device %d" % n)
        p.send_signal(signal.SIGKILL)
        p.wait()
        self.close_pty("hci%d" % n, "killed")
        self.log("killed dev%d (pid %d) of %s" % (n, p.pid, self.sim["id"]))
        return "dev%d pid %d" % (n, p.pid)

    def stop(self):
        if not self.sim:
            return "no simulation"
        for name in list(self.ptys):
            self.close_pty(name, "simulation stopped")
        procs = self.sim["procs"]
        # devices first (they leave the phy cleanly on SIGTERM), then the handbrake and the phy
        for group in (("dev0", "dev1"), ("handbrake",), ("phy",)):
            for name in group:
                if name in procs and procs[name].poll() is None:
                    procs[name].terminate()
            for name in group:
                if name in procs:
                    try:
                        procs[name].wait(3)
                    except subprocess.TimeoutExpired:
                        procs[name].kill()
                        procs[name].wait()
        secs = time.time() - self.sim["t0"]
        self.log("stopped %s after %.1f s: %s" % (self.sim["id"], secs,
                                                   " ".join("%s=%s" % (n, p.returncode) for n, p in procs.items())))
        # BabbleSim's FIFOs (a device killed with SIGKILL leaves its own behind)
        user = os.environ.get("USER") or __import__("pwd").getpwuid(os.getuid()).pw_name
        fifo_dir = "/tmp/bs_%s/%s" % (user, self.sim["id"])
        if os.path.isdir(fifo_dir):
            for f in os.listdir(fifo_dir):
                os.unlink(os.path.join(fifo_dir, f))
            os.rmdir(fifo_dir)
        self.sim = None
        return "%.1f s" % secs

    def status(self):
        if not self.sim:
            return "no simulation"
        return "%s %s %s" % (self.sim["id"], self.sim["kind"], " ".join(
            "%s=%s" % (n, "running" if p.poll() is None else "exit%s" % p.returncode) for n, p in self.sim["procs"].items()))

    def close_pty(self, name, why):
        fd = self.ptys.pop(name, None)
        if fd is not None:
            os.close(fd)
            self.log("%s: pty closed (%s)" % (name, why))

    # --- requests ---------------------------------------------------------------------------
    def request(self, line):
        parts = line.split()
        if not parts:
            return None
        rid, cmd, args = parts[0], (parts[1] if len(parts) > 1 else ""), parts[2:]
        self.log("request %s" % " ".join(parts[1:]))
        try:
            if cmd == "start" and len(args) == 2:
                text = self.start(args[0], args[1])
            elif cmd == "kill" and len(args) == 1:
                text = self.kill(int(args[0]))
            elif cmd == "stop" and not args:
                text = self.stop()
            elif cmd == "status" and not args:
                text = self.status()
            else:
                raise ValueError("unknown request %r" % " ".join(parts[1:]))
            reply = "%s ok %s" % (rid, text)
        except (ValueError, RuntimeError, OSError, KeyError) as e:
            reply = "%s err %s" % (rid, e)
        self.log("reply %s" % reply.split(" ", 1)[1])
        return reply

    # --- the loop ---------------------------------------------------------------------------
    def send(self, name, data):
        s = self.conns.get(name)
        if s is None:
            return
        try:
            s.sendall(data)
        except OSError as e:
            self.log("%s: qemu connection lost (%s)" % (name, e))
            self.conns.pop(name).close()

    def run(self):
        stopping = []
        signal.signal(signal.SIGTERM, lambda *_: stopping.append(1))
        signal.signal(signal.SIGINT, lambda *_: stopping.append(1))
        self.log("agent %d listening in %s" % (os.getpid(), self.dir))
        while not stopping:
            rd = list(self.listeners.values()) + list(self.conns.values()) + list(self.ptys.values())
            self.handled = False
            try:
                ready, _, _ = select.select(rd, [], [], 0.5)
            except InterruptedError:
                continue
            for r in ready:
                if stopping or self.handled:
                    break   # a request may have closed and reopened pty fds: select again
                for name, s in self.listeners.items():
                    if r is s:
                        c, _ = s.accept()
                        if name in self.conns:
                            self.conns.pop(name).close()
                        self.conns[name] = c
                        self.log("%s: qemu connected" % name)
                        if name == "ctl":
                            self.ctl_buf = b""
                for name, c in list(self.conns.items()):
                    if r is not c:
                        continue
                    try:
                        data = c.recv(4096)
                    except OSError:
                        data = b""
                    if not data:
                        self.log("%s: qemu disconnected" % name)
                        self.conns.pop(name).close()
                    elif name == "ctl":
                        self.ctl_buf += data
                        while b"\n" in self.ctl_buf:
                            line, self.ctl_buf = self.ctl_buf.split(b"\n", 1)
                            reply = self.request(line.decode(errors="replace").strip("\r\0 "))
                            self.handled = True
                            if reply:
                                self.send("ctl", (reply + "\n").encode())
                    elif name in self.ptys:
                        try:
                            os.write(self.ptys[name], data)
                        except OSError as e:
                            self.close_pty(name, "write: %s" % e)
                for name, fd in list(self.ptys.items()):
                    if r != fd:
                        continue
                    try:
                        data = os.read(fd, 4096)
                    except OSError:
                        data = b""
                    if not data:
                        self.close_pty(name, "the controller hung up")
                    else:
                        self.send(name, data)
        self.log("SIGTERM: stopping")
        self.stop()
        for name, s in self.listeners.items():
            s.close()
            try:
                os.unlink(os.path.join(self.dir, name + ".sock"))
            except OSError:
                pass


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", required=True)
    ap.add_argument("--env", required=True)
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    Agent(a.dir, load_env(a.env)).run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
