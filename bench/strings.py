#!/usr/bin/env python3
"""String instructions (rep movs / stos / cmps / scas / lods) natively against
`bottlenose run --machine host`, on this host, whatever CPU it is.

Every kernel (bench/strings/rep_string.c, built by bench/strings/build.sh into
bench/out/bin/rep_OP_SIZE) runs one string instruction over SIZE bytes per loop iteration:

  native   bench/out/bin/K measure: rdtsc converted to core cycles (bench/harness/calib.h),
           minimum over repetitions -> cycles per iteration
  model    bottlenose run --machine host --roi markers --warm --no-sensitivity -- K model 1:
           one warm-up call, then one call between the ROI markers -> cycles / iterations

The machine file's [strings] figures of the zen4 model were measured with these kernels on the
development host, on the sizes whose data stay in L1 (<= 8 KiB; here 64 B and 1 KiB): those
rows check the fit. The rows beyond L1 (32 KiB and more, two buffers for movs/cmps) are the
cache model's prediction (line fills through L2, L3 and DRAM, stores drained into L1), and
the `+chain` rows (an independent 120-cycle imul chain beside the copy) check how much the
model lets younger work overlap a string instruction.

Writes bench/out/strings.json and bench/out/strings.md (the host on the first line);
bench/benchmarks.py puts the table into BENCHMARKS.md (`python3 bench/benchmarks.py --only
strings` updates that section alone).

Usage: bench/strings.py [--no-build | --no-build-bottlenose] [--kernels rep_movsb_64,...] [--measure-time S]
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import statistics
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
OUT = BENCH / "out"
BIN = OUT / "bin"
BN = REPO / "target" / "release" / "bottlenose"

SIZES = [64, 1024, 32768, 1048576, 16777216]
# (op, sizes): keep in step with bench/strings/build.sh
KERNELS = [(op, SIZES) for op in ("movsb", "movsq", "stosb", "stosq")] + [
    (op, [64, 1024, 32768]) for op in ("cmpsb", "scasb", "lodsb")
] + [("movsb+chain", [64, 1024, 4096, 16384])]
DESCRIPTION = {
    "movsb": "rep movsb", "movsq": "rep movsq", "stosb": "rep stosb", "stosq": "rep stosq",
    "cmpsb": "repe cmpsb", "scasb": "repne scasb", "lodsb": "rep lodsb",
    "movsb+chain": "rep movsb + independent 120-cycle imul chain",
}
# sizes at or below this many bytes per buffer were used to fit the zen4 figures
FITTED_MAX = 8192


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def kernel_name(op: str, size: int) -> str:
    return f"rep_{op.replace('+', '_')}_{size}"


def human(size: int) -> str:
    for unit, n in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= n and size % n == 0:
            return f"{size // n} {unit}"
    return f"{size} B"


def host() -> dict:
    p = subprocess.run([str(BN), "machines", "host", "--format", "json"], capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"`bottlenose machines host` failed: {p.stderr.strip()}")
    return json.loads(p.stdout)


def native(name: str, seconds: float) -> float:
    p = subprocess.run([str(BIN / name), "measure", "--time", str(seconds)], capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        raise RuntimeError(f"{name} measure: {p.stderr.strip()[-400:]}")
    return json.loads(p.stdout)["cycles_per_iteration"]["min"]


def model(name: str) -> tuple[float, dict]:
    out = OUT / "runs" / f"{name}.strings.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    cmd = [str(BN), "run", "--machine", "host", "--roi", "markers", "--warm", "--no-sensitivity",
           "--format", "json", "-o", str(out), "--", str(BIN / name), "model", "1"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    if p.returncode != 0:
        raise RuntimeError(f"bottlenose run {name}: {p.stderr.strip()[-400:]}")
    d = json.loads(out.read_text())
    info = json.loads(subprocess.run([str(BIN / name), "info"], capture_output=True, text=True, check=True).stdout)
    string = next((h for h in d["hot_instructions"] if h["asm"].split()[0] in ("rep", "repe", "repne")), None)
    facts = {"cycles": d["cycles"], "instructions": d["instructions_simulated"],
             "string_share": string["share"] if string else None,
             "string_executions": string["executions"] if string else None}
    return d["cycles"] / info["iterations_per_call"], facts


def where(op: str, size: int, h: dict) -> str:
    """Which level the data live in: the bytes the kernel keeps touching against the caches."""
    buffers = 2 if op.startswith(("movs", "cmps")) else 1
    footprint = buffers * size
    # `bottlenose machines host` names the geometry in its CPU line: "L1D 32 KiB, L2 1 MiB, L3 32 MiB"
    units = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
    caches = {m[0]: int(m[1]) * units[m[2]] for m in re.findall(r"\b(L1D|L2|L3) (\d+) (KiB|MiB|GiB)", h.get("cpu", ""))}
    for level, default in (("L1D", 32 << 10), ("L2", 1 << 20), ("L3", 32 << 20)):
        # a footprint the size of the cache does not stay in it (other data, conflicts)
        if footprint < caches.get(level, default):
            return level.rstrip("D")
    return "DRAM"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--no-build", action="store_true", help="neither bottlenose nor the kernels")
    ap.add_argument("--no-build-bottlenose", action="store_true", help="build the kernels, not bottlenose (bench/run.sh built it)")
    ap.add_argument("--kernels", help="comma-separated kernel names (rep_movsb_64,...)")
    ap.add_argument("--measure-time", type=float, default=0.3)
    args = ap.parse_args()
    if not args.no_build and not args.no_build_bottlenose:
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "bottlenose", "-p", "bottlenose-qemu-plugin"], cwd=REPO, check=True)
    if not args.no_build:
        for op, sizes in KERNELS:
            subprocess.run([str(BENCH / "strings" / "build.sh"), op, *map(str, sizes)], check=True)
    h = host()
    wanted = set(args.kernels.split(",")) if args.kernels else None
    rows = []
    for op, sizes in KERNELS:
        for size in sizes:
            name = kernel_name(op, size)
            if wanted and name not in wanted:
                continue
            log(f"== {name}")
            n = native(name, args.measure_time)
            m, facts = model(name)
            rows.append({"kernel": name, "op": op, "what": DESCRIPTION[op], "bytes": size, "data_in": where(op.split("+")[0], size, h),
                         "fitted": size <= FITTED_MAX and "+" not in op, "native": n, "model": m, "error": m / n - 1.0, **facts})
            log(f"   native {n:.1f}  model {m:.1f}  ({(m / n - 1) * 100:+.1f} %)")
    date = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    result = {"date": date, "host": {k: h.get(k) for k in ("cpu", "signature", "machine", "calibration")}, "rows": rows}
    (OUT / "strings.json").write_text(json.dumps(result, indent=1) + "\n")
    (OUT / "strings.md").write_text(render(result))
    log(f"wrote {OUT / 'strings.md'} and {OUT / 'strings.json'}")


def mape(rows: list[dict]) -> str:
    return f"{statistics.mean(abs(r['error']) for r in rows) * 100:.1f} %" if rows else "-"


def render(result: dict) -> str:
    h = result["host"]
    rows = result["rows"]
    cal = f", calibration {h['calibration']}" if h.get("calibration") else ""
    lines = [
        f"Measured {result['date']} on {h['cpu']}; model `--machine host` = {h['machine']}{cal}.",
        "",
        "Cycles per string instruction (one per loop iteration, with the loop's other 6 instructions): "
        "native (rdtsc, minimum over repetitions) and `bottlenose run --machine host --roi markers --warm`. "
        "*fitted*: the zen4 `[strings]` figures come from these sizes; the others are predictions "
        "(line fills through the cache model, the overlap with independent work).",
        "",
        "| instruction | bytes | data in | native | bottlenose run | error | |",
        "| --- | ---: | --- | ---: | ---: | ---: | --- |",
    ]
    for r in rows:
        lines.append(f"| {r['what']} | {human(r['bytes'])} | {r['data_in']} | {r['native']:.1f} | {r['model']:.1f} | "
                     f"{r['error'] * 100:+.1f} % | {'fitted' if r['fitted'] else ''} |")
    fitted = [r for r in rows if r["fitted"]]
    predicted = [r for r in rows if not r["fitted"]]
    lines += ["", f"Mean absolute error: fitted rows {mape(fitted)} ({len(fitted)}), predicted rows {mape(predicted)} "
              f"({len(predicted)}), all {mape(rows)} ({len(rows)}).", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
