#!/usr/bin/env python3
"""Sampled against exact simulation (issue 19) on programs of 10^8-10^9 instructions.

For each program, `bottlenose run` twice on the same build and inputs, with address-space
randomization off (`setarch -R`: the same addresses index caches and predictors the same way):
`--exact --exact-views` (every instruction timed, and counted by the views) and `--sample`
(sampled from the first instruction), both with a small sensitivity
sweep (one weight, SWEEP's resources) and the accounting views, no idealizations. Then the
issue's bars, per program:

- cycles within 3 % of the exact run;
- the 99.7 % interval of the sampled cycles covers the exact cycles (the bar: 9 programs of 10);
- Top-Down level 1 (slot accounting) within 2 points of the exact shares;
- every CPI stack component (dispatch, issue, commit) and FLOPS stack component, as a share of
  its stack, within 2 points of the exact run's;
- the sensitivity ranking's top 3 (by speedup) the same set.

Writes bench/out/sampling.md (the table BENCHMARKS.md includes) and bench/out/sampling.json.

    python3 bench/sampling.py [--bin PATH] [--only NAME,NAME] [--machine M] [--jobs N] [--warming window,full]

`--warming` lists the warmings the sampled runs use (`run --warming`; default: the default,
window); with two, each program gets a row per warming, with its wall time.

`--only` runs a subset (the table says which ran). The full list takes about an hour of CPU
(release build); each exact run is the expensive part.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
# five resources at one weight: the top 3 of 5 is a ranking that can differ
SWEEP = "frontend,latency,miss_latency,window,mispredict_penalty"
WEIGHT = "1.15"


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def gcc(tmp: Path, name: str, src: str, flags: list[str]) -> str:
    exe = tmp / name
    subprocess.run(["gcc", *flags, "-o", str(exe), str(ROOT / src)], check=True)
    return str(exe)


def inputs(tmp: Path) -> dict[str, Path]:
    """Deterministic input files: 1 MB of the bottlenose binary (compressors), shuffled lines (sort)."""
    rng = random.Random(7)
    blob = tmp / "blob.in"
    binary = next((p for p in (ROOT / "target" / "release" / "bottlenose", ROOT / "target" / "debug" / "bottlenose") if p.exists()), None)
    data = binary.read_bytes()[:1 << 20] if binary else bytes(rng.getrandbits(8) for _ in range(1 << 20))
    blob.write_bytes(data)
    lines = tmp / "lines.in"
    lines.write_text("\n".join("".join(rng.choice("abcdefghij") for _ in range(rng.randint(3, 12))) for _ in range(60000)) + "\n")
    sql = tmp / "q.sql"
    sql.write_text("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 50000)\n"
                   "SELECT count(*), sum(x % 7), max(length(hex(x))) FROM c;\n")
    return {"blob": blob, "lines": lines, "sql": sql}


def programs(tmp: Path) -> list[tuple[str, list[str]]]:
    """(name, command): bench/programs built here, and installed programs on fixed inputs, each
    sized to 10^8-10^9 instructions (matvec's size is fixed at 46 M: not in the list)."""
    f = inputs(tmp)
    phases = gcc(tmp, "phases", "bench/programs/phases.c", ["-O1"])
    branchy = gcc(tmp, "branchy", "bench/programs/branchy.c", ["-O1", "-fno-if-conversion", "-fno-if-conversion2"])
    streams = gcc(tmp, "streams", "bench/programs/streams.c", ["-O1", "-fno-tree-vectorize"])
    chase = gcc(tmp, "chase", "bench/programs/chase.c", ["-O1"])
    return [
        ("chase 4194304 16000000", [chase, "4194304", "16000000"]),
        ("phases 250", [phases, "250"]),
        ("branchy 150", [branchy, "150"]),
        ("streams 1", [streams, "1"]),
        ("gzip -c (1 MB)", ["gzip", "-c", str(f["blob"])]),
        ("bzip2 -c (1 MB)", ["bzip2", "-c", str(f["blob"])]),
        ("xz -1 -c (1 MB)", ["xz", "-1", "-c", str(f["blob"])]),
        ("sort (60 000 lines)", ["sort", str(f["lines"])]),
        ("sqlite3 (recursive CTE)", ["sqlite3", ":memory:", f".read {f['sql']}"]),
        ("python3 (sum of squares)", ["/usr/bin/python3", "-S", "-c", "print(sum(i * i for i in range(300000)))"]),
    ]


def host_name(bn: str) -> str:
    """The CPU as `bottlenose machines host` names it, with the number of CPUs."""
    r = subprocess.run([bn, "machines", "host", "--format", "json"], capture_output=True, text=True)
    cpu = json.loads(r.stdout).get("cpu", "unknown CPU") if r.returncode == 0 else "unknown CPU"
    return f"{cpu}, {os.cpu_count()} CPUs"


def parser(doc: str, profile: str = "release") -> argparse.ArgumentParser:
    """The sampling bench scripts' command line: `--bin` (the `profile` build's bottlenose) and
    `--machine` (skylake), to which a script adds its own."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=str(ROOT / "target" / profile / "bottlenose"))
    ap.add_argument("--machine", default="skylake")
    return ap


def begin(bn: str) -> tuple[str, float]:
    """Before a measuring script's runs: the binary must exist; the host's name and the
    load average at the start (the tables print both)."""
    if not Path(bn).exists():
        release = " --release" if "/release/" in bn else ""
        raise SystemExit(f"{bn} not found: cargo build{release} -p bottlenose -p bottlenose-qemu-plugin (or --bin)")
    return host_name(bn), os.getloadavg()[0]


def generated_by(script: str, host: str, load: float) -> str:
    """The first words of a table's header: the command, the time, the host and its load."""
    now = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return f"Generated by `python3 bench/{script}` on {now}, on {host}, load average {load:.1f} at the start; "


def write_out(name: str, md: str) -> None:
    """Writes a table to bench/out/`name` (BENCHMARKS.md includes it) and prints it."""
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / name).write_text(md)
    print(md)


