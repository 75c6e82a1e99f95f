#!/usr/bin/env python3
"""What the full default analysis costs on top of the sampled model alone (issue 19: at most 1.5x).

For each program, `bottlenose run` twice (with `--sample`, sampled from the first instruction; `long 1`
also as runs are by default, exact for its first 2 M instructions), under
`setarch -R`, alternating, `--repeat` times each:

- model alone: `--no-views --no-sensitivity --no-idealize`;
- full default: nothing switched off (the sensitivity sweep, the four idealizations, the views).

CPU seconds are user + sys of the whole run (QEMU, the reader, every timing thread), the
minimum over the repetitions (the host is shared: minima are the least disturbed). Writes
bench/out/sampling_cost.md.

    python3 bench/sampling_cost.py [--bin PATH] [--machine M] [--repeat N]
"""
from __future__ import annotations

import statistics
import tempfile
from pathlib import Path

from sampling import begin, gcc, generated_by, parser, timed_run, write_out  # bench/sampling.py, beside this script

ROOT = Path(__file__).resolve().parent.parent

MODES = {
    "model alone": ["--no-views", "--no-sensitivity", "--no-idealize"],
    "full default": [],
}


def build(tmp: Path) -> list[tuple[str, list[str], list[str]]]:
    """(name, command, how it is sampled): sampled from the first instruction, and `long 1`
    (677 M instructions) also as a run is by default, its first 2 M timed exactly by the
    baseline and the views (the variants wait on the kept records)."""
    speed = gcc(tmp, "speed", "bench/programs/speed.c", ["-O2", "-fno-tree-vectorize"])
    phases = gcc(tmp, "phases", "bench/programs/phases.c", ["-O1"])
    long = gcc(tmp, "long", "bench/programs/long.c", ["-O2"])
    return [("speed", [speed], ["--sample"]), ("phases 100", [phases, "100"], ["--sample"]), ("long 1", [long, "1"], ["--sample"]), ("long 1", [long, "1"], [])]


def main() -> None:
    ap = parser(__doc__)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    host, load = begin(a.bin)
    tmp = Path(tempfile.mkdtemp(prefix="bn-cost-"))
    rows = []
    for name, cmd, sampled in build(tmp):
        cpu: dict[str, list[float]] = {m: [] for m in MODES}
        report: dict[str, dict] = {}
        for i in range(a.repeat):
            for mode, flags in MODES.items():
                d, c, _ = timed_run(a.bin, a.machine, [*sampled, *flags], cmd, tmp / f"{name.split()[0]}-{len(sampled)}-{i}-{mode[0]}.json")
                cpu[mode].append(c)
                report[mode] = d
        alone, full = min(cpu["model alone"]), min(cpu["full default"])
        # one unusually fast run of either mode moves the ratio of minima by 0.1-0.2x on this
        # shared host; the ratio of medians is the steadier figure beside it
        medians = statistics.median(cpu["full default"]) / statistics.median(cpu["model alone"])
        s = report["full default"].get("sampling") or {}
        rows.append(f"| `{name}` | {' '.join(sampled) or 'default'} | {report['full default']['instructions_simulated'] / 1e6:.1f} M | {s.get('units', 0)} | {s.get('variant_units', 0)} | "
                    f"{', '.join(f'{x:.2f}' for x in cpu['model alone'])} | {', '.join(f'{x:.2f}' for x in cpu['full default'])} | **{full / alone:.2f}x** | {medians:.2f}x |")
    md = (generated_by("sampling_cost.py", host, load) +
          f"machine model `{a.machine}`, `run` under `setarch -R` (`--sample`: sampled from the first instruction; default: exact for the first 2 M instructions); CPU seconds (user + sys), each mode {a.repeat} times alternating, the ratio of the minima (the bar) and of the medians:\n\n"
          "| program | sampled | instructions | units | variants' units | model alone, CPU s | full default, CPU s | ratio | ratio of medians |\n"
          "| --- | --- | ---: | ---: | ---: | --- | --- | ---: | ---: |\n" + "\n".join(rows) + "\n")
    write_out("sampling_cost.md", md)


if __name__ == "__main__":
    main()
