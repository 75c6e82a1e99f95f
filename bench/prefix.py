#!/usr/bin/env python3
"""A default run's exact prefix against the exact run, on programs a few times the prefix's length.

A default `bottlenose run` times its first 2 M instructions exactly, then samples. The variants
(the sensitivity sweep, the idealizations) time that prefix after the windows: whole for the
idealizations of a run at most 10 times the prefix, a sub-sample of its batches otherwise and for
the sensitivity variants. Start-up code (the loader, first touches) misses in the caches and
predictors far more than what follows, so in a run of a few times 2 M instructions the prefix is
much of every variant's answer. For each program, `bottlenose run` with the full default analysis
(default sweep, the four idealizations, the views) twice under `setarch -R`: `--exact`, and the
default. Per program: each idealization's CPI reduction (exact; default, with its 99.7 % interval),
and of the sweep's points how many intervals cover the exact speedup, and the worst error.

Writes bench/out/prefix.md.

    python3 bench/prefix.py [--bin PATH] [--machine M]
"""
from __future__ import annotations

import tempfile
from pathlib import Path

from sampling import begin, gcc, generated_by, parser, timed_run, write_out  # bench/sampling.py, beside this script

ROOT = Path(__file__).resolve().parent.parent


def build(tmp: Path) -> list[tuple[str, list[str]]]:
    """(name, command): the README's example (5 M instructions) and bench/programs/phases.c at
    sizes from 2 to 14 times the prefix (10 rounds: 4.6 M instructions)."""
    dot = gcc(tmp, "dot", "examples/dot.c", ["-O2", "-g"])
    phases = gcc(tmp, "phases", "bench/programs/phases.c", ["-O1"])
    return [("dot", [dot]), ("phases 10", [phases, "10"]), ("phases 40", [phases, "40"]), ("phases 60", [phases, "60"])]


def main() -> None:
    ap = parser(__doc__)
    a = ap.parse_args()
    host, load = begin(a.bin)
    tmp = Path(tempfile.mkdtemp(prefix="bn-prefix-"))
    rows = []
    for name, cmd in build(tmp):
        exact, exact_cpu, _ = timed_run(a.bin, a.machine, ["--exact"], cmd, tmp / f"{name.replace(' ', '-')}-exact.json")
        d, cpu, _ = timed_run(a.bin, a.machine, [], cmd, tmp / f"{name.replace(' ', '-')}-default.json")
        s = d.get("sampling") or {}
        ideal = []
        for i in s.get("idealization", []):
            e = next(x for x in exact["idealization"] if x["what"] == i["what"])["cpi_reduction"]
            v, w = i["cpi_reduction"]["value"], i["cpi_reduction"].get("half_width") or 0.0
            ideal.append(f"{i['what'].removeprefix('perfect_')} {e:.3f} / {v:.3f} ±{w:.3f}{'' if abs(v - e) <= w else ' ✗'}")
        covered, worst = 0, 0.0
        points = s.get("sensitivity", [])
        for p in points:
            e = next(x for x in exact["sensitivity"] if x["resources"] == p["resources"] and x["weight"] == p["weight"])["speedup"]
            v, w = p["speedup"]["value"], p["speedup"].get("half_width") or 0.0
            covered += abs(v - e) <= max(w, 1e-4)
            worst = max(worst, abs(v - e))
        how = ("whole" if s.get("prefix_idealized") else f"{s.get('prefix_variant_units', 0)} units") if s else "exact run"
        rows.append(f"| `{name}` | {d['instructions_simulated'] / 1e6:.1f} M | {how} | {s.get('prefix_variant_units', 0)} | {'; '.join(ideal)} | "
                    f"{covered} of {len(points)} | {worst * 100:.2f} | {exact_cpu:.1f} | {cpu:.1f} |")
    md = (generated_by("prefix.py", host, load) + f"machine model `{a.machine}`, "
          "`run` under `setarch -R`, the full default analysis, `--exact` against the default (exact for the first 2 M instructions, then sampled). "
          "Idealizations: CPI reduction exact / default ±its 99.7 % half-width (✗: outside); the sweep: points whose interval covers the exact speedup, "
          "and the worst error in points of speedup:\n\n"
          "| program | instructions | idealizations' prefix | sensitivity's prefix units | idealizations | sweep covered | worst sweep error, points | exact CPU s | default CPU s |\n"
          "| --- | ---: | --- | ---: | --- | --- | ---: | ---: | ---: |\n" + "\n".join(rows) + "\n")
    write_out("prefix.md", md)


if __name__ == "__main__":
    main()
