#!/usr/bin/env python3
"""How often a sampled run's 99.7 % intervals cover the exact run's, on short programs (5-19 M
instructions) over sampling periods and seeds: the cycles', the shares of the functions and
loops the report lists (the first ten of each; one the exact run's table leaves out counts as
covered when its interval reaches below that table's last row), and Top-Down's level 1 (the
exact run counts the views on every instruction, `--exact-views`).

bench/sampling.py checks the issue's bars on ten programs of 10^8-10^9 instructions at the
adaptive period. Here the programs are a few times the 2 M exact prefix, where start-up and
exit code (cold code: few units hold it) weigh most, and the period is fixed (`--sample-period`
2 to 16, seeds 0 and 1), in both regimes: the default (an exact prefix of 2 M instructions, then
sampled) and `--sample` (sampled from the first instruction). Each program's exact run comes
from this script too, with the same environment: a program's cycles depend on where its stack
lands (`phases 40`'s branchy loop ran 11 % slower with a few more bytes of environment), so an
exact run from a shell is not the reference for a sampled run from here. Per regime and
program: the intervals that cover, and the worst error of the cycles. Writes bench/out/coverage.md.

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
QUIET = ["--no-sensitivity", "--no-idealize"]
LEVEL1 = {"Frontend_Bound": "frontend_bound", "Bad_Speculation": "bad_speculation", "Retiring": "retiring", "Backend_Bound": "backend_bound"}


def groups_covered(sampled: list[dict], table: list[dict], key: str) -> tuple[int, int]:
    """Of the first ten `sampled` shares (name, share interval), how many cover the exact run's
    `table` row of that name (by `key`); one the table leaves out is below its last row."""
    rows = {r[key]: r["share"] for r in table}
    floor = min(rows.values(), default=0.0)
    covered = 0
    for g in sampled[:10]:
        v, w = g["share"]["value"], g["share"].get("half_width") or 0.0
        covered += abs(v - rows[g["name"]]) <= w if g["name"] in rows else v - w <= floor
    return covered, len(sampled[:10])


def main() -> None:
    ap = parser(__doc__)
    a = ap.parse_args()
    host, load = begin(a.bin)
    tmp = Path(tempfile.mkdtemp(prefix="bn-coverage-"))
    programs = [p for p in build(tmp) if p[0] in ("dot", "phases 10", "phases 40")]
    out = tmp / "run.json"
    rows = []
    for name, cmd in programs:
        exact, _, _ = timed_run(a.bin, a.machine, ["--exact", "--exact-views", *QUIET], cmd, out)
        truth = exact["cycles"]
        for regime, flags in (("default", []), ("`--sample`", ["--sample"])):
            covered, worst, runs = 0, 0.0, 0
            fn_cover, loop_cover, hottest, td_cover, td_worst = [0, 0], [0, 0], [], [0, 0], (0.0, "")
            for period in PERIODS:
                for seed in SEEDS:
                    d, _, _ = timed_run(a.bin, a.machine, [*QUIET, *flags, "--sample-period", str(period), "--sample-seed", str(seed)], cmd, out)
                    c = d["sampling"]["cycles"]
                    err = c["value"] / truth - 1
                    covered += abs(c["value"] - truth) <= (c.get("half_width") or 0.0)
                    if abs(err) > abs(worst):
                        worst = err
                    runs += 1
                    for acc, k, key in ((fn_cover, "functions", "function"), (loop_cover, "loops", "head")):
                        c, n = groups_covered(d["sampling"].get(k, []), exact[k], key)
                        acc[0] += c
                        acc[1] += n
                    for node in d["sampling"].get("topdown_level1", []):
                        v, w = node["share"]["value"], node["share"].get("half_width") or 0.0
                        miss = abs(v - exact["slot_accounting"][LEVEL1[node["name"]]])
                        td_cover[0] += miss <= w
                        td_cover[1] += 1
                        if miss > td_worst[0]:
                            td_worst = (miss, node["name"])
                    if d["sampling"].get("functions"):
                        hottest.append(d["sampling"]["functions"][0]["share"].get("half_width") or 0.0)
            rows.append(f"| `{name}` | {exact['instructions_simulated'] / 1e6:.1f} M | {regime} | {covered} of {runs} | {worst * 100:+.2f} % "
                        f"| {fn_cover[0]} of {fn_cover[1]} | {loop_cover[0]} of {loop_cover[1]} "
                        f"| ±{100 * sum(hottest) / max(len(hottest), 1):.1f} | {td_cover[0]} of {td_cover[1]} | {100 * td_worst[0]:.2f} ({td_worst[1]}) |")
    md = (generated_by("coverage.py", host, load) + f"machine model `{a.machine}`, `run {' '.join(QUIET)}` (with the views) under `setarch -R`, "
          f"`--sample-period` {', '.join(map(str, PERIODS))} with `--sample-seed` {' and '.join(map(str, SEEDS))}, against `--exact --exact-views` run the same way: "
          "the 99.7 % intervals on the cycles that cover the exact cycles, the worst error, and the intervals on the shares of the "
          "first ten functions and loops of each report that cover the exact run's, the hottest function's half-width "
          "(points of the cycles, the mean over the runs), and the Top-Down level-1 intervals that cover the exact run's "
          "(`--exact-views`), with the largest difference (points):\n\n"
          "| program | instructions | regime | cycles: intervals covering | worst error | functions covering | loops covering | hottest function | Top-Down level 1 covering | largest level-1 difference |\n"
          "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n" + "\n".join(rows) + "\n")
    write_out("coverage.md", md)


if __name__ == "__main__":
    main()
