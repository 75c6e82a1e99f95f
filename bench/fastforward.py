#!/usr/bin/env python3
"""Fast-forward speed (issue 19): plain qemu-x86_64 against the bottlenose plugin in skip mode
(counting only) and in full mode (every instruction and access streamed, nothing decoded), on
the same program. The reader here is minimal: it acknowledges shared-memory regions, answers
the plugin's pauses and sums the SKIPPED counts; so the figures are the plugin's and QEMU's.

    python3 bench/fastforward.py [--plugin PATH] [--switch-every N] -- PROGRAM ARGS...

Modes timed (best of 3 wall times each):
- plain: `qemu-x86_64 PROGRAM`;
- skip: `pause=0`, answered with one skip to the end;
- switching (with --switch-every N): skip N instructions, 64 Ki in full, again and again
  (what sampling does): the cost of each switch (two plugin resets, each retranslating);
- full: the plugin streaming everything (the reader only acknowledges).
Instructions per second use the skip run's exact count (SKIPPED records) for every mode.
"""
from __future__ import annotations

import argparse
import os
import resource
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEADER = 4096
REGIONS, REGION = 8, 256 * 1024
TB_DEF, TB_EXEC, MEM, END, MEM_VCPU, EXEC, EXIT, NOTE, MAP, PAUSE, SKIPPED = range(1, 12)


def host() -> str:
    for b in (ROOT / "target" / "release" / "bottlenose", ROOT / "target" / "debug" / "bottlenose"):
        if b.exists():
            r = subprocess.run([str(b), "machines", "host"], capture_output=True, text=True)
            if r.returncode == 0:
                return r.stdout.strip().splitlines()[0]
    return subprocess.run(["sh", "-c", "lscpu | grep 'Model name'"], capture_output=True, text=True).stdout.strip()


class Stream:
    """Parses records from region bytes; keeps block lengths and skipped counts."""

    def __init__(self) -> None:
        self.buf = b""
        self.tb_len: list[int] = []
        self.skipped = 0
        self.pauses = 0
        self.ended = False

    def feed(self, data: bytes) -> list[str]:
        """Returns the events that need an answer ("pause")."""
        self.buf += data
        events = []
        b = self.buf
        at = 0
        while at < len(b):
            tag = b[at]
            if tag == 0:
                n = 7
            elif tag == TB_DEF:
                if len(b) - at < 7:
                    break
                count = struct.unpack_from("<H", b, at + 5)[0]
                off = at + 7
                ok = True
                for _ in range(count):
                    if len(b) - off < 9:
                        ok = False
                        break
                    off += 9 + b[off + 8]
                if not ok or off > len(b):
                    break
                self.tb_len.append(count)
                n = off - at
            elif tag == TB_EXEC:
                n = 7
            elif tag == MEM:
                n = 12
            elif tag == END:
                n = 1
                self.ended = True
            elif tag == MEM_VCPU:
                n = 3
            elif tag in (EXEC, NOTE):
                if len(b) - at < 3:
                    break
                n = 3 + struct.unpack_from("<H", b, at + 1)[0]
            elif tag == EXIT:
                n = 5
            elif tag == MAP:
                if len(b) - at < 27:
                    break
                n = 27 + struct.unpack_from("<H", b, at + 25)[0]
            elif tag == PAUSE:
                n = 1
                events.append("pause")
                self.pauses += 1
            elif tag == SKIPPED:
                if len(b) - at < 3:
                    break
                count = struct.unpack_from("<H", b, at + 1)[0]
                n = 3 + 12 * count
                if len(b) - at < n:
                    break
                for k in range(count):
                    tb, execs = struct.unpack_from("<IQ", b, at + 3 + 12 * k)
                    self.skipped += execs * self.tb_len[tb]
            else:
                raise SystemExit(f"unknown tag {tag} at {at}")
            if len(b) - at < n:
                break
            at += n
        self.buf = b[at:]
        return events


