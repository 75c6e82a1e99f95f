#!/usr/bin/env python3
"""Exact mode's speed end to end (issue 19: the timing model alone at least 30 M simulated
instructions per second).

`bottlenose run --exact --no-views --no-sensitivity --no-idealize` on bench/programs/speed.c
(gcc -O2 -fno-tree-vectorize, about 66 M instructions) under `setarch -R`, `--repeat` times:
wall seconds of the whole run (QEMU, the trace reader and functional layer, the timing
thread, the report), user + sys CPU seconds, and the best wall time as simulated
instructions per second, and the CPU seconds the hypervisor stole from this guest during
each run (/proc/stat; in the "best" column, during the fastest run). Wall time is what the
bar is about, so the host should be quiet; the minimum is the least disturbed run. Writes
bench/out/exact_speed.md.

    python3 bench/exact_speed.py [--bin PATH] [--machine M] [--repeat N]
"""
from __future__ import annotations

import tempfile
from pathlib import Path

from sampling import begin, gcc, generated_by, parser, steal_seconds, timed_run, write_out  # bench/sampling.py, beside this script

ROOT = Path(__file__).resolve().parent.parent
FLAGS = ["--exact", "--no-views", "--no-sensitivity", "--no-idealize"]


def main() -> None:
    ap = parser(__doc__)
    ap.add_argument("--repeat", type=int, default=7)
    a = ap.parse_args()
    host, load = begin(a.bin)
    tmp = Path(tempfile.mkdtemp(prefix="bn-exact-"))
    speed = gcc(tmp, "speed", "bench/programs/speed.c", ["-O2", "-fno-tree-vectorize"])
    walls, cpus, steals, insns = [], [], [], 0
    for i in range(a.repeat):
        before = steal_seconds()
        d, cpu, wall = timed_run(a.bin, a.machine, FLAGS, [speed], tmp / f"speed-{i}.json")
        steals.append(steal_seconds() - before)
        insns = d["instructions_simulated"]
        walls.append(wall)
        cpus.append(cpu)
    best = min(walls)
    md = (generated_by("exact_speed.py", host, load) +
          f"`setarch -R bottlenose run --machine {a.machine} {' '.join(FLAGS)} -- speed` (bench/programs/speed.c, "
          f"{insns / 1e6:.1f} M instructions), {a.repeat} runs:\n\n"
          "| | runs | best |\n| --- | --- | ---: |\n"
          f"| wall s | {', '.join(f'{w:.2f}' for w in walls)} | {best:.2f} |\n"
          f"| CPU s (user + sys) | {', '.join(f'{c:.2f}' for c in cpus)} | {min(cpus):.2f} |\n"
          f"| CPU s stolen by the hypervisor (both CPUs) | {', '.join(f'{s:.2f}' for s in steals)} | {steals[walls.index(best)]:.2f} |\n"
          f"| M simulated instructions / s of wall time | | **{insns / best / 1e6:.1f}** |\n")
    write_out("exact_speed.md", md)


if __name__ == "__main__":
    main()
