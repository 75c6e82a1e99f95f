#!/usr/bin/env python3
"""How often a sampled run's 99.7 % interval on the cycles covers the exact run's, on short
programs (5-19 M instructions) over sampling periods and seeds.

bench/sampling.py checks the issue's bars on ten programs of 10^8-10^9 instructions at the
adaptive period. Here the programs are a few times the 2 M exact prefix, where start-up and
exit code (cold code: few units hold it) weigh most, and the period is fixed (`--sample-period`
2 to 16, seeds 0 and 1), in both regimes: the default (an exact prefix of 2 M instructions, then
sampled) and `--sample` (sampled from the first instruction). Each program's exact run comes
from this script too, with the same environment: a program's cycles depend on where its stack
lands (`phases 40`'s branchy loop ran 11 % slower with a few more bytes of environment), so an
exact run from a shell is not the reference for a sampled run from here. Per regime and
program: the intervals that cover, and the worst error. Writes bench/out/coverage.md.

    python3 bench/coverage.py [--bin PATH] [--machine M]
"""
from __future__ import annotations

import tempfile
from pathlib import Path

from prefix import build  # bench/prefix.py: the same short programs
from sampling import begin, generated_by, parser, timed_run, write_out  # bench/sampling.py, beside this script

ROOT = Path(__file__).resolve().parent.parent
PERIODS = [2, 3, 4, 6, 8, 16]
SEEDS = [0, 1]
QUIET = ["--no-views", "--no-sensitivity", "--no-idealize"]


def main() -> None:
    ap = parser(__doc__)
    a = ap.parse_args()
    host, load = begin(a.bin)
    tmp = Path(tempfile.mkdtemp(prefix="bn-coverage-"))
    programs = [p for p in build(tmp) if p[0] in ("dot", "phases 10", "phases 40")]
    out = tmp / "run.json"
    rows = []
    for name, cmd in programs:
        exact, _, _ = timed_run(a.bin, a.machine, ["--exact", *QUIET], cmd, out)
        truth = exact["cycles"]
        for regime, flags in (("default", []), ("`--sample`", ["--sample"])):
            covered, worst, runs = 0, 0.0, 0
            for period in PERIODS:
                for seed in SEEDS:
                    d, _, _ = timed_run(a.bin, a.machine, [*QUIET, *flags, "--sample-period", str(period), "--sample-seed", str(seed)], cmd, out)
                    c = d["sampling"]["cycles"]
                    err = c["value"] / truth - 1
                    covered += abs(c["value"] - truth) <= (c.get("half_width") or 0.0)
                    if abs(err) > abs(worst):
                        worst = err
                    runs += 1
            rows.append(f"| `{name}` | {exact['instructions_simulated'] / 1e6:.1f} M | {regime} | {covered} of {runs} | {worst * 100:+.2f} % |")
    md = (generated_by("coverage.py", host, load) + f"machine model `{a.machine}`, `run {' '.join(QUIET)}` under `setarch -R`, "
          f"`--sample-period` {', '.join(map(str, PERIODS))} with `--sample-seed` {' and '.join(map(str, SEEDS))}, against `--exact` run the same way: "
          "the 99.7 % intervals on the cycles that cover the exact cycles, and the worst error:\n\n"
          "| program | instructions | regime | intervals covering | worst error |\n| --- | ---: | --- | ---: | ---: |\n" + "\n".join(rows) + "\n")
    write_out("coverage.md", md)


if __name__ == "__main__":
    main()