def run_plugin(plugin: str, argv: list[str], first_pause: int | None, answer: tuple[int, int], parse_all: bool) -> tuple[float, Stream]:
    memfd = os.memfd_create("bn-bench", 0)
    os.ftruncate(memfd, HEADER + REGIONS * REGION)
    os.pwrite(memfd, struct.pack("=QQ", REGIONS, REGION), 2048)
    ours, theirs = socket.socketpair()
    import mmap
    mm = mmap.mmap(memfd, HEADER + REGIONS * REGION)
    arg = f"{plugin},fd=3,shm=4" + (f",pause={first_pause}" if first_pause is not None else "")

    def child() -> None:
        # out of the way first: neither target may clobber the other's source
        sock, mem = os.dup(theirs.fileno()) + 100, os.dup(memfd) + 100
        os.dup2(theirs.fileno(), sock)
        os.dup2(memfd, mem)
        os.dup2(sock, 3)
        os.dup2(mem, 4)

    t0 = time.perf_counter()
    p = subprocess.Popen(["qemu-x86_64", "-plugin", arg, *argv], preexec_fn=child, close_fds=False, stdout=subprocess.DEVNULL)
    theirs.close()
    st = Stream()
    pending = b""
    while True:
        try:
            msg = ours.recv(8 - len(pending))
        except ConnectionResetError:
            msg = b""
        if not msg:
            break
        pending += msg
        if len(pending) < 8:
            continue
        region, length = struct.unpack("<II", pending)
        pending = b""
        data = mm[HEADER + region * REGION: HEADER + region * REGION + length]
        # a full-mode stream is only parsed up to its pauses when not asked for
        events = st.feed(data) if (parse_all or first_pause is not None) else []
        try:
            for _ in events:
                ours.sendall(bytes([1]) + struct.pack("<QQ", *answer))
            ours.sendall(b"\0")
        except (BrokenPipeError, ConnectionResetError):
            pass  # QEMU exited after its last region
    p.wait()
    t = time.perf_counter() - t0
    if p.returncode != 0:
        raise SystemExit(f"qemu-x86_64 with the plugin ({arg}) exited with {p.returncode}")
    # the tail after the last announced region (committed length in the header)
    mm.close()
    os.close(memfd)
    ours.close()
    return t, st


def child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def best(f, n=3):
    """Best of `n` runs: (wall seconds, CPU seconds of the children, output). On a loaded
    machine the CPU time is the steadier figure."""
    times = []
    out = None
    for _ in range(n):
        c0 = child_cpu()
        t, out = f()
        times.append((t, child_cpu() - c0))
    return min(t for t, _ in times), min(c for _, c in times), out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--plugin", default=str(ROOT / "target" / "debug" / "libbottlenose_qemu_plugin.so"))
    ap.add_argument("--switch-every", type=int, default=0)
    ap.add_argument("--no-full", action="store_true")
    ap.add_argument("--repeat", type=int, default=3, help="runs per mode (the best counts)")
    ap.add_argument("command", nargs="+")
    a = ap.parse_args()
    print(f"host: {host()}")
    never = (1 << 64) - 1
    t_skip, c_skip, st = best(lambda: run_plugin(a.plugin, a.command, 0, (never - 1, never), True), a.repeat)
    n = st.skipped
    def plain():
        t0 = time.perf_counter()
        subprocess.run(["qemu-x86_64", *a.command], stdout=subprocess.DEVNULL, check=True)
        return time.perf_counter() - t0, None

    t_plain, c_plain, _ = best(plain, a.repeat)
    print(f"instructions (skip-mode count): {n}")
    rows = [("plain qemu-x86_64", t_plain, c_plain), ("plugin, skip", t_skip, c_skip)]
    if a.switch_every:
        t_sw, c_sw, st2 = best(lambda: run_plugin(a.plugin, a.command, 0, (a.switch_every, 65536), True), a.repeat)
        rows.append((f"plugin, skip {a.switch_every} / full 64 Ki ({st2.pauses} switches)", t_sw, c_sw))
    if not a.no_full:
        t_full, c_full, _ = best(lambda: run_plugin(a.plugin, a.command, None, (0, never), False), 1)
        rows.append(("plugin, full stream (QEMU's CPU only)", t_full, c_full))
    print(f"{'':55s} {'wall':>9s}  {'QEMU CPU':>9s}  {'M instr/s (CPU)':>15s}  vs plain (CPU)")
    for name, t, c in rows:
        print(f"{name:55s} {t:8.2f}s  {c:8.2f}s  {n / c / 1e6:15.1f}  {c_plain / c:.2f}x")


if __name__ == "__main__":
    main()
