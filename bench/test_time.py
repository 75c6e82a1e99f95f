#!/usr/bin/env python3
"""Wall and CPU time of the test suite, per test binary and (with --per-test) per test.

Builds the workspace's tests (`cargo test --workspace --no-run`), then runs every test
binary on its own from its package's directory, as cargo does, and reads its wall time and
the CPU time of it and its children (QEMU, gcc, the bottlenose binary) from getrusage.
The machine is shared, so CPU seconds (user + sys) are the steadier figure; the load
average before and after each binary is printed with it.

    python3 bench/test_time.py [--per-test BIN_PREFIX ...] [--only BIN_PREFIX ...] [--json OUT]

--per-test NAME runs each test of the binaries whose name starts with NAME on its own
(`BIN --exact TEST`), which shows the slow tests."""
import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time


def load():
    return os.getloadavg()[0]


def timed(cmd, cwd):
    """Runs cmd; (wall s, cpu s of the children, ok, load before, load after)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    l0 = load()
    t0 = time.monotonic()
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if p.returncode != 0:
        sys.stderr.write(p.stdout.decode(errors="replace")[-3000:])
    return wall, cpu, p.returncode == 0, l0, load()


def test_binaries(root):
    out = subprocess.run(["cargo", "test", "--workspace", "--no-run", "--message-format=json"],
                         cwd=root, stdout=subprocess.PIPE, check=True).stdout
    bins = []
    for line in out.splitlines():
        m = json.loads(line)
        if m.get("reason") != "compiler-artifact" or not m.get("executable") or not m["profile"]["test"]:
            continue
        pkg_dir = os.path.dirname(m["manifest_path"])
        kind = m["target"]["kind"][0]
        name = m["target"]["name"] if kind == "test" else f"{m['target']['name']}[{kind}]"
        bins.append((name, m["executable"], pkg_dir))
    return bins


def tests_of(exe, cwd):
    out = subprocess.run([exe, "--list", "--format", "terse"], cwd=cwd, stdout=subprocess.PIPE, check=True).stdout.decode()
    return [l[: -len(": test")] for l in out.splitlines() if l.endswith(": test")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--per-test", nargs="*", default=[])
    ap.add_argument("--only", nargs="*", default=[])
    ap.add_argument("--from-snapshot", help="run the binaries copied by an earlier --snapshot (the suite as it was then) instead of the current build")
    ap.add_argument("--skip", nargs="*", default=[], help="binaries not to run (exact names)")
    ap.add_argument("--json")
    ap.add_argument("--snapshot", help="copy the test binaries here first, so that rebuilding during the run does not change them")
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    # the dynamic tests load the plugin; scripts/test.sh builds it before the tests
    subprocess.run(["cargo", "build", "--workspace"], cwd=root, check=True)
    rows = []
    print(f"{'binary':40} {'wall s':>8} {'cpu s':>8} {'load':>11}", flush=True)
    bins = test_binaries(root)
    if a.from_snapshot:
        bins = [(n, os.path.join(a.from_snapshot, os.path.basename(e)), c) for n, e, c in bins]
    elif a.snapshot:
        os.makedirs(a.snapshot, exist_ok=True)
        bins = [(n, shutil.copy2(e, a.snapshot), c) for n, e, c in bins]
    for name, exe, cwd in bins:
        if a.only and not any(name.startswith(o) for o in a.only) or name in a.skip:
            continue
        wall, cpu, ok, l0, l1 = timed([exe], cwd)
        rows.append({"binary": name, "wall": wall, "cpu": cpu, "ok": ok, "load": [l0, l1], "tests": []})
        print(f"{name:40} {wall:8.1f} {cpu:8.1f} {l0:5.1f}-{l1:5.1f}{'' if ok else '  FAILED'}", flush=True)
        if any(name.startswith(p) for p in a.per_test):
            for t in tests_of(exe, cwd):
                wall, cpu, ok, l0, l1 = timed([exe, "--exact", t], cwd)
                rows[-1]["tests"].append({"test": t, "wall": wall, "cpu": cpu, "ok": ok})
                print(f"    {t:60} {wall:8.1f} {cpu:8.1f}{'' if ok else '  FAILED'}", flush=True)
    tw, tc = sum(r["wall"] for r in rows), sum(r["cpu"] for r in rows)
    print(f"{'total (binaries one after another)':40} {tw:8.1f} {tc:8.1f}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