def steal_seconds() -> float:
    """CPU seconds the hypervisor gave to other guests since boot, over every CPU (the
    `steal` column of /proc/stat; 0 where there is none). On a shared host a run can lose a
    fifth of its time this way while `top` shows nothing of ours running."""
    try:
        fields = Path("/proc/stat").read_text().splitlines()[0].split()
        return int(fields[8]) / os.sysconf("SC_CLK_TCK") if len(fields) > 8 else 0.0
    except (OSError, ValueError):
        return 0.0


def timed_run(bn: str, machine: str, flags: list[str], cmd: list[str], out: Path) -> tuple[dict, float, float]:
    """`bottlenose run` under `setarch -R` with the JSON report to `out`: the report, its CPU
    seconds (user + sys of the whole run) and its wall seconds."""
    args = ["setarch", "x86_64", "-R", bn, "run", "--machine", machine, "-q", "--format", "json", "-o", str(out), *flags, "--", *cmd]
    t0 = time.monotonic()
    r = subprocess.run(["/usr/bin/time", "-f", "%U %S", *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise SystemExit(f"failed: {' '.join(args)}\n{r.stderr[-2000:]}")
    user, system = r.stderr.strip().splitlines()[-1].split()
    return json.loads(out.read_text()), float(user) + float(system), time.monotonic() - t0


def run(bn: str, machine: str, mode: list[str], cmd: list[str], out: Path) -> tuple[dict, float]:
    d, cpu, wall = timed_run(bn, machine, ["--no-idealize", "--weights", WEIGHT, "--resources", SWEEP, *mode], cmd, out)
    log(f"  {' '.join(mode)} {' '.join(cmd)}: {wall:.0f} s wall")
    d["_wall"] = wall
    return d, cpu


LEVEL1 = ("frontend_bound", "bad_speculation", "backend_bound", "retiring")


def stack_shares(d: dict) -> dict[str, float]:
    """Every CPI stack component (per stage) and FLOPS stack component as a share of its stack's total."""
    out = {}
    cpi = d.get("cpi_stacks") or {}
    for stage, comps in cpi.items():
        if isinstance(comps, dict):
            total = sum(comps.values()) or 1.0
            out.update({f"cpi {stage} {k}": v / total for k, v in comps.items()})
    flops = d.get("flops_stack") or {}
    total = sum(flops.values()) or 1.0
    out.update({f"flops {k}": v / total for k, v in flops.items()})
    return out


def stack_diff_points(exact: dict, sampled: dict) -> dict[str, float]:
    e, s = stack_shares(exact), stack_shares(sampled)
    return {k: 100 * (s.get(k, 0.0) - e.get(k, 0.0)) for k in sorted(set(e) | set(s))}


def compare(name: str, exact: dict, sampled: dict, cpu: tuple[float, float]) -> dict:
    ec, sc = exact["cycles"], sampled["cycles"]
    s = sampled.get("sampling") or {}
    hw = (s.get("cycles") or {}).get("half_width", 0.0)
    level1 = {k: 100 * (sampled["slot_accounting"][k] - exact["slot_accounting"][k]) for k in LEVEL1}
    stacks = stack_diff_points(exact, sampled)
    top3 = lambda d: {"+".join(p["resources"]) for p in sorted(d["sensitivity"], key=lambda p: -p["speedup"])[:3]}
    return {
        "program": name,
        "instructions": exact["instructions_simulated"],
        "exact_cycles": ec,
        "sampled_cycles": sc,
        "half_width": hw,
        "error_pct": 100 * (sc - ec) / ec,
        "covers": abs(sc - ec) <= hw,
        "units": s.get("units", 0),
        "detailed_share": s.get("detailed_instructions", 0) / max(exact["instructions_simulated"], 1),
        "level1_diff_points": level1,
        "stack_diff_points": stacks,
        "top3_exact": sorted(top3(exact)),
        "top3_sampled": sorted(top3(sampled)),
        "cpu_exact": cpu[0],
        "cpu_sampled": cpu[1],
        "wall_exact": exact.get("_wall", 0.0),
        "wall_sampled": sampled.get("_wall", 0.0),
    }


def table(rows: list[dict], machine: str, host: str, skipped: list[str]) -> str:
    head = ("| program | instructions | exact cycles | sampled ± 99.7 % | error | covers | worst level-1 diff (points) | worst stack diff (points) | top-3 same | units | timed in detail | CPU s exact / sampled | wall s exact / sampled |\n"
            "| --- | ---: | ---: | ---: | ---: | :---: | --- | --- | :---: | ---: | ---: | ---: | ---: |")
    lines = [head]
    for r in rows:
        k, d = max(r["level1_diff_points"].items(), key=lambda kv: abs(kv[1]))
        sk, sd = max(r["stack_diff_points"].items(), key=lambda kv: abs(kv[1]), default=("none", 0.0))
        lines.append(f"| {r['program']} | {r['instructions'] / 1e6:.0f} M | {r['exact_cycles']:.0f} | {r['sampled_cycles']:.0f} ± {100 * r['half_width'] / r['sampled_cycles']:.2f} % | "
                     f"{r['error_pct']:+.2f} % | {'yes' if r['covers'] else 'no'} | {d:+.2f} ({k}) | {sd:+.2f} ({sk}) | {'yes' if r['top3_exact'] == r['top3_sampled'] else 'no'} | "
                     f"{r['units']} | {100 * r['detailed_share']:.1f} % | {r['cpu_exact']:.0f} / {r['cpu_sampled']:.0f} | {r['wall_exact']:.0f} / {r['wall_sampled']:.0f} |")
    n = len(rows)
    within = lambda f: sum(1 for r in rows if f(r))
    summary = (f"\n{n} programs: cycles within 3 % in {within(lambda r: abs(r['error_pct']) <= 3)}, the interval covers the exact cycles in "
               f"{within(lambda r: r['covers'])}, Top-Down level 1 within 2 points in {within(lambda r: max(abs(v) for v in r['level1_diff_points'].values()) <= 2)}, "
               f"every CPI and FLOPS stack component within 2 points in {within(lambda r: max((abs(v) for v in r['stack_diff_points'].values()), default=0) <= 2)}, "
               f"the sensitivity top 3 the same in {within(lambda r: r['top3_exact'] == r['top3_sampled'])}.")
    if skipped:
        summary += f" Not run this time: {', '.join(skipped)}."
    now = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return (f"Generated by `python3 bench/sampling.py` on {now}, on {host}; machine model `{machine}`; "
            f"`run --exact --exact-views` against `run --sample`, both `--no-idealize --weights {WEIGHT} --resources {SWEEP}` with the views, under `setarch -R`.\n\n"
            + "\n".join(lines) + "\n" + summary + "\n")


def main() -> None:
    ap = parser(__doc__)
    ap.add_argument("--only", help="comma-separated program names' first words (e.g. phases,gzip)")
    ap.add_argument("--jobs", type=int, default=2, help="runs at a time")
    ap.add_argument("--warming", default="", help="comma-separated `run --warming` values for the sampled runs")
    a = ap.parse_args()
    if not Path(a.bin).exists():
        raise SystemExit(f"{a.bin} not found: cargo build --release -p bottlenose -p bottlenose-qemu-plugin (or --bin)")
    tmp = Path(tempfile.mkdtemp(prefix="bn-sampling-"))
    progs = programs(tmp)
    wanted = set(a.only.split(",")) if a.only else None
    chosen = [(n, c) for n, c in progs if wanted is None or n.split()[0] in wanted]
    skipped = [n for n, _ in progs if (n, _) not in chosen]
    host = host_name(a.bin)

    def one(i_prog):
        i, (name, cmd) = i_prog
        # (`--exact-views`: the reference counts the views on every instruction, not on their own windows)
        ex, ce = run(a.bin, a.machine, ["--exact", "--exact-views"], cmd, tmp / f"{i}-exact.json")
        out = []
        for w in warmings:
            mode = ["--sample"] + (["--warming", w] if w else [])
            sm, cs = run(a.bin, a.machine, mode, cmd, tmp / f"{i}-sampled-{w}.json")
            out.append(compare(name + (f" [{w} warming]" if w else ""), ex, sm, (ce, cs)))
        return out

    warmings = a.warming.split(",") if a.warming else [""]
    OUT.mkdir(parents=True, exist_ok=True)
    done: dict[int, list[dict]] = {}

    def write() -> str:
        # after every program: a run stopped early keeps the rows it finished
        rows = [r for i in sorted(done) for r in done[i]]
        unfinished = [n for i, (n, _) in enumerate(chosen) if i not in done]
        (OUT / "sampling.json").write_text(json.dumps({"machine": a.machine, "host": host, "rows": rows, "unfinished": unfinished}, indent=1) + "\n")
        md = table(rows, a.machine, host, skipped + [f"{n} (unfinished)" for n in unfinished])
        (OUT / "sampling.md").write_text(md)
        return md

    with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        futures = {pool.submit(one, (i, p)): i for i, p in enumerate(chosen)}
        for f in as_completed(futures):
            done[futures[f]] = f.result()
            write()
    print(write())
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
