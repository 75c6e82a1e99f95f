#!/usr/bin/env python3
"""AArch64 on this (x86-64) host: simulation speed of `bottlenose run` on a cross-compiled
program under qemu-aarch64, and `bottlenose analyze` next to llvm-mca-19 on the AArch64
loops of bench/blocks/aarch64/, with the Neoverse V2 software optimization guide's figure
where the loop isolates one. Writes bench/out/aarch64.md (and .json); bench/benchmarks.py
puts it into BENCHMARKS.md. There is no Arm hardware here: nothing is measured natively.

    python3 bench/aarch64.py [--bottlenose target/release/bottlenose] [--reps 3]
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
BLOCKS = ROOT / "bench" / "blocks" / "aarch64"

# Cycles per iteration the Neoverse V2 SWOG's figures give for the loops that isolate one
# (the derivation is in each file's first line): latency chains and port-bound loops.
SWOG_V2 = {
    "fmul_chain": 3.0,
    "fmla_acc_chain": 2.0,
    "fmla_mul_chain": 4.0,
    "fma_throughput": 6.0,
    "load_ports": 2.0,
    "pointer_chase": 4.0,
    "int_add_chain": 4.0,
    "imul_chain": 2.0,
    "dot_4acc": 8 / 3,
    # SVE at the V2's 128-bit vector length (qemu_cpu max,sve128=on)
    "sve_fmla_acc_chain": 2.0,
    "sve_fma_throughput": 6.0,
}


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    log("  $ " + " ".join(map(str, cmd)))
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        raise SystemExit(f"command failed ({r.returncode}): {cmd}\n{r.stderr[-2000:]}")
    return r


def timed(cmd: list[str], reps: int) -> tuple[float, float]:
    """Minimum wall and CPU (user + system, children included) seconds over `reps` runs."""
    wall, cpu = float("inf"), float("inf")
    for _ in range(reps):
        r = run(["/usr/bin/time", "-f", "%e %U %S", *cmd])
        e, u, s = r.stderr.strip().splitlines()[-1].split()
        wall, cpu = min(wall, float(e)), min(cpu, float(u) + float(s))
    return wall, cpu


def host(bn: str) -> str:
    try:
        cpu = json.loads(run([bn, "machines", "host", "--format", "json"]).stdout)["cpu"]
    except Exception:  # noqa: BLE001
        cpu = next((l.split(":", 1)[1].strip() for l in run(["lscpu"]).stdout.splitlines() if l.startswith("Model name")), "unknown CPU")
    return f"{cpu}, {os.cpu_count()} CPUs, Linux {os.uname().release}"


def speed(bn: str, reps: int) -> tuple[str, dict]:
    tmp = Path(tempfile.mkdtemp(prefix="bn-a64-"))
    a64, x86 = tmp / "speed-aarch64", tmp / "speed-x86"
    src = "bench/programs/speed.c"
    run(["aarch64-linux-gnu-gcc", "-O2", "-fno-tree-vectorize", "-static", "-o", str(a64), src])
    run(["gcc", "-O2", "-fno-tree-vectorize", "-o", str(x86), src])
    base = [bn, "run", "-q", "--format", "json", "--no-sensitivity"]
    cases = [
        ("`qemu-aarch64 -cpu max,sve128=on ./speed` (no plugin)", ["qemu-aarch64", "-L", "/usr/aarch64-linux-gnu", "-cpu", "max,sve128=on", str(a64)], None),
        ("AArch64, neoverse-v2, one timing model alone (`--no-views`)", [*base, "--machine", "neoverse-v2", "--no-views", "-o", str(tmp / "v2.json"), "--", str(a64)], "v2.json"),
        ("AArch64, neoverse-v2, model + sampled views (`--no-idealize`)", [*base, "--machine", "neoverse-v2", "--no-idealize", "-o", str(tmp / "v2views.json"), "--", str(a64)], "v2views.json"),
        ("AArch64, neoverse-n1, one timing model alone (`--no-views`)", [*base, "--machine", "neoverse-n1", "--no-views", "-o", str(tmp / "n1.json"), "--", str(a64)], "n1.json"),
        ("x86-64 build of the same program, skylake, one timing model alone (`--no-views`)", [*base, "--machine", "skylake", "--no-views", "-o", str(tmp / "skl.json"), "--", str(x86)], "skl.json"),
    ]
    rows, data = [], {}
    for name, cmd, js in cases:
        wall, cpu = timed(cmd, reps)
        n = json.loads((tmp / js).read_text())["instructions_simulated"] if js else None
        rate = f"{n / wall / 1e6:.1f} M/s" if n else ""
        cpu_rate = f"{n / cpu / 1e6:.1f} M/s" if n else ""
        rows.append(f"| {name} | {wall:.2f} s | {cpu:.2f} s | {n or ''} | {rate} | {cpu_rate} |")
        data[name] = {"wall_s": wall, "cpu_s": cpu, "instructions": n}
    text = (
        "| what | wall time (min) | CPU time (min) | simulated instructions | instructions / wall s | instructions / CPU s |\n"
        "| --- | ---: | ---: | ---: | ---: | ---: |\n" + "\n".join(rows) + "\n\n"
        "CPU time is QEMU, trace decoding, functional layer and timing together; on this shared VM it is the steadier "
        "figure (wall time includes waiting for the CPUs other jobs hold).\n"
    )
    return text, data


def cycles_bn(bn: str, f: Path, machine: str) -> float:
    out = run([bn, "analyze", str(f), "--isa", "aarch64", "--machine", machine, "--no-sensitivity", "--format", "json"]).stdout
    return json.loads(out)["cycles_per_iteration"]


def cycles_mca(f: Path, mcpu: str) -> float:
    out = run(["llvm-mca-19", "-mtriple=aarch64", f"-mcpu={mcpu}", "-iterations=1000", str(f)]).stdout
    total = next(int(l.split()[-1]) for l in out.splitlines() if l.startswith("Total Cycles:"))
    return total / 1000


def compare(bn: str) -> tuple[str, dict]:
    rows, data, err_bn, err_mca = [], {}, [], []
    for f in sorted(BLOCKS.glob("*.s")):
        name = f.stem
        v2, v2m = cycles_bn(bn, f, "neoverse-v2"), cycles_mca(f, "neoverse-v2")
        # the N1 has no SVE: analyze refuses SVE code for it, llvm-mca cannot parse it
        sve = name.startswith("sve_")
        n1, n1m = (None, None) if sve else (cycles_bn(bn, f, "neoverse-n1"), cycles_mca(f, "neoverse-n1"))
        swog = SWOG_V2.get(name)
        if swog:
            err_bn.append(abs(v2 - swog) / swog)
            err_mca.append(abs(v2m - swog) / swog)
        n1s = "no SVE" if n1 is None else f"{n1:.2f}"
        n1ms = "no SVE" if n1m is None else f"{n1m:.2f}"
        rows.append(f"| {name} | {f'{swog:.2f}' if swog else '-'} | {v2:.2f} | {v2m:.2f} | {n1s} | {n1ms} |")
        data[name] = {"swog_v2": swog, "bottlenose_v2": v2, "mca_v2": v2m, "bottlenose_n1": n1, "mca_n1": n1m}
    text = (
        "| loop | V2 SWOG figure | bottlenose neoverse-v2 | llvm-mca-19 -mcpu=neoverse-v2 | bottlenose neoverse-n1 | llvm-mca-19 -mcpu=neoverse-n1 |\n"
        "| --- | ---: | ---: | ---: | ---: | ---: |\n" + "\n".join(rows) + "\n\n"
        f"Against the V2 SWOG's figure on the {len(err_bn)} loops that have one: bottlenose mean error "
        f"{sum(err_bn) / len(err_bn) * 100:.1f} %, llvm-mca-19 {sum(err_mca) / len(err_mca) * 100:.1f} % "
        "(the guide's figures, not hardware measurements). The machines' forms are imported from LLVM's scheduling "
        "models (tools/import-llvm-mca), so agreement with llvm-mca on these loops checks the pipeline mechanics "
        "(ports, chains, the V2's FMA accumulator forwarding), not independent latency data. The `sve_` loops run at "
        "the V2's 128-bit vector length; the N1 has no SVE. sve_daxpy has 9 uops an iteration (LLVM's model gives "
        "`whilelo` and `st1d` two each): the machine file's 8-wide rename bounds it at 9 / 8 = 1.125, the load pipes "
        "(two ld1d and the st1d's address uop on three pipes) and M0/M1 (whilelo) at 1.0, which is llvm-mca's figure "
        "(its V2 model dispatches 16 uops a cycle).\n"
    )
    return text, data


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bottlenose", default=str(ROOT / "target" / "release" / "bottlenose"))
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--blocks-only", action="store_true", help="only the analyze/llvm-mca table, to bench/out/aarch64-blocks.md")
    a = ap.parse_args()
    bn = a.bottlenose
    if a.blocks_only:
        cmp_md, _ = compare(bn)
        OUT.mkdir(parents=True, exist_ok=True)
        (OUT / "aarch64-blocks.md").write_text(cmp_md)
        log(f"wrote {OUT / 'aarch64-blocks.md'}")
        return
    build = "release" if "/release/" in bn else "dev profile (optimized, debug info)"
    now = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    speed_md, speed_data = speed(bn, a.reps)
    cmp_md, cmp_data = compare(bn)
    md = (
        f"Generated by `python3 bench/aarch64.py` on {now}, on {host(bn)}; bottlenose {build} build. "
        "No Arm hardware here: QEMU runs the AArch64 code, and the cycle figures are the model's, llvm-mca's and the "
        "Neoverse V2 software optimization guide's; accuracy against hardware waits for an Arm machine.\n\n"
        "### Simulation speed\n\n`bench/programs/speed.c` cross-compiled with `aarch64-linux-gnu-gcc -O2 "
        "-fno-tree-vectorize -static` (and natively with gcc for the x86-64 row), whole program, `bottlenose run -q "
        f"--no-sensitivity`, minimum of {a.reps} runs:\n\n" + speed_md + "\n"
        "### `analyze` next to llvm-mca-19 (bench/blocks/aarch64/)\n\n"
        "Cycles per iteration, `bottlenose analyze FILE --isa aarch64 --machine M` and `llvm-mca-19 -mtriple=aarch64 "
        "-mcpu=M -iterations=1000`:\n\n" + cmp_md
    )
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "aarch64.md").write_text(md)
    (OUT / "aarch64.json").write_text(json.dumps({"generated": now, "speed": speed_data, "blocks": cmp_data}, indent=1))
    log(f"wrote {OUT / 'aarch64.md'}")


if __name__ == "__main__":
    main()
